"""The amb family's tests (reactive_streams/operators/_amb.py)."""
