"""The gallery: small correct subjects, and one small wrong class per bug the kit must catch.

The controls (``publishers``, ``subscribers``, ``processors``) are correct. Each bug
class of the catalogue in docs/conformance.md (P = publisher, S = subscriber,
X = processor) subclasses one and overrides one seam, in a module per rule chapter
(``rules_1_publisher`` ... ``rules_4_processor``; ``legal`` for behaviours the
specification allows). Its class attributes name the rule it breaks, the kit check that
must fail on it and the JVM TCK's verdict (``Specimen``), as the JVM TCK's
``shouldFailBy`` tests each build a wrong publisher. ``catalogue`` collects them;
``tests/tck/test_gallery.py`` runs each through the check it names, and the controls
through the same checks; the kill table in docs/conformance.md is
``render_kill_table()``. ``pooled`` holds subjects that signal from a thread pool
(``make kit-load``).
"""

from __future__ import annotations

from .catalogue import (
    BUGS,
    CONTROLS,
    UNREPRODUCIBLE,
    Unreproducible,
    by_id,
    control_of,
    render_kill_table,
    run,
    suite_of,
    summary,
)
from .processors import GalleryProcessor
from .publishers import FailedPublisher, FailingPublisher, GalleryPublisher, ThreadedPublisher
from .specimen import Specimen
from .subscribers import AsyncSubscriber, GallerySubscriber

__all__ = [
    "BUGS",
    "CONTROLS",
    "UNREPRODUCIBLE",
    "AsyncSubscriber",
    "FailedPublisher",
    "FailingPublisher",
    "GalleryProcessor",
    "GalleryPublisher",
    "GallerySubscriber",
    "Specimen",
    "ThreadedPublisher",
    "Unreproducible",
    "by_id",
    "control_of",
    "render_kill_table",
    "run",
    "suite_of",
    "summary",
]
