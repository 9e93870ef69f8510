"""What the command modules share: the consoles they print on and the help of the options that commands of more
than one module take, so that the same option reads the same everywhere."""
from __future__ import annotations

import os
import sys

from rich.console import Console

# Rich folds tables to 80 columns when stdout is not a terminal, which breaks function names apart in
# a redirected `runner compare > file`; a set COLUMNS still decides.
console = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160)
err = Console(stderr=True)

BACKEND_HELP = ("docker, local (a venv from the image spec), auto (docker when an engine answers) or python[:PATH] (an "
                "environment you already have, e.g. python:/opt/venv/bin/python; nothing is installed into it)")
ENV_HELP = "python[:PATH] backend: pass this variable to the worker too (beyond the documented list); repeatable"
QUICK_BUDGET_HELP = ("--quick: stop the run after this many seconds from the command's start, recording the cases "
                     "not run as cut short (--resume runs them); 0: no budget  [default: 1800]")
CURATED_HELP = ("a folder of curated modules (<folder>/<framework>/test_*.py) instead of the checkout's curated/ "
                "(default: $RUNNER_CURATED)")
