"""The problems that end a whole cell run, each as one line for the user and an exit code.

Kept apart from the supervisor because the worker side (the plugin, the census's pytest module) reports a
results file it cannot write in the same words: importing them from here, below both, keeps the worker from
importing the supervisor that imports the census that imports the worker.
"""
from __future__ import annotations

from portability_harness.protocol import Exit


class HarnessError(Exception):
    """A problem with the whole cell run (bad --out, worker cannot start): one line for the user."""

    def __init__(self, message: str, code: int = Exit.USAGE):
        super().__init__(message)
        self.code = code


def write_error(path: str, e: OSError) -> HarnessError:
    """A results file that cannot be written, as one line with the fix."""
    fix = {28: "free some space, then continue with --resume",  # ENOSPC
           30: "the file system is read-only; write to another folder"}.get(e.errno or 0,
                                                                              "write to a folder you can write")
    return HarnessError(f"cannot write {path}: {e.strerror or e}; {fix}", code=Exit.OUTPUT)
