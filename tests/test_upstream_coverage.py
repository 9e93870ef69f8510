"""Every curated module of the study's sample declares the upstream test methods it cites (UPSTREAM_TESTS), each
represented by tests of the module or left out with a reason, with backward cases where its function is
differentiable and the reason in its marker where it is not (docs/curated-cases.md); `runner list --coverage` shows
the table."""
from __future__ import annotations

import re
import textwrap

from conftest import CURATED, runner_cli
from portability_harness import upstream
from portability_harness.catalog import curated


def test_every_module_of_the_study_declares_its_upstream_tests_completely():
    found = [f for f in curated(str(CURATED)) if f.in_study]
    assert found
    problems = [f"{f.module}: {p}" for f in found for p in upstream.problems(str(CURATED / f.module), f.backward)]
    assert not problems, "\n".join(problems)


MODULE = '''
    import pytest

    pytestmark = pytest.mark.function("torch.example"{backward})

    UPSTREAM_TESTS = {{
        "test/test_x.py::TestX::test_represented": ["test_forward"],
        "test/test_x.py::TestX::test_missing_local": ["test_forward", "test_nowhere"],
        "test/test_x.py::TestX::test_no_reason": "",
        "test_no_path": ["test_forward"],
    }}


    def test_forward(bench, device):
        pass


    @pytest.mark.layout("sparse_bsr")
    def test_other_backward(backward, device):
        pass
'''


def test_an_incomplete_declaration_is_named_with_what_it_lacks(tmp_path):
    path = tmp_path / "test_example.py"
    path.write_text(textwrap.dedent(MODULE.format(backward=', backward="integer output"')))
    problems = "\n".join(upstream.problems(str(path), "integer output"))
    assert "test_x.py::TestX::test_missing_local: test_nowhere is not a test of this module" in problems
    assert "test_x.py::TestX::test_no_reason: left out without a reason" in problems
    assert "'test_no_path': name an upstream test as path::Class::method" in problems
    assert "the marker says 'integer output' (no backward cases), yet test_other_backward take" in problems
    assert "test_other_backward (backward) is cited by no upstream method" in problems
    assert "test_other_backward: unknown layout 'sparse_bsr'" in problems
    assert len(problems.splitlines()) == 6, problems
    # A differentiable function (no reason in its marker) needs backward cases.
    path.write_text(textwrap.dedent(MODULE.format(backward="")).replace("(backward, device)", "(bench, device)"))
    assert any("no backward case: a differentiable function" in p for p in upstream.problems(str(path), None))
    # A module without the declaration says so.
    path.write_text("import pytest\n\npytestmark = pytest.mark.function('torch.example')\n")
    assert upstream.problems(str(path), None) == ["no UPSTREAM_TESTS: declare the upstream test methods the module "
                                                  "cites (docs/curated-cases.md)"]


def test_runner_list_coverage_shows_each_method_with_what_represents_it():
    proc = runner_cli("list", "--coverage", "--framework", "torch")
    assert proc.returncode == 0, proc.stderr
    sparse = [l for l in proc.stdout.splitlines() if "test_as_sparse_gradcheck" in l]
    assert sparse and "torch.sum" in sparse[0] and "sparse_coo, sparse_csr" in sparse[0], sparse
    argsort = [l for l in proc.stdout.splitlines() if "torch.argsort" in l and "test_msort" in l]
    assert argsort and "none: integer output (indices)" in argsort[0], argsort
    assert any("test_sum_meta" in l and "the meta device" in l for l in proc.stdout.splitlines())
    # Every module of the three frameworks declares its upstream tests; a module that does not (a user's own) is
    # listed as such.
    assert re.search(r"torch: (\d+) of \1 functions declare their upstream tests", proc.stdout), proc.stdout[:300]
    assert "(not declared yet" not in proc.stdout
    every = runner_cli("list", "--coverage")
    assert every.returncode == 0, every.stderr
    for fw in ("torch", "jax", "tensorflow"):
        assert re.search(rf"{fw}: (\d+) of \1 functions declare their upstream tests", every.stdout), fw


def test_a_module_without_upstream_tests_is_listed_as_not_declared(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "test_mine.py").write_text(
        "import pytest\n\npytestmark = pytest.mark.function('torch.mine')\n\n\n"
        "def test_mine(bench, device):\n    pass\n")
    proc = runner_cli("list", "--coverage", "--curated", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    mine = [l for l in proc.stdout.splitlines() if "torch.mine" in l]
    assert mine and "(not declared yet" in mine[0], proc.stdout[-2000:]
