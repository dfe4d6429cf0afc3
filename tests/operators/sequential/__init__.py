"""The sequential family's tests (reactive_streams/operators/_sequential.py)."""
