"""The marbles family: every verification fact of
``operators/_marbles.py``."""
