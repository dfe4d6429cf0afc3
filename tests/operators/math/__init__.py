"""The math family's tests (reactive_streams/operators/_math.py)."""
