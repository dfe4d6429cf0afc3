"""The exhaust family's tests (reactive_streams/operators/_exhaust.py)."""
