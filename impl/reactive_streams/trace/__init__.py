"""Trace validation: check recorded runs against ``spec/ReactiveStreams.tla``.

* :mod:`.format` reads and writes the JSON Lines format (docs/trace-format.md);
* :mod:`.model` replays a trace against a Python transcription of the spec;
* :mod:`.invariants` holds the Python twins of the spec's invariants;
* :mod:`.to_tla` turns traces into a TLA+ module; :mod:`.validate` runs TLC on it.

``python -m reactive_streams.trace validate FILE.jsonl ...`` is the command line.
"""

from .format import Event, FormatError, Header, Trace, parse_lines, read_trace, write_trace
from .model import Replay, SubState, Violation, replay
from .validate import Verdict, validate_files, validate_traces

__all__ = [
    "Event",
    "FormatError",
    "Header",
    "Replay",
    "SubState",
    "Trace",
    "Verdict",
    "Violation",
    "parse_lines",
    "read_trace",
    "replay",
    "validate_files",
    "validate_traces",
    "write_trace",
]
