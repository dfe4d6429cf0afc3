"""The cut family's tests (reactive_streams/operators/_cut.py)."""
