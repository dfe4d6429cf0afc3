"""The limit family: every verification fact of ``operators/_limit.py``."""
