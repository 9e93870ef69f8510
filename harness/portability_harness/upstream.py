"""The upstream test methods a curated module cites, read from its text without importing it (like catalog.py).

A module declares them in one literal, `UPSTREAM_TESTS`: each upstream test method ("path::Class::method", as the
framework's own repository names it) maps to the module's tests that represent it, or to the reason it is left out:

    UPSTREAM_TESTS = {
        "test/test_reductions.py::TestReductions::test_sum_vs_numpy": ["test_sum_vs_numpy", "test_sum_keepdim"],
        "test/test_sparse.py::TestSparseAny::test_sum_meta": "the meta device computes shapes only: no hardware",
    }

What each local test represents is read from its definition: its pass (it takes `backward` or not), its layouts
(case_kinds.py: layout markers, complex dtypes) and the dtypes its parametrization names. `runner list --coverage`
prints the table; the results header's catalog carries it (rows); tests/test_upstream_coverage.py checks it
(problems). Standard library only. docs/curated-cases.md is the guide.
"""
from __future__ import annotations

import ast
import itertools
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from portability_harness.case_kinds import BACKWARD_FIXTURE, LAYOUT_MARKER, LAYOUTS

DECLARATION = "UPSTREAM_TESTS"
SUPPORT = "_support.py"  # where modules of a framework share constants (dtype lists) that the reader follows


@dataclass(frozen=True)
class LocalTest:
    name: str
    passes: Tuple[str, ...]
    layouts: Tuple[str, ...]
    dtypes: Tuple[str, ...]


@dataclass(frozen=True)
class Method:
    name: str
    tests: Tuple[str, ...]  # the local tests that represent it; empty where it is left out
    left_out: Optional[str]


@dataclass(frozen=True)
class Declaration:
    methods: Tuple[Method, ...]  # in the order the module lists them; empty without UPSTREAM_TESTS
    tests: Dict[str, LocalTest]  # every test function of the module
    declared: bool  # whether the module has UPSTREAM_TESTS


def read(path: str) -> Declaration:
    """A module's declaration and tests. Raises SyntaxError for a module that does not parse, ValueError for an
    UPSTREAM_TESTS that is not a literal dict of str to a list of str or a str."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    own = _constants(tree)
    constants = dict(own)
    support = os.path.join(os.path.dirname(path), SUPPORT)
    if os.path.exists(support):
        with open(support, encoding="utf-8") as f:
            constants = {**_constants(ast.parse(f.read(), filename=support)), **own}
    tests = {node.name: _local_test(node, constants) for node in tree.body
             if isinstance(node, ast.FunctionDef) and node.name.startswith("test")}
    if DECLARATION not in own:
        return Declaration((), tests, False)
    value = ast.literal_eval(own[DECLARATION])
    if not isinstance(value, dict):
        raise ValueError(f"{DECLARATION} must be a dict of upstream test method to local tests or a reason")
    methods = []
    for name, target in value.items():
        if isinstance(target, str):
            methods.append(Method(str(name), (), target))
        elif isinstance(target, (list, tuple)) and all(isinstance(t, str) for t in target):
            methods.append(Method(str(name), tuple(target), None))
        else:
            raise ValueError(f"{DECLARATION}[{name!r}] must be a list of the module's test names or a reason (a str)")
    return Declaration(tuple(methods), tests, True)


def problems(path: str, backward_reason: Optional[str]) -> List[str]:
    """What keeps a converted module's declaration from being complete (docs/curated-cases.md): every upstream
    method represented by tests that exist or left out with a reason, backward cases exactly where the function is
    differentiable (no `backward=` reason in its marker) and each of them cited, layouts known."""
    try:
        decl = read(path)
    except (SyntaxError, ValueError) as e:
        return [f"{DECLARATION} cannot be read: {e}"]
    if not decl.declared:
        return [f"no {DECLARATION}: declare the upstream test methods the module cites (docs/curated-cases.md)"]
    found = []
    for m in decl.methods:
        if m.name.count("::") < 1:
            found.append(f"{m.name!r}: name an upstream test as path::Class::method (path::function for a module's)")
        if m.left_out is not None and not m.left_out.strip():
            found.append(f"{m.name}: left out without a reason; give it")
        if m.left_out is None and not m.tests:
            found.append(f"{m.name}: no local test; list the tests that represent it, or the reason it is left out")
        found += [f"{m.name}: {t} is not a test of this module" for t in m.tests if t not in decl.tests]
    backward = sorted(t.name for t in decl.tests.values() if "backward" in t.passes)
    cited = {t for m in decl.methods for t in m.tests}
    if backward_reason and backward:
        found.append(f"the marker says {backward_reason!r} (no backward cases), yet {', '.join(backward)} take "
                     f"`{BACKWARD_FIXTURE}`")
    if not backward_reason and not backward:
        found.append(f"no backward case: a differentiable function needs tests taking `{BACKWARD_FIXTURE}`, else the "
                     "marker's backward= says why it has none")
    found += [f"{t} (backward) is cited by no upstream method" for t in backward if t not in cited]
    for t in decl.tests.values():
        found += [f"{t.name}: unknown layout {name!r}; use one of {', '.join(LAYOUTS)}" for name in t.layouts
                  if name not in LAYOUTS]
    return found


def rows(decl: Declaration) -> List[Dict[str, Any]]:
    """One row per upstream method: what its local tests cover (forward and backward tests, layouts, dtypes), or
    the reason it is left out. Compact, for the results header's catalog and `runner list --coverage`."""
    out = []
    for m in decl.methods:
        if m.left_out is not None:
            out.append({"method": m.name, "left_out": m.left_out})
            continue
        tests = [decl.tests[t] for t in m.tests if t in decl.tests]
        out.append({"method": m.name,
                    "forward": sum("forward" in t.passes for t in tests),
                    "backward": sum("backward" in t.passes for t in tests),
                    "layouts": sorted({layout for t in tests for layout in t.layouts}),
                    "dtypes": sorted({d for t in tests for d in t.dtypes})})
    return out


