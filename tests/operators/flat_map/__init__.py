"""The flat_map family: every verification fact of ``operators/_flat_map.py``."""
