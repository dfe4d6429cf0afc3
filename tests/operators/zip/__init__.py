"""The zip family: every verification fact of ``operators/_zip.py``."""
