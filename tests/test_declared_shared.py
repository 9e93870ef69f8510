"""A repeat reads the framework's declared-support table once: its first worker to meet a support failure reads it
from the framework (torch's OpInfo database) and saves it in the repeat's folder, and a worker that replaces a
crashed one loads it from there instead of importing the database again (7-9 s a worker on the 2-core machine;
torch-xla-cpu replaces its worker about 22 times a repeat). With the real torch and the real harness: support
failures (linalg.eigvals of a sparse tensor, which has no SparseCPU kernel) between crashes, each case recording, before it
fails, whether its worker has imported the OpInfo database and whether the repeat's table is saved."""
from __future__ import annotations

import textwrap

import pytest
from conftest import cases_of, config, harness

from portability_harness import run_order

pytestmark = pytest.mark.slow

CASES = '''
    import os
    import sys

    import pytest
    import torch

    pytestmark = pytest.mark.function("torch.linalg.eigvals")


    @pytest.mark.parametrize("n", range(6))
    def test_unsupported(bench, device, record_fields, n):
        record_fields["opinfo_imported"] = "torch.testing._internal.common_methods_invocations" in sys.modules
        record_fields["table_saved"] = os.path.exists(os.environ["PORTABILITY_HARNESS_DECLARED_TABLE"])
        bench(torch.linalg.eigvals, torch.eye(2, device=device).to_sparse())


    @pytest.mark.parametrize("n", range(3))
    def test_crash(bench, device, n):
        bench(lambda: os._exit(3))
'''


CATEGORY = "not_implemented"  # the table knows linalg_eig, for the dense layout


def test_a_replacement_worker_loads_the_table_its_repeat_read(venv_for, tmp_path):
    curated = tmp_path / "curated"
    (curated / "torch").mkdir(parents=True)
    (curated / "torch" / "test_support.py").write_text(textwrap.dedent(CASES))
    out = tmp_path / "torch-cpu.jsonl"
    code, events = harness(venv_for("torch-cpu"), config(out, "torch", curated=curated, quick=True))
    assert code == 0, events
    cases = {c["case_id"].split("::")[1]: c for c in cases_of(out)}
    order = run_order.spread(cases, lambda name: f"torch/test_support.py::{name}")
    # What each unsupported case must have seen, walking the run's order: a worker imports the database only where
    # no table was saved at its first support failure; a crash starts a new worker.
    saved = read_here = False
    replaced_and_loaded = 0
    for name in order:
        case = cases[name]
        if name.startswith("test_crash"):
            assert case["category"] == "crash", case
            read_here = False
            continue
        assert case["outcome"] == "failed" and case["category"] == CATEGORY, case  # the same answer every worker
        assert (case["table_saved"], case["opinfo_imported"]) == (saved, read_here), (name, order)
        replaced_and_loaded += saved and not read_here
        read_here = read_here or not saved
        saved = True
    assert replaced_and_loaded >= 2, order  # workers after a crash that met a support failure, with a table to load
