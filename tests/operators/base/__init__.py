"""The base family: every verification fact of
``operators/_base.py``."""
