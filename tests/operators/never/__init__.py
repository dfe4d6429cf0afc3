"""The never family's tests (reactive_streams/operators/_never.py)."""
