"""The timed family: every verification fact of ``operators/_timed.py``."""
