"""The log family's tests (reactive_streams/operators/_log.py)."""
