"""The transform family: every verification fact of ``operators/_transform.py``."""
