"""The operators behind :class:`reactive_streams.flow.Flow`, one module per family."""
