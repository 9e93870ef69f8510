"""The census's one pytest module: the supervisor hands it to the worker (task "census") in place of the curated
modules. Its cases are generated at collection time from the framework's database (census/<framework>.py);
each runs through the plugin's fixtures (`bench`, `record_fields`), so records, timeouts, the memory limit,
child cleanup, interruption and classification are those of every other case.
"""
from __future__ import annotations

import importlib
from typing import Any, Dict

import pytest

from portability_harness import census, plugin
from portability_harness.errors import write_error
from portability_harness.protocol import Exit

_databases: Dict[str, Any] = {}


def database() -> Any:
    """The framework's census (its database imported once per worker)."""
    w = plugin._worker
    assert w is not None
    if "db" not in _databases:
        module = importlib.import_module(f"portability_harness.census.{w.cfg.framework}")
        _databases["db"] = module.Census(w.adapter, w.cfg.device)
    return _databases["db"]


def options() -> census.Options:
    cfg = plugin._worker.cfg  # type: ignore[union-attr]
    return census.Options(ops=list(cfg.census_ops), dtypes=list(cfg.census_dtypes), undeclared=cfg.census_undeclared)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "census_case" not in metafunc.fixturenames:
        return
    w = plugin._worker
    if w is None:  # collected outside a cell run: nothing to generate
        metafunc.parametrize("census_case", [])
        return
    try:
        db = database()
        cases = census.selected(db.cases(options()), w.cfg.device, options())
    except Exception as e:  # the database does not import (a missing test dependency): the cell cannot run
        first = census.first_line(str(e))
        w.fail(Exit.USAGE, f"could not read {w.cfg.framework}'s test database for the census: "
                           f"{type(e).__name__}: {first}")
        return
    if not cases:
        w.fail(Exit.USAGE, "the census selects no case: --ops and --dtypes match no op x dtype of the database"
                           + ("" if w.cfg.census_undeclared else " declared on this device (--undeclared adds the "
                                                                   "others)"))
        return
    try:
        census.write_manifest(w.cfg.out, cases)
    except OSError as e:
        w.fail(Exit.OUTPUT, str(write_error(census.manifest_path(w.cfg.out), e)))
    metafunc.parametrize("census_case", [
        pytest.param(c, id=c.id, marks=[pytest.mark.function(c.function),
                                        pytest.mark.case_id(c.id, module=f"{census.PREFIX}/{c.framework}/{c.op}")])
        for c in cases])


def test_census(census_case: census.Case, bench: Any, record_fields: Dict[str, Any]) -> None:
    w = plugin._worker
    assert w is not None
    db = database()
    record_fields.update(census_case.fields())
    try:
        samples = db.samples(census_case)
    except census.Rejected as e:
        record_fields.update(census.Tally().fields(), category_source="generator")
        pytest.skip(f"the generator cannot build inputs: {e}")
    except Exception as e:  # the database's own sample generator failed: the database's problem, not the op's
        record_fields.update(census.Tally().fields(), category_source="db")
        pytest.skip(f"the database's sample inputs could not be built: {census.describe(e)}")
    moved = next((s.moved_from_cpu for s in samples if s.moved_from_cpu), None)
    if moved:
        record_fields["samples_moved_from_cpu"] = moved
    tally, first, sample = census.run_samples(samples, bench, w.adapter.sync, db.reference(census_case))
    record_fields.update(tally.fields())
    if first is not None:
        rule = census.ruling(census_case.rules + (sample.rules if sample else []), tally.first_failure["stage"])
        if rule is not None:
            record_fields["db_ruling"] = census.rule_text(rule)
        raise first
    if tally.run == 0:
        if tally.rejected:
            record_fields["category_source"] = "generator"
            pytest.skip(f"every generated input was refused by the op's validation: {tally.first_rejection}")
        if tally.skipped:
            record_fields["category_source"] = "db"
            pytest.skip("the database says none of its samples may run here: "
                        + next(s.skip for s in samples if s.skip))
        record_fields["category_source"] = "db"
        pytest.skip("the database has no sample input for this op and dtype")
