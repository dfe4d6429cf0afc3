"""The timed_window family: every verification fact of ``operators/_timed_window.py``."""
