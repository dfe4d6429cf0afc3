"""The delay_subscription family: every verification fact of
``operators/_delay_subscription.py``."""
