"""The combine family: every verification fact of ``operators/_combine.py``."""
