"""The observe_on family: every verification fact of ``operators/_observe_on.py``."""
