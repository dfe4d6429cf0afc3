"""The timed_sources family: every verification fact of ``operators/_timed_sources.py``."""
