"""The subscribe_on family: every verification fact of ``operators/_subscribe_on.py``."""
