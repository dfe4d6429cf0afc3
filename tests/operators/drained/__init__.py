"""The drained family: every verification fact of
``operators/_drained.py``."""
