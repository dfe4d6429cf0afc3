"""Python ports of the reactive-streams-jvm 1.0.4 example implementations, with the
verdicts the JVM TCK gives them (``verdicts.py``); ``tests/tck/test_reference.py`` runs
the kit on each port and compares. The ports keep the examples' real behaviour, known
defects included (see the tables)."""
