"""The aggregate family: every verification fact of ``operators/_aggregate.py``."""
