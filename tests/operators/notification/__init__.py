"""The notification family's tests (reactive_streams/operators/_notification.py)."""
