"""The curated functions, read from each module's `pytest.mark.function(...)` without importing it.

Reading the marker statically lets the host list functions without any framework installed, and lets
the harness name the function of a module that fails to import. Standard library only.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import List, Optional


@dataclass(frozen=True)
class CuratedFunction:
    framework: str
    name: str
    decile: Optional[int]
    top20: bool
    paper_label: Optional[str]
    module: str  # path relative to the curated root, e.g. torch/test_argsort.py

    def usage(self) -> dict:
        """The usage facts a results header's `catalog` carries for this function."""
        return {"decile": self.decile, "top20": self.top20, "paper_label": self.paper_label}


def read_marker(path: str) -> Optional[dict]:
    """The keyword and positional arguments of the module's function marker, or None if it has none."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets)):
            continue
        values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
        for call in values:
            if isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "function":
                args = [ast.literal_eval(a) for a in call.args]
                kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
                return dict(zip(("name", "decile", "top20", "paper_label"), args), **kwargs)
    return None


def module_function(path: str) -> Optional[str]:
    try:
        marker = read_marker(path)
    except (SyntaxError, ValueError, OSError):
        return None
    return marker["name"] if marker else None


def curated(root: str, framework: Optional[str] = None) -> List[CuratedFunction]:
    found = []
    frameworks = [framework] if framework else sorted(os.listdir(root))
    for fw in frameworks:
        folder = os.path.join(root, fw)
        if not os.path.isdir(folder):
            continue
        for filename in sorted(os.listdir(folder)):
            if not (filename.startswith("test_") and filename.endswith(".py")):
                continue
            marker = read_marker(os.path.join(folder, filename))
            if marker:
                found.append(
                    CuratedFunction(
                        framework=fw,
                        name=marker["name"],
                        decile=marker.get("decile"),
                        top20=bool(marker.get("top20")),
                        paper_label=marker.get("paper_label"),
                        module=f"{fw}/{filename}",
                    )
                )
    return found
