"""The sliding family's tests (reactive_streams/operators/_sliding.py)."""
