"""The switch_map family: every verification fact of ``operators/_switch_map.py``."""
