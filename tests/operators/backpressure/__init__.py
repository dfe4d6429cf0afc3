"""The backpressure family: every verification fact of ``operators/_backpressure.py``."""
