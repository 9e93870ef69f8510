"""Progress events: one JSON object a line, from worker to supervisor (a pipe) and supervisor to host (stdout).

The host's progress display and the docker backend's log streaming both read this protocol.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any, Optional


def encode(event: str, **fields: Any) -> bytes:
    return (json.dumps({"event": event, **fields}, default=str) + "\n").encode("utf-8")


class Emitter:
    """Writes events to a file descriptor; the supervisor's emitter writes to stdout."""

    def __init__(self, fd: Optional[int] = None):
        self.fd = sys.stdout.fileno() if fd is None else fd

    def __call__(self, event: str, **fields: Any) -> None:
        data = encode(event, **fields)
        while data:
            data = data[os.write(self.fd, data):]


def decode(line: bytes) -> Optional[dict]:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and "event" in obj else None
