"""`runner`: the host command. Thin: parses options and calls the library (project, plan, engine, report).

The commands live in runner/commands/, grouped by what they do; this module puts them on the one Typer app and
runs it. It is the console script's entry point (`runner.cli:main`) and `python -m runner.cli`.
"""
from __future__ import annotations

import signal
import sys

import typer
from rich.markup import escape

from runner.commands import curated, environments, results, run, sweep
from runner.commands.shared import err
from runner.errors import Stopped, UserError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Measure which functions of TensorFlow, PyTorch and JAX run on which device, and how fast.")
# Registered here rather than where each is defined: `runner --help` lists them in this order, which mixes the
# modules, and the command modules then need nothing of this one.
app.command("bench")(run.bench)
app.command("list")(curated.list_functions)
app.command("new")(curated.new_module)
app.command("matrix")(run.run_matrix)
app.command("declared")(environments.declared_support)
app.command("census")(run.run_census)
app.command("sweep")(sweep.sweep)
app.command("report")(results.report)
app.command("compare")(results.compare)
app.command("keep")(results.keep)

images_app = typer.Typer(no_args_is_help=True, help="Build the Docker images of images/ for matrix.toml's profiles.")
app.add_typer(images_app, name="images")
images_app.command("build")(environments.images_build)


def _stop(signum: int, frame: object) -> None:
    raise Stopped(signum)


def main() -> None:
    # Ctrl-C and a SIGTERM stop a run the same way: what is in flight is recorded as interrupted.
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    try:
        app()
    except UserError as e:
        err.print(f"[red]error:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
        sys.exit(e.code)
    except Stopped as e:  # outside a run: nothing to keep
        sys.exit(128 + e.signum)
    except OSError as e:  # a file-system failure not foreseen above: still one line, no traceback
        err.print(f"[red]error:[/] {escape(str(e.filename or ''))}: {escape(str(e.strerror or e))}", highlight=False,
                  soft_wrap=True)
        sys.exit(4)


if __name__ == "__main__":
    main()
