"""The tail family: every verification fact of ``operators/_tail.py``."""
