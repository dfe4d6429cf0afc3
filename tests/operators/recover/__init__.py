"""The recover family: every verification fact of ``operators/_recover.py``."""
