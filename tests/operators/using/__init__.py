"""The using family's tests (reactive_streams/operators/_using.py)."""
