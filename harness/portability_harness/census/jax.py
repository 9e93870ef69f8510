"""JAX's census: the primitive test harnesses (jax._src.internal_test_util.test_harnesses, needs absl-py).

A harness is one call of a primitive on one input (a group per primitive); a case is a group and a dtype, its
samples the group's harnesses of that dtype, in name order, each with inputs drawn from a seed made of its
name. Both test modules build their dtype lists from the x64 setting when imported, so the census turns
jax_enable_x64 on before it imports them (the header's database says so): a float64 harness then runs in
float64, as JAX's own tests run it.

Declared: a case is declared on a device kind when the group has a lowering for that platform (or is no
primitive the lowering registry knows) and at least one of its harnesses has no enabled `jax_unimplemented`
limitation for that device and dtype ('gpu' limitations apply to cuda). Limitations are kept as `db_rules`;
a harness whose limitation says skip_run (invoking it crashes) is not run (counted as skipped by the
database); a failure a limitation covers is recorded with category_source "db". --undeclared adds the cases
whose every harness is limited on the cell's device.

Checks: on the CPU, lax_reference's NumPy function where lax's own tests pair the op with one
(lax_test_util.lax_ops: the record's op traced to its primitive, for the record's dtypes, with its tolerance
or JAX's per-dtype defaults), for harnesses that call the bare primitive on as many arrays as the record
takes; on an accelerator, the same harness on the CPU backend of the same process (the census asks
JAX_PLATFORMS for both; atol = rtol = 1e-3, 1e-2 for bfloat16), except for random and RNG primitives,
whose bits are platform-defined. The comparison is JAX's own JaxTestCase.assertAllClose.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from portability_harness.census import Case, Options, Sample, Unchecked, seed_of
from portability_harness.declared.dtypes import canonical

_HARNESS_DEVICE = {"cpu": "cpu", "cuda": "gpu", "tpu": "tpu"}
_PLATFORM = {"cpu": "cpu", "cuda": "cuda", "tpu": "tpu"}
# A harness whose parameters are only these calls the bare primitive on its arrays: lax_reference applies.
_PLAIN_PARAMS = {"prim", "dtype", "shape", "shapes"}
_COMPARE_TOL = {"bfloat16": 1e-2}
_COMPARE_DEFAULT = 1e-3


def _random(group: str) -> bool:
    return "random" in group or group.startswith("rng")


class Census:
    framework = "jax"

    def __init__(self, adapter: Any, device: str):
        import jax

        self.jax = jax
        self.adapter = adapter
        self.device = device
        # Before the test modules are imported: they build their dtype lists from it.
        jax.config.update("jax_enable_x64", True)
        from jax._src import test_util as jtu
        from jax._src.internal_test_util import test_harnesses

        self.jtu = jtu
        self.harnesses = list(test_harnesses.all_harnesses)
        self.tc = jtu.JaxTestCase()  # JAX's own comparison (assertAllClose), as its tests use it
        self.refs = _references(jax)
        self.cpu = None
        if device != "cpu":
            try:
                self.cpu = jax.devices("cpu")[0]
            except RuntimeError:  # no CPU backend in this process: nothing to compare with
                self.cpu = None

    def header(self) -> Dict[str, Any]:
        return {"jax_enable_x64": True}

    # --- cases ------------------------------------------------------------------------------------------

    def cases(self, options: Options) -> List[Case]:
        from portability_harness.declared.jax import lowered_platforms

        lowered = lowered_platforms()
        groups: Dict[Tuple[str, str], List[Any]] = {}
        for h in self.harnesses:
            dtype = canonical(h.dtype)
            if dtype is None or not options.wants_op(h.group_name):
                continue
            groups.setdefault((h.group_name, dtype), []).append(h)
        found = []
        kind = "tpu" if self.device == "xla-cpu" else self.device
        for (group, dtype), hs in sorted(groups.items()):
            hs.sort(key=lambda h: h.name)
            declared: Dict[str, Optional[bool]] = {}
            for k, platform in _PLATFORM.items():
                has_rule = group not in lowered or platform in lowered[group]
                declared[k] = has_rule and any(not _limits(h, _HARNESS_DEVICE[k]) for h in hs)
            rules = _dedup(r for h in hs for r in _limits(h, _HARNESS_DEVICE.get(kind, kind)))
            found.append(Case(framework="jax", op=group, variant="", dtype=dtype, declared=declared, rules=rules,
                              function=group, payload=hs))
        return found

    # --- samples ----------------------------------------------------------------------------------------

    def reference(self, case: Case) -> str:
        if self.device != "cpu":
            return "cpu" if self.cpu is not None and not _random(case.op) else "none"
        return "numpy" if (case.op, case.dtype) in self.refs else "none"

    def samples(self, case: Case) -> List[Sample]:
        import numpy as np

        kind = self.device
        found = []
        for index, h in enumerate(case.payload):
            rules = _limits(h, _HARNESS_DEVICE.get(kind, kind))
            skip = next((r["reason"] for r in rules if r.get("skip_run")), None)
            rng = np.random.RandomState(seed_of(f"{case.id}/{h.name}"))
            args = tuple(h.dyn_args_maker(rng)) if skip is None else ()
            found.append(self._sample(case, index, h, args, skip, rules))
        return found

    def _sample(self, case: Case, index: int, h: Any, args: tuple, skip: Optional[str],
                rules: List[Dict[str, Any]]) -> Sample:
        import numpy as np

        adapter = self.adapter
        check_kind = self.reference(case)

        def run(bench: Any) -> Any:
            if bench is not None:
                # Inputs on the device before the timed calls: a NumPy argument would time its host-to-device copy.
                return bench(h.dyn_fun, *(self.jax.device_put(a, adapter.handle) if isinstance(a, np.ndarray) else a
                                          for a in args))
            call = adapter.prepare(h.dyn_fun, args, {})
            return call()

        def check(out: Any) -> None:
            if check_kind == "numpy":
                ref, tol, nargs = self.refs[(case.op, case.dtype)]
                if not _plain(h, nargs):
                    raise Unchecked("this harness passes parameters the reference does not take")
                try:
                    expected = ref(*args)
                except Exception as e:
                    raise Unchecked(f"the reference could not run the sample: {type(e).__name__}")
                tolerance = tol or self.jtu.default_tolerance()
                self.tc.assertAllClose(out, expected, check_dtypes=True, atol=tolerance, rtol=tolerance)
            elif check_kind == "cpu":
                try:
                    with self.jax.default_device(self.cpu):
                        call = adapter.prepare(h.dyn_fun, args, {})
                        expected = call()
                except Exception as e:
                    raise Unchecked(f"the CPU could not run the sample: {type(e).__name__}")
                tolerance = _COMPARE_TOL.get(case.dtype, _COMPARE_DEFAULT)
                self.tc.assertAllClose(out, expected, check_dtypes=True, atol=tolerance, rtol=tolerance)

        return Sample(index=index, run=run, check=check, skip=skip, rules=rules)


def _limits(h: Any, device: str) -> List[Dict[str, Any]]:
    """The harness's enabled limitations on this device (its dtype), as rules."""
    return [{"what": "limitation", "reason": lim.description, "test": None, "skip_run": bool(getattr(lim, "skip_run", False)),
             "stages": ["call", "check"]}
            for lim in h.jax_unimplemented
            if lim.enabled and device in lim.devices and (not lim.dtypes or h.dtype in lim.dtypes)]


