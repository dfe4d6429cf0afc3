"""The pick family's tests (reactive_streams/operators/_pick.py)."""
