"""The harness stands alone: no module of it imports the host side or a host-only package, and every module
imports with nothing but the harness, the standard library and pytest on the path."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import portability_harness

PACKAGE = Path(portability_harness.__file__).parent
HOST_ONLY = {"runner", "typer", "rich", "docker", "pandas", "scipy", "matplotlib", "ray"}
# Imported lazily by the framework adapters, inside the environment under test only.
FRAMEWORK_MODULES = {"torch", "torch_xla", "tensorflow", "jax", "jaxlib", "numpy"}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_harness_module_imports_a_host_module():
    offenders = {p.relative_to(PACKAGE).as_posix(): sorted(imported(p) & HOST_ONLY) for p in modules()}
    assert not {k: v for k, v in offenders.items() if v}


def test_every_harness_module_imports_on_its_own(tmp_path):
    names = [".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).replace(".__init__", "")
             for p in modules() if p.name != "__main__.py"]
    code = ("import sys\n" + "".join(f"import {n}\n" for n in names)
            + "host = sorted(m for m in sys.modules if m.split('.')[0] in %r)\n" % (HOST_ONLY | FRAMEWORK_MODULES)
            + "print(host)\n")
    # Isolated: no user site, no PYTHONPATH, started outside any checkout.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-s", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
