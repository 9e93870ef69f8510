"""The curated functions, read from each module's `pytest.mark.function(...)` without importing it.

Reading the marker statically lets the host list functions without any framework installed, and lets
the harness name the function of a module that fails to import. Standard library only.

Two kinds of module share one folder. The 2023 study's sample (runner/report/data/paper2023-functions.csv)
gives its usage facts in the marker: `pytest.mark.function("jax.numpy.add", decile=100, top20=True)`. A
user's own function gives only its name, `pytest.mark.function("jax.nn.softmax")`: it has no usage decile,
and the report's decile and top-20 views, which describe the study's sample, leave it out.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional

from portability_harness import upstream


@dataclass(frozen=True)
class CuratedFunction:
    framework: str
    name: str
    decile: Optional[int]
    top20: bool
    paper_label: Optional[str]
    module: str  # path relative to the curated root, e.g. torch/test_argsort.py
    error: Optional[str] = None  # why the module's marker could not be read (a syntax error)
    backward: Optional[str] = None  # why the function has no backward cases (the marker's backward=)
    upstream: Optional[List[dict]] = None  # the upstream test methods it cites (upstream.rows), where it declares them

    @property
    def in_study(self) -> bool:
        """One of the study's sample: only those markers carry a usage decile (the test suite checks that
        every sampled function has its decile and that no other function claims one)."""
        return self.decile is not None

    def usage(self) -> dict:
        """The usage facts a results header's `catalog` carries for this function, with why it has no backward cases
        and the upstream tests it cites where its module says."""
        facts = {"decile": self.decile, "top20": self.top20, "paper_label": self.paper_label}
        if self.backward:
            facts["backward"] = self.backward
        if self.upstream is not None:
            facts["upstream"] = self.upstream
        return facts


def read_marker(path: str) -> Optional[dict]:
    """The keyword and positional arguments of the module's function marker, or None if it has none.
    Raises SyntaxError (or ValueError for a marker argument that is not a literal)."""
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


# The marker's name as text, for a module whose syntax tree cannot be built.
_MARKER_TEXT = re.compile(r"""mark\.function\(\s*(?:name\s*=\s*)?["']([^"']+)["']""")
# The error `runner list` shows for a module that declares no function.
NO_MARKER = 'no function marker; add pytestmark = pytest.mark.function("<the function\'s public name>")'


def module_function(path: str) -> Optional[str]:
    """The function a module declares, from its syntax tree or, if it has a syntax error, its text."""
    try:
        marker = read_marker(path)
        return marker["name"] if marker else None
    except (SyntaxError, ValueError):
        pass
    except OSError:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            found = _MARKER_TEXT.search(f.read())
    except OSError:
        return None
    return found.group(1) if found else None


def curated(root: str, framework: Optional[str] = None) -> List[CuratedFunction]:
    """Every curated module's function. A module whose marker cannot be read is listed with its error (and
    the function its text names, if any), so that a broken module is never silently left out."""
    found = []
    frameworks = [framework] if framework else sorted(os.listdir(root))
    for fw in frameworks:
        folder = os.path.join(root, fw)
        if not os.path.isdir(folder):
            continue
        for filename in sorted(os.listdir(folder)):
            if not (filename.startswith("test_") and filename.endswith(".py")):
                continue
            path = os.path.join(folder, filename)
            module = f"{fw}/{filename}"
            try:
                marker = read_marker(path)
            except (SyntaxError, ValueError) as e:
                name = module_function(path) or f"<unreadable {module}>"
                where = f" (line {e.lineno})" if isinstance(e, SyntaxError) and e.lineno else ""
                found.append(CuratedFunction(fw, name, None, False, None, module,
                                             error=f"{type(e).__name__}{where}: {e.msg if isinstance(e, SyntaxError) else e}"))
                continue
            if marker:
                found.append(CuratedFunction(fw, marker["name"], marker.get("decile"), bool(marker.get("top20")),
                                             marker.get("paper_label"), module, backward=marker.get("backward"),
                                             upstream=_upstream_rows(path)))
            else:
                # Listed, not skipped: a new module without its marker would otherwise vanish from `runner list`
                # and `--functions` while its cases still run (as case_error, under the plugin's same name).
                found.append(CuratedFunction(fw, f"<no function marker: {module}>", None, False, None, module,
                                             error=NO_MARKER))
    return found


def _upstream_rows(path: str) -> Optional[List[dict]]:
    """The module's upstream test methods (upstream.rows), None where it declares none or its declaration is broken
    (tests/test_upstream_coverage.py names the problem)."""
    try:
        declaration = upstream.read(path)
    except (SyntaxError, ValueError):
        return None
    return upstream.rows(declaration) if declaration.declared else None


def usage_by_name(found: List[CuratedFunction]) -> Dict[str, dict]:
    """Each function's usage facts, as a results header's `catalog` carries them. A user's second module for a
    sampled function (name only) never replaces the facts the study's module gives, whichever file sorts first."""
    usage: Dict[str, dict] = {}
    for f in found:
        if f.name not in usage or (f.in_study and usage[f.name]["decile"] is None):
            usage[f.name] = f.usage()
    return usage
