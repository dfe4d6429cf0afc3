"""The multicast family: every verification fact of
``reactive_streams/multicast/``."""
