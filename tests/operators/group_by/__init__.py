"""The group_by family: every verification fact of ``operators/_group_by.py``."""
