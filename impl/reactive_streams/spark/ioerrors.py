"""Name the cause of an I/O error: no space left, permission denied.

Hadoop's local filesystem reports a full disk as ``IOException: No space left on
device`` and a read-only directory as a ``mkdirs`` that returns false; a retry of a
commit cut short by a full disk then fails on the 0-byte record it left, with an
error that names neither. :func:`io_cause` finds the cause anywhere in an error's
chain (errno or message), :func:`local_cause` asks the local disk why a path cannot
be created.
"""

from __future__ import annotations

import errno
import os
from urllib.parse import urlsplit

__all__ = ["io_cause", "local_cause"]

_CAUSES = (
    (
        (errno.ENOSPC, errno.EDQUOT),
        ("No space left on device", "DiskOutOfSpace", "QuotaExceeded"),
        "no space left on device (ENOSPC)",
    ),
    (
        (errno.EACCES, errno.EPERM, errno.EROFS),
        ("Permission denied", "AccessControlException", "AccessDenied", "Read-only file system"),
        "permission denied (EACCES)",
    ),
)


def io_cause(*errors: BaseException | None) -> str | None:
    """``no space left on device (ENOSPC)`` or ``permission denied (EACCES)`` if any
    error in the chains of ``errors`` says so, else None."""
    seen: set[int] = set()
    stack = [e for e in errors if e is not None]
    while stack:
        err = stack.pop()
        if id(err) in seen:
            continue
        seen.add(id(err))
        code = getattr(err, "errno", None)
        text = str(err)
        for codes, words, name in _CAUSES:
            if code in codes or any(w in text for w in words):
                return name
        stack += [c for c in (err.__cause__, err.__context__) if c is not None]
    return None


def local_cause(path: str) -> str | None:
    """Why ``path`` (a local path or ``file:`` URI) cannot be created: the nearest
    existing ancestor is not a writable directory. None for other schemes."""
    parts = urlsplit(path)
    if parts.scheme not in ("", "file") or len(parts.scheme) == 1:
        return None
    local = os.path.abspath(parts.path if parts.scheme else path)
    probe = local
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent
    if not os.path.isdir(probe):
        return f"{probe} is a file, not a directory"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"permission denied (EACCES): {probe} is not writable"
    return None
