"""Reactive Streams 1.0.4 for Python."""
