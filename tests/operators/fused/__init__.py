"""The fused family: every verification fact of
``operators/_fused.py``."""
