"""The pairwise family's tests (reactive_streams/operators/_pairwise.py)."""
