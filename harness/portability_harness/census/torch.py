"""PyTorch's census: the OpInfo database (op_db), one case per OpInfo (name and variant) and dtype.

Cases: every OpInfo x dtype that its `supported_dtypes` lists for the cell's device type (cpu or cuda; on an
XLA device, which OpInfo declares nothing for, the union of both); with --undeclared also the other dtypes
PyTorch has. Samples: `sample_inputs(device, dtype)` under a seed made of the case id, drawn on the cell's own
device as PyTorch's tests draw them (test_compare_cpu; torch_xla's test_reference_eager): a sample function gives
each device the arguments its tests give there (tensor_split's index tensor stays on the CPU, lstsq gets only the
drivers CUDA has, as_strided's partial view keeps its storage offset). Inputs drawn with a CPU generator and
moved would be arguments PyTorch never passes on that device, and their failures the case's, not the op's.

Checks, as PyTorch's own test suite makes them:
- on the CPU, the OpInfo's NumPy reference `ref` where its tests compare sample inputs with it:
  test_numpy_ref's ops (not ufuncs, reductions or spectral ops, which PyTorch checks with inputs of their
  own) and dtypes (float64, int64, complex128; exact dtype except int64) and, for elementwise ufuncs
  (Unary/BinaryUfuncInfo), every dtype with test_reference_numerics' tolerances and the NumPy keyword
  arguments of `sample_kwargs`; the OpInfo's toleranceOverride / precisionOverride for those tests apply;
- on an accelerator, the same sample moved to the CPU, as test_compare_cpu does (atol = rtol = 1e-3, each
  result through the sample's output_process_fn_grad), except where the database skips test_compare_cpu
  for the op (random ops: "output is non-deterministic").
The comparison is PyTorch's own TestCase.assertEqual. Everything else runs unchecked (it must not raise).

The database's declarations that apply to a case (DecorateInfo skips and expected failures of the tests
that call the op forward, its onlyCUDA / onlyCPU restrictions) are kept as `db_rules`; a failure they cover
is recorded with category_source "db". An op whose name ends in "_" mutates its input: its timed call gets
fresh copies of the inputs before every call (bench.with_setup), and its reference sees the inputs as they
were before the call (so does an in_place variant).
"""
from __future__ import annotations

import unittest
import warnings
from typing import Any, Dict, List, Optional, Tuple

from portability_harness.census import Case, Options, Sample, Unchecked, seed_of
from portability_harness.declared.dtypes import canonical, ordered
from portability_harness.declared.torch import decorate_infos

NUMPY_REF_DTYPES = ("float64", "int64", "complex128")  # test_numpy_ref's allowed dtypes
# Tests that run the op forward on its samples: their skips and expected failures rule a failing call out.
CALL_TESTS = ("test_variant_consistency_eager", "test_noncontiguous_samples", "test_dtypes", "test_numpy_ref",
              "test_compare_cpu", "test_reference_numerics_normal", "test_python_ref")
# The reference tests whose inputs are like sample_inputs' (the ufuncs' _small, _large and _extremal variants
# draw inputs of their own: their skips and tolerances do not speak for these samples).
REF_TESTS = ("test_numpy_ref", "test_reference_numerics_normal")
COMPARE_TESTS = ("test_compare_cpu",)
# Every dtype PyTorch has tensors of (the universe --undeclared draws from).
ALL_DTYPES = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float8_e4m3fn",
              "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float16", "bfloat16", "float32", "float64",
              "complex32", "complex64", "complex128")
# test_reference_numerics' tolerances for low-precision dtypes (atol, rtol); others: assertEqual's defaults.
_UFUNC_TOL = {"uint8": (1e-2, 1e-3), "int8": (1e-2, 1e-3), "bool": (1e-2, 1e-3), "bfloat16": (1e-5, 16e-3),
              "float16": (1e-3, 1.2e-3), "complex32": (1e-3, 1.2e-3)}  # complex32: a pair of float16
_COMPARE_TOL = (1e-3, 1e-3)  # test_compare_cpu's


def _dtype_map(torch: Any) -> Dict[str, Any]:
    """Canonical name -> torch dtype, for the dtypes this torch has (complex32 is torch.chalf)."""
    found = {}
    for name in ALL_DTYPES:
        dtype = getattr(torch, {"complex32": "chalf"}.get(name, name), None)
        if dtype is not None:
            found[name] = dtype
    return found


