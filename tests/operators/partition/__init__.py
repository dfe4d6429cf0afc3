"""The partition family's tests (reactive_streams/operators/_partition.py)."""
