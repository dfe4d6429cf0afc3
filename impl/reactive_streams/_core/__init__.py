"""Core machinery shared by sources, operators and multicast (private)."""