def _dedup(rules: Any) -> List[Dict[str, Any]]:
    seen, found = set(), []
    for r in rules:
        key = (r["reason"], r["skip_run"])
        if key not in seen:
            seen.add(key)
            found.append(r)
    return found


def _plain(h: Any, nargs: int) -> bool:
    """The harness calls the bare primitive on `nargs` arrays and nothing else."""
    from jax._src.internal_test_util.test_harnesses import RandArg

    return set(h.params) <= _PLAIN_PARAMS and len(h.arg_descriptors) == nargs and all(
        isinstance(a, RandArg) for a in h.arg_descriptors)


def _references(jax: Any) -> Dict[Tuple[str, str], Tuple[Any, Any, int]]:
    """(primitive, dtype) -> (NumPy reference, tolerance, number of arguments), from lax's own tests: each
    lax_ops record whose op lax_reference has, traced once to the primitive it binds."""
    import numpy as np
    from jax import lax
    from jax._src import lax_reference
    from jax._src.internal_test_util import lax_test_util

    refs: Dict[Tuple[str, str], Tuple[Any, Any, int]] = {}
    for record in lax_test_util.lax_ops():
        ref = getattr(lax_reference, record.op, None)
        fn = getattr(lax, record.op, None)
        if ref is None or fn is None or not record.dtypes:
            continue
        try:
            example = [np.ones((), dtype=record.dtypes[0])] * record.nargs
            eqns = jax.make_jaxpr(fn)(*example).jaxpr.eqns
        except Exception:  # an op that needs other arguments to trace: no reference pairing
            continue
        if len(eqns) != 1:
            continue
        prim = str(eqns[0].primitive)
        for dtype in record.dtypes:
            name = canonical(dtype)
            if name and (prim, name) not in refs:
                refs[(prim, name)] = (ref, record.tol, record.nargs)
    return refs
