"""Hypothesis state machines and real-thread tests checked against the TLA+ spec's rules."""