# --- reading a test's definition ---------------------------------------------------------------------------------

def _constants(tree: ast.Module) -> Dict[str, ast.AST]:
    """Module-level `NAME = value` assignments, as syntax."""
    return {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def _call_name(node: ast.AST) -> Optional[str]:
    return getattr(node.func, "attr", getattr(node.func, "id", None)) if isinstance(node, ast.Call) else None


def _elements(node: ast.AST, constants: Dict[str, ast.AST], depth: int = 0) -> List[ast.AST]:
    """The values a parametrization lists: a list or tuple literal, a module constant (or _support's), their sums;
    nothing for what only running tells (a call, a comprehension)."""
    if depth > 5:
        return []
    if isinstance(node, ast.Name) and node.id in constants:
        return _elements(constants[node.id], constants, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _elements(node.left, constants, depth + 1) + _elements(node.right, constants, depth + 1)
    if isinstance(node, (ast.List, ast.Tuple)):
        out: List[ast.AST] = []
        for e in node.elts:
            out += _elements(e.value, constants, depth + 1) if isinstance(e, ast.Starred) else [e]
        return out
    return []


def _layout_of(node: Optional[ast.AST]) -> Optional[str]:
    """The name in a `pytest.mark.layout(name)` anywhere in `node` (a decorator, a pytest.param's marks)."""
    for sub in ast.walk(node) if node is not None else ():
        if _call_name(sub) == LAYOUT_MARKER and sub.args and isinstance(sub.args[0], ast.Constant):
            return str(sub.args[0].value)
    return None


def _dtype_text(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Constant):
        return None if node.value is None else str(node.value)
    if isinstance(node, ast.Attribute):
        return node.attr  # torch.float32, np.float32, jnp.bfloat16, tf.float32
    if isinstance(node, ast.Name):
        return node.id
    return ast.unparse(node)


def _instances(call: ast.Call, constants: Dict[str, ast.AST]) -> List[Tuple[Optional[str], List[str]]]:
    """Per value of one parametrize decorator: its explicit layout and the dtypes it names."""
    names_node = call.args[0] if call.args else None
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [n.strip() for n in names_node.value.split(",")]
    elif isinstance(names_node, (ast.List, ast.Tuple)):
        names = [str(getattr(e, "value", "")) for e in names_node.elts]
    else:
        return [(None, [])]
    dtype_at = [i for i, n in enumerate(names) if "dtype" in n]
    out = []
    for value in _elements(call.args[1], constants) if len(call.args) > 1 else []:
        layout = None
        if _call_name(value) == "param":
            layout = _layout_of(next((k.value for k in value.keywords if k.arg == "marks"), None))
            parts = list(value.args)
        else:
            parts = list(value.elts) if len(names) > 1 and isinstance(value, ast.Tuple) else [value]
        dtypes = [_dtype_text(parts[i]) for i in dtype_at if i < len(parts)]
        out.append((layout, [d for d in dtypes if d]))
    return out or [(None, [])]


def _local_test(node: ast.FunctionDef, constants: Dict[str, ast.AST]) -> LocalTest:
    args = {a.arg for a in node.args.args}
    marked = next((_layout_of(d) for d in node.decorator_list if _call_name(d) == LAYOUT_MARKER), None)
    axes = [_instances(d, constants) for d in node.decorator_list if _call_name(d) == "parametrize"]
    layouts, dtypes = set(), set()
    for combination in itertools.product(*axes) if axes else [()]:
        explicit = next((layout for layout, _ in combination if layout), None)
        names = [d for _, ds in combination for d in ds]
        dtypes.update(names)
        layouts.add(marked or explicit or ("complex" if any("complex" in d for d in names) else "dense"))
    return LocalTest(node.name, ("backward",) if BACKWARD_FIXTURE in args else ("forward",), tuple(sorted(layouts)),
                     tuple(sorted(dtypes)))
