"""The repeat family's tests (reactive_streams/operators/_repeat.py)."""
