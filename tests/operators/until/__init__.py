"""The until family's tests (reactive_streams/operators/_until.py)."""
