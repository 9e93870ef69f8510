"""A new curated module for a function of one's own (`runner new`): the marker, the fixtures, a first case.

The module it writes measures the function on small float32 arrays and checks each result against the same
call on the CPU, so that an elementwise function (jax.nn.softmax, torch.nn.functional.softmax, tf.nn.softmax)
runs and passes as written. Its TODOs mark what a user fills in for any other function: the inputs, the
reference and the tolerances. Its marker gives the name only: a function outside the study's sample has no
usage decile (portability_harness.catalog).
"""
from __future__ import annotations

import re
from pathlib import Path

from portability_harness.catalog import curated
from portability_harness.protocol import FRAMEWORKS

from runner.errors import UserError

# The top-level names a framework's public names start with, and the import that provides each.
_IMPORTS = {
    "jax": {"jax": "import jax"},
    "torch": {"torch": "import torch"},
    "tensorflow": {"tf": "import tensorflow as tf", "tensorflow": "import tensorflow"},
}
_EXAMPLES = {"jax": "jax.nn.softmax", "torch": "torch.nn.functional.softmax", "tensorflow": "tf.nn.softmax"}
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")

# Per framework: the timed call on the device, and the same call on the CPU as the reference (both to NumPy).
_CALLS = {
    "jax": '''\
    result = bench({name}, jax.device_put(x, device))
    expected = {name}(jax.device_put(x, _cpu()))
    _check(np.asarray(result), np.asarray(expected))


def _cpu():
    """The host's CPU, where the reference is computed (a JAX cell on a GPU or TPU names the CPU beside its own
    platform); where an interpreter of your own has none, the case is skipped until it has a NumPy reference (the
    TODO above)."""
    try:
        return jax.devices("cpu")[0]
    except RuntimeError:
        pytest.skip("no CPU in this JAX cell for the reference; give the case a NumPy reference")
''',
    "torch": '''\
    result = bench({name}, torch.from_numpy(x).to(device))
    expected = {name}(torch.from_numpy(x))
    _check(result.detach().cpu().numpy(), expected.detach().numpy())
''',
    "tensorflow": '''\
    with tf.device(device):
        result = bench({name}, tf.constant(x))
    with tf.device("/CPU:0"):
        expected = {name}(tf.constant(x))
    _check(result.numpy(), expected.numpy())
''',
}

_MODULE = '''\
"""{name}: cases written by `runner new`. TODO: say where they come from; the framework's own tests of
{short} are the best source (they know the inputs, dtypes and tolerances that matter).

Each case builds its inputs on the cell's device, times the one call with `bench`, and checks the result
afterwards against a reference: as written, the same call on the CPU (on a CPU cell that checks nothing but
that the call runs). TODO: where you can, compute the expected values with NumPy in float64 instead."""
{imports}

pytestmark = pytest.mark.function("{name}")

# TODO: the inputs of your cases. As written: small float32 arrays, which suit an elementwise function.
SHAPES = [(16,), (4, 16), (2, 3, 16)]
# TODO: the tolerances of the check.
RTOL, ATOL = 1e-5, 1e-6


def _check(actual, expected):
    """The result has the reference's shape and dtype, and its values within RTOL and ATOL."""
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_{short}_float32(bench, device, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
{calls}'''


def write_module(curated_root: Path, framework: str, name: str) -> Path:
    """Write a new curated module for `name` under curated_root/<framework>/ and return its path.

    The file is test_<last part of the name>.py (snake case), or a longer name taken from the name's parts when
    that file holds another function; an existing file is never overwritten. Raises UserError (one line) for an
    unknown framework, a name that is not the framework's, a function that already has a module, or a folder
    that cannot be written."""
    if framework not in FRAMEWORKS:
        raise UserError(f"unknown framework {framework!r}; choose one of {', '.join(FRAMEWORKS)}")
    parts = name.split(".")
    if not _DOTTED.fullmatch(name) or parts[0] not in _IMPORTS[framework]:
        raise UserError(f"{name!r} is not a {framework} function's public name; give the full dotted name, e.g. "
                        f"{_EXAMPLES[framework]}")
    root = Path(curated_root)
    if not root.is_dir():
        raise UserError(f"{root} is not a folder; give --curated a folder of <framework>/test_*.py modules")
    for f in curated(str(root), framework):
        if f.name == name:
            raise UserError(f"{name} already has a module: {root / f.module}; edit that one")
    folder = root / framework
    imports = sorted(["import numpy as np", "import pytest", _IMPORTS[framework][parts[0]]], key=lambda i: i.split()[1])
    text = _MODULE.format(name=name, short=_snake(parts[-1]), imports="\n".join(imports),
                          calls=_CALLS[framework].format(name=name))
    for short in _file_names(parts[1:]):
        path = folder / f"test_{short}.py"
        try:
            folder.mkdir(exist_ok=True)
            with open(path, "x", encoding="utf-8") as out:  # "x": fails rather than overwrite
                out.write(text)
            return path
        except FileExistsError:
            continue  # holds another function (this one's module was looked for above): try a longer name
        except OSError as e:
            raise UserError(f"cannot write {path}: {e.strerror or e}; give --curated a folder you can write")
    raise UserError(f"every file name for {name} under {folder} is taken; rename one of its test_*.py modules")


def _file_names(parts: list[str]) -> list[str]:
    """Candidate short names, shortest first: softmax, nn_softmax (for jax.nn.softmax)."""
    return ["_".join(_snake(p) for p in parts[-n:]) for n in range(1, len(parts) + 1)]


def _snake(part: str) -> str:
    """ExponentialLR -> exponential_lr, Conv3d -> conv3d, add_module -> add_module."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", part).lower()
