"""The project's own modules stay small and import each other one way: no module over 400 lines, no circle
of imports among the runner's modules or among the harness's (imports inside functions count: a circle hidden in
a function is still one)."""
from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

LIMIT = 400  # lines
PACKAGES = {"runner": ROOT / "runner", "portability_harness": ROOT / "harness" / "portability_harness"}


def modules(package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the package."""
    base = PACKAGES[package]
    found = {}
    for path in sorted(base.rglob("*.py")):
        parts = [package, *path.relative_to(base).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's own modules `name` imports anywhere in its file ("from x import y" counts x.y when y is
    a module, x otherwise)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names)
    return {m for m in found if m in known and m != name}


def circles(package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    known = modules(package)
    graph = {m: imports(m, p, known) for m, p in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        for n in sorted(graph[m]):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            group = []
            while True:
                n = stack.pop()
                group.append(n)
                if n == m:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return groups


def test_no_module_is_over_the_limit():
    sources = [p for base in PACKAGES.values() for p in base.rglob("*.py")]
    sources += [*(ROOT / "tests").glob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    assert len(sources) > 50
    long = {str(p.relative_to(ROOT)): n for p in sources if (n := len(p.read_text().splitlines())) > LIMIT}
    assert long == {}


def test_the_runner_has_no_import_circle():
    assert circles("runner") == []


def test_the_harness_has_no_import_circle():
    assert circles("portability_harness") == []


def test_the_circle_finder_finds_a_circle_hidden_in_a_function(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import c\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    (pkg / "d.py").write_text("from pkg.a import something\n")
    monkeypatch.setitem(PACKAGES, "pkg", pkg)
    assert circles("pkg") == [["pkg.a", "pkg.b", "pkg.c"]]
