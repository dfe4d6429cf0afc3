"""The args family: every verification fact of
``operators/_args.py``."""
