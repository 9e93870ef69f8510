"""How a cell runs: `local` (a venv built from the image spec) or `docker_engine` (a container, docker SDK)."""
from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_GENERIC = re.compile(r"(ERROR|error): (ResolutionImpossible|Ignored the following)")


def telling_error(output: list[str]) -> str | None:
    """The most telling line of a failed install: pip's (or our install script's) last own error line,
    not its generic closing advice."""
    lines = [_ANSI.sub("", l).strip() for l in output]
    errors = [l for l in lines if l.startswith(("ERROR:", "error:")) and not _GENERIC.match(l)]
    return errors[-1].split(":", 1)[1].strip() if errors else None
