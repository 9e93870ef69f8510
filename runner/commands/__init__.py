"""The commands of `runner`, one module per kind of work: run.py runs cells (bench, matrix, census), results.py
reads finished runs (report, compare), curated.py is about the curated functions (list, new), environments.py
works on the cells' environments (declared, images build); shared.py holds what several of them print with.
runner/cli.py puts them on the one Typer app; none of them imports it back.
"""
