"""What the command modules share: the consoles they print on and the help of the options that commands of more
than one module take, so that the same option reads the same everywhere."""
from __future__ import annotations

import os
import sys
from typing import Any, Optional

import typer
from rich.console import Console

from runner.errors import UserError

# Rich folds tables to 80 columns when stdout is not a terminal, which breaks function names apart in
# a redirected `runner compare > file`; a set COLUMNS still decides.
console = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160)
err = Console(stderr=True)

BACKEND_HELP = ("docker, local (a venv from the image spec), auto (docker when an engine answers) or python[:PATH] (an "
                "environment you already have, e.g. python:/opt/venv/bin/python; nothing is installed into it)")
ENV_HELP = "python[:PATH] backend: pass this variable to the worker too (beyond the documented list); repeatable"
BUDGET_HELP = ("the run's time in seconds from the command's start: the repeats expected to fit it run, every cell's "
               "first before any second, and the run stops at its end, recording the cases not run as cut short "
               "(--resume runs them and the repeats left out); 0: none  [default: 1800 with --quick, else none]")


def budget_option() -> Any:
    """--budget-s (--quick-budget-s, its name from when only a quick pass had a budget, still read)."""
    return typer.Option(None, "--budget-s", "--quick-budget-s", help=BUDGET_HELP)


def checked_budget(value: Optional[float]) -> Optional[float]:
    if value is not None and value < 0:
        raise UserError(f"--budget-s {value:g}: give a number of seconds, or 0 for no budget")
    return value


CURATED_HELP = ("a folder of curated modules (<folder>/<framework>/test_*.py) instead of the checkout's curated/ "
                "(default: $RUNNER_CURATED)")
