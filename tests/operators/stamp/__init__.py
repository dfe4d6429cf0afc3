"""The stamp family's tests (reactive_streams/operators/_stamp.py)."""
