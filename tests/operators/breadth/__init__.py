"""The breadth family: every verification fact of ``operators/_breadth.py``."""
