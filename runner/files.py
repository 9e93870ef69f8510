"""Writing the host's own files (merged.json, summary.md, the state file, reports) whole or not at all, and
the one-line error a file-system failure becomes."""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

from runner.errors import UserError


def os_error(path: Path, e: OSError, resume: bool = True) -> UserError:
    """A file-system failure as one line: the path, the system's reason and what to do."""
    if e.errno == errno.ENOSPC:
        fix = "free some space" + (", then continue with --resume" if resume else "")
    elif e.errno == errno.EROFS:
        fix = "the file system is read-only; choose a folder on another one with --out"
    elif e.errno in (errno.EACCES, errno.EPERM):
        fix = "choose a folder you can write with --out"
    else:
        fix = "check the path"
    return UserError(f"cannot write {path}: {e.strerror or e}; {fix}", code=4)


def write_text(path: Path, text: str) -> Path:
    """Atomically: a reader (or a crash) never sees half a file, and the old one stays until the new is whole."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        raise os_error(path, e)
    finally:
        if os.path.lexists(tmp):
            tmp.unlink()
    return path


def write_json(path: Path, data: Any) -> Path:
    return write_text(path, json.dumps(data, indent=1))