class Census:
    framework = "torch"

    def __init__(self, adapter: Any, device: str):
        import torch

        self.torch = torch
        self.adapter = adapter
        self.device = device
        self.db_kind = {"cpu": "cpu", "cuda": "cuda"}.get(device)  # None: OpInfo declares nothing for it
        self.dtypes = _dtype_map(torch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from torch.testing._internal.common_methods_invocations import op_db
            from torch.testing._internal.common_utils import TestCase
        self.op_db = list(op_db)
        self.tc = TestCase()  # PyTorch's own comparison (assertEqual), as its tests use it

    # --- cases ------------------------------------------------------------------------------------------

    def cases(self, options: Options) -> List[Case]:
        found = []
        for info in self.op_db:
            variant = getattr(info, "variant_test_name", "") or ""
            if not options.wants_op(info.name, variant):
                continue
            lists = {kind: set(n for n in (canonical(d) for d in info.supported_dtypes(kind)) if n)
                     for kind in ("cpu", "cuda")}
            here = lists[self.db_kind] if self.db_kind else lists["cpu"] | lists["cuda"]
            names = set(ALL_DTYPES) if options.undeclared else here
            for dtype in ordered(n for n in names if n in self.dtypes):
                declared = {"cpu": dtype in lists["cpu"], "cuda": dtype in lists["cuda"], "tpu": None}
                found.append(Case(framework="torch", op=info.name, variant=variant, dtype=dtype, declared=declared,
                                  rules=self._rules(info, dtype), function=info.name + ("." + variant if variant else ""),
                                  payload=info))
        return found

    def _rules(self, info: Any, dtype: str) -> List[Dict[str, Any]]:
        """The OpInfo's declarations that rule this op x dtype out on the cell's device, with the stages of
        the census they speak for."""
        kind = self.db_kind or self.device
        torch_dtype = self.dtypes[dtype]
        rules: List[Dict[str, Any]] = []
        for decorator in getattr(info, "decorators", None) or ():
            if type(decorator).__name__ != "DecorateInfo":
                rule = _plain(decorator, kind)
                if rule:
                    rules.append(dict(rule, test=None, stages=["call", "check"]))
        for di in decorate_infos(info):
            if di.device_type not in (None, kind) or (di.dtypes is not None and torch_dtype not in di.dtypes):
                continue
            if not callable(di.active_if):  # a callable condition depends on a test's parameters: it may apply
                try:
                    if not bool(di.active_if):
                        continue
                except Exception:  # a condition that needs a device this machine lacks
                    continue
            stages = _stages(di.test_name)
            if not stages:
                continue
            for decorator in di.decorators:
                rule = _plain(decorator, kind)
                if rule:
                    test = ".".join(p for p in (di.cls_name, di.test_name) if p) or None
                    rules.append(dict(rule, test=test, stages=stages))
        return rules

    # --- samples ----------------------------------------------------------------------------------------

    def reference(self, case: Case) -> str:
        if self.device != "cpu":
            return "none" if self._compare_skipped(case) else "cpu"
        return "numpy" if self._ref_applies(case) else "none"

    def _ref_applies(self, case: Case) -> bool:
        """Where PyTorch's own tests compare the op with its `ref` on sample inputs: test_numpy_ref (not for
        ufuncs, reductions and spectral ops, which its suite checks with inputs of their own) in float64, int64
        and complex128, and the ufuncs' test_reference_numerics in every dtype."""
        info = case.payload
        if getattr(info, "ref", None) is None:
            return False
        if _is_ufunc(info):
            return True
        if _is_a(info, ("ReductionOpInfo", "SpectralFuncInfo")):
            return False
        return case.dtype in NUMPY_REF_DTYPES

    def _compare_skipped(self, case: Case) -> bool:
        return any(r["what"] in ("skip", "expected_failure") and r.get("test", "") and
                   r["test"].endswith(COMPARE_TESTS) for r in case.rules) or any(
            _compare_skip(di) for di in decorate_infos(case.payload))

    def samples(self, case: Case) -> List[Sample]:
        torch = self.torch
        info = case.payload
        dtype = self.dtypes[case.dtype]
        torch.manual_seed(seed_of(case.id))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # (sample_inputs also seeds each sample itself, from the test's name: the inputs are the same in
            # every run either way)
            moved_because = None
            try:
                drawn = list(info.sample_inputs(self._sample_device(), dtype, requires_grad=False))
            except Exception as e:
                if self.device == "cpu":
                    raise
                # The generator's own calls failed on the device (XLA cannot run one of them): the CPU's samples,
                # moved, still measure the op, and the record says they were drawn so (samples_moved_from_cpu).
                moved_because = f"the device's sample generator failed: {type(e).__name__}: {e}"[:300]
                torch.manual_seed(seed_of(case.id))
                drawn = [_moved(torch, s, self.adapter.handle)
                         for s in info.sample_inputs("cpu", dtype, requires_grad=False)]
        # resize_, zero_ (a trailing underscore, not a dunder) and in_place variants write into their input
        mutates = info.name.endswith("_") and not info.name.endswith("__") or case.variant in ("in_place", "inplace")
        check_kind = self.reference(case)
        tolerance = self._tolerance(case, check_kind)
        samples = []
        for index, sample in enumerate(drawn):
            samples.append(self._sample(case, index, sample, mutates, check_kind, tolerance))
            samples[-1].moved_from_cpu = moved_because
        return samples

    def _sample_device(self) -> str:
        """The device string the database draws samples for: the cell's own ("cuda:0", "xla:0")."""
        return "cpu" if self.device == "cpu" else str(self.adapter.handle)

    def _sample(self, case: Case, index: int, pristine: Any, mutates: bool, check_kind: str,
                tolerance: Tuple[Optional[float], Optional[float]]) -> Sample:
        torch = self.torch
        info = case.payload
        # The CPU's copy of the device's sample, for the accelerator's comparison (test_compare_cpu's to_cpu).
        cpu_sample = pristine if self.device == "cpu" else _moved(torch, pristine, "cpu")
        # What the reference sees: the inputs as they were before the op ran (an in-place op changes them).
        before = _copied(torch, cpu_sample) if check_kind != "none" else None
        held = [pristine]

        def call(sample: Any) -> Any:
            return info(sample.input, *sample.args, **sample.kwargs)

        def run(bench: Any) -> Any:
            if bench is None:
                return call(_copied(torch, pristine) if mutates else pristine)
            if mutates:
                def setup() -> None:
                    held[0] = _copied(torch, pristine)
                return bench.with_setup(setup, lambda: call(held[0]))
            return bench(call, pristine)

        def check(out: Any) -> None:
            if check_kind == "numpy":
                self._check_numpy(case, before, out, tolerance)
            elif check_kind == "cpu":
                try:
                    expected = call(before)
                except Exception as e:
                    raise Unchecked(f"the CPU could not run the sample: {type(e).__name__}")
                atol, rtol = tolerance
                self.tc.assertEqual(cpu_sample.output_process_fn_grad(out),
                                    cpu_sample.output_process_fn_grad(expected), atol=atol, rtol=rtol,
                                    exact_device=False)

        return Sample(index=index, run=run, check=check)

    def _tolerance(self, case: Case, check_kind: str) -> Tuple[Optional[float], Optional[float]]:
        """(atol, rtol) of the comparison: the database's override for its reference (or compare) tests,
        else the test's own default (None, None: assertEqual's per-dtype defaults)."""
        tests = COMPARE_TESTS if check_kind == "cpu" else REF_TESTS
        override = _override(case.payload, self.dtypes[case.dtype], tests, self.db_kind or self.device)
        if check_kind == "numpy" and _is_ufunc(case.payload) and case.dtype in _UFUNC_TOL:
            # test_reference_numerics passes these itself; an override (TestCase's precision and rel_tol) can
            # only widen them, as assertEqual takes the larger of each.
            atol, rtol = _UFUNC_TOL[case.dtype]
            return (max(atol, override[0]), max(rtol, override[1])) if override else (atol, rtol)
        if override is not None:
            return override
        if check_kind == "cpu":
            return _COMPARE_TOL
        return None, None

    def _check_numpy(self, case: Case, before: Any, out: Any, tolerance: Tuple[Optional[float], Optional[float]]
                     ) -> None:
        info = case.payload
        numpy_sample = before.numpy()
        kwargs = numpy_sample.kwargs
        if _is_ufunc(info) and hasattr(info, "sample_kwargs"):
            # test_reference_numerics calls the op with sample_kwargs' torch keywords and the reference with
            # its NumPy ones; a sample drawn with other keywords (add's alpha) keeps its own.
            torch_kwargs, numpy_kwargs = info.sample_kwargs("cpu", self.dtypes[case.dtype], before.input)
            if _same_keywords(self.torch, before.kwargs, torch_kwargs):
                kwargs = numpy_kwargs
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = info.ref(numpy_sample.input, *numpy_sample.args, **kwargs)
        except Exception as e:  # a reference that cannot take this sample (or needs SciPy) checks nothing
            raise Unchecked(f"the reference could not run the sample: {type(e).__name__}: {e}")
        atol, rtol = tolerance
        exact_dtype = case.dtype in NUMPY_REF_DTYPES and case.dtype != "int64" and not _is_ufunc(info)
        self.tc.assertEqual(out, expected, atol=atol, rtol=rtol, exact_device=False, exact_dtype=exact_dtype)


# --- the database's declarations -------------------------------------------------------------------------------

def _stages(test_name: Optional[str]) -> List[str]:
    """Which census stages a DecorateInfo's test speaks for: every one when it names no test."""
    if test_name is None:
        return ["call", "check"]
    stages = []
    if test_name in CALL_TESTS:
        stages.append("call")
    if test_name in REF_TESTS or test_name in COMPARE_TESTS:
        stages.append("check")
    return stages


def _plain(decorator: Any, kind: str) -> Optional[Dict[str, Any]]:
    """A decorator that says a test must not pass (or run) on this device kind, as a rule; None otherwise."""
    name = getattr(decorator, "__name__", None) or type(decorator).__name__
    only = {"onlyCUDA": ("cuda",), "onlyCPU": ("cpu",), "onlyNativeDeviceTypes": ("cpu", "cuda", "meta")}
    if name in only:
        return None if kind in only[name] else {"what": "only " + "/".join(only[name]), "reason": name}
    if decorator is unittest.expectedFailure:
        return {"what": "expected_failure", "reason": ""}
    if type(decorator).__name__ == "expectedFailure" and hasattr(decorator, "device_type"):
        return {"what": "expected_failure", "reason": ""} if decorator.device_type in (None, kind) else None
    if type(decorator).__name__ in ("skipIf", "skipCPUIf", "skipCUDAIf"):
        applies = decorator.device_type in (None, kind) or (not isinstance(decorator.device_type, str)
                                                           and kind in (decorator.device_type or ()))
        return {"what": "skip", "reason": str(decorator.reason)} if applies and decorator.dep is True else None
    qualname = getattr(decorator, "__qualname__", "") or ""
    if qualname.startswith("skip.<locals>"):  # unittest.skip(reason): the reason is in its closure
        reasons = [c.cell_contents for c in (decorator.__closure__ or ()) if isinstance(c.cell_contents, str)]
        return {"what": "skip", "reason": reasons[0] if reasons else ""}
    return None


def _compare_skip(di: Any) -> bool:
    """A DecorateInfo that skips test_compare_cpu outright (on every device and dtype)."""
    return di.test_name in COMPARE_TESTS and di.device_type is None and di.dtypes is None and any(
        (getattr(d, "__qualname__", "") or "").startswith("skip.<locals>") for d in di.decorators)


def _override(info: Any, dtype: Any, tests: Tuple[str, ...], kind: str) -> Optional[Tuple[float, float]]:
    """The OpInfo's toleranceOverride (or precisionOverride) for these tests and this dtype: (atol, rtol)."""
    found: Optional[Tuple[float, float]] = None
    for di in decorate_infos(info):
        if di.device_type not in (None, kind) or (di.test_name is not None and di.test_name not in tests):
            continue
        for decorator in di.decorators:
            name = type(decorator).__name__
            table = getattr(decorator, "d", None)
            if name not in ("toleranceOverride", "precisionOverride") or not isinstance(table, dict) or dtype not in table:
                continue
            value = table[dtype]
            atol, rtol = (value.atol, value.rtol) if name == "toleranceOverride" else (float(value), 0.0)
            found = (max(atol, found[0]), max(rtol, found[1])) if found else (atol, rtol)
    return found


def _same_keywords(torch: Any, given: Dict[str, Any], expected: Dict[str, Any]) -> bool:
    """Whether a sample's keywords are sample_kwargs' torch keywords (tensors compared by identity: `==` on a
    tensor is elementwise)."""
    if set(given) != set(expected):
        return False
    return all(given[k] is expected[k] or not isinstance(given[k], torch.Tensor)
               and not isinstance(expected[k], torch.Tensor) and given[k] == expected[k] for k in given)


def _is_a(info: Any, kinds: Tuple[str, ...]) -> bool:
    return any(cls.__name__ in kinds for cls in type(info).__mro__)


def _is_ufunc(info: Any) -> bool:
    return _is_a(info, ("UnaryUfuncInfo", "BinaryUfuncInfo"))


# --- samples --------------------------------------------------------------------------------------------------

def _moved(torch: Any, sample: Any, device: Any) -> Any:
    """The sample on another device (the CPU's copy of a device's sample): its tensors moved, and a factory op's own
    `device` argument pointed there too, so that what it creates is created there."""
    moved = sample.transform(lambda t: t.to(device) if isinstance(t, torch.Tensor) else t)
    if "device" in moved.kwargs:
        moved.kwargs["device"] = device
    return moved


def _copied(torch: Any, sample: Any) -> Any:
    return sample.transform(lambda t: t.clone() if isinstance(t, torch.Tensor) else t)
