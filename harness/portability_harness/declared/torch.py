"""PyTorch's declared support: the OpInfo database its own test suite runs on.

`torch.testing._internal.common_methods_invocations.op_db` lists, per operator (an OpInfo: a name and a
variant), the dtypes it is tested with per device type: `supported_dtypes('cpu')` and
`supported_dtypes('cuda')` (in 1.12 the attributes `dtypes` and `dtypesIfCUDA`). It needs `expecttest`
(both versions) and `pyyaml` (1.12, through torchgen). Ops are keyed by OpInfo name, plus '.' and the
variant's name where it has one (OpInfo.full_name in 2.x). An OpInfo that lists no dtype for a device
type is not declared there.

Device kinds: cpu and cuda as listed. tpu: OpInfo declares nothing for XLA devices; where torch_xla is installed
(the torch-xla-cpu image, a TPU VM), an OpInfo is declared on tpu, for no particular dtype, when its aten op has
a kernel for the XLA dispatch key or a composite one; elsewhere tpu is not known.

Some CUDA lists are computed at import from the GPU present (compute-capability flags such as
SM53OrLater, bf16 support, the CUDA version). They are found by reading the database twice in child
processes: once as installed here, once with every GPU-capability flag of
torch.testing._internal.common_cuda turned on (and the CUDA version reported as new) before the database
is imported. An OpInfo whose CUDA list differs between the two depends on the GPU: it is listed under
`unknowable.cuda`, and the table keeps the list as read here, with no GPU.

Names: torch.<name> where that resolves (torch.add, torch.nn.functional.conv2d, torch.linalg.svd), and
torch.Tensor.<name> (and <name>_) where the OpInfo has a method (in-place) variant; the same for each
alias. Skips: DecorateInfo entries whose decorator is unittest.skip, unittest.expectedFailure or one of
torch's skip* decorators, with their device type, dtypes and test.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unittest
import warnings
from typing import Any, Dict, List, Optional, Tuple

from .dtypes import canonical, ordered

SOURCE = ("PyTorch's OpInfo database (torch.testing._internal.common_methods_invocations.op_db): an op (OpInfo "
          "name[.variant]) is declared on cpu/cuda for the dtypes its OpInfo lists for that device type "
          "(supported_dtypes), i.e. the dtypes PyTorch's own test suite runs it with. CUDA lists computed from the "
          "GPU present are marked unknowable; tpu only where torch_xla is installed (devices.tpu.note). Skips "
          "and expected failures are the OpInfo's DecorateInfo entries.")

# common_cuda flags that describe the GPU (or the CUDA build) rather than the code.
_GPU_FLAG = re.compile(r"OrLater$|^PLATFORM_SUPPORTS_|^IS_SM|^TEST_CUDNN$|^TEST_CUSPARSE|^TEST_MAGMA$")


def read() -> Dict[str, Any]:
    import torch

    from . import new_table

    table = new_table("torch", torch.__version__, SOURCE)
    table["devices"] = {
        "cpu": {"known": True, "note": "OpInfo dtypes for device type cpu"},
        "cuda": {"known": True, "note": "OpInfo dtypes for device type cuda; lists computed from the GPU present "
                                        "(capability, bf16, CUDA version) are under unknowable.cuda"},
        "tpu": {"known": False, "note": "the OpInfo database declares nothing for XLA devices, and torch_xla "
                                       "is not installed here"},
    }
    op_db = _op_db()
    lists = _dtype_lists(op_db)
    for key, by_kind in lists.items():
        table["ops"][key] = {kind: dtypes for kind, dtypes in by_kind.items() if dtypes}
    xla = _xla_ops(torch, op_db)
    if xla is not None:
        declared_ops, unknowable = xla
        table["devices"]["tpu"] = {"known": True, "note": XLA_NOTE}
        for key in declared_ops:
            table["ops"].setdefault(key, {})["tpu"] = []  # an XLA lowering is not per dtype
        table["unknowable"]["tpu"] = sorted(unknowable)
    as_read = _child_cuda_lists(gpu_flags=False)
    gpu_on = _child_cuda_lists(gpu_flags=True)
    if as_read is None or gpu_on is None:
        # the probe failed: no CUDA list can be trusted to hold on another machine
        table["devices"]["cuda"] = {"known": False, "note": "the GPU-dependence probe failed; cuda lists not kept"}
    else:
        table["unknowable"]["cuda"] = sorted(k for k in set(as_read) | set(gpu_on) if as_read.get(k) != gpu_on.get(k))
    table["names"] = _names(torch, op_db)
    table["skips"] = _skips(op_db)
    return table


XLA_NOTE = ("torch_xla (the TPU's backend) is installed: an OpInfo is declared on tpu when its aten op has an XLA "
            "kernel registered (torch_xla's lowerings) or a composite one (written in other aten ops, which may have "
            "one), for no particular dtype: an XLA kernel is not registered per dtype; OpInfos with no aten op of "
            "their name (Python-level functions, method aliases) are unknowable there")


def _xla_ops(torch: Any, op_db: List[Any]) -> Optional[Tuple[List[str], List[str]]]:
    """The OpInfos torch_xla declares (their aten op has a kernel for the XLA dispatch key, or a composite one) and
    those it cannot tell about (no aten op of that name: a Python-level function, a method alias); None where
    torch_xla cannot be imported (a CPU or CUDA environment)."""
    try:
        import torch_xla  # noqa: F401  (importing it registers its kernels; no device is opened)
    except Exception:
        return None

    def aten(names: Any) -> set:
        return {r.split("::", 1)[1].split(".", 1)[0] for r in names if r.startswith("aten::")}

    registered = torch._C._dispatch_get_registrations_for_dispatch_key
    # Composite kernels (implicit or explicit autograd) are written in other aten ops and run wherever those do.
    found = set().union(*(aten(registered(k)) for k in ("XLA", "AutogradXLA", "CompositeImplicitAutograd",
                                                         "CompositeExplicitAutograd",
                                                         "CompositeExplicitAutogradNonFunctional")))
    every = aten(torch._C._dispatch_get_all_op_names())
    name = {_key(info): getattr(info, "aten_name", None) or info.name for info in op_db}
    return ([k for k, n in name.items() if n in found], [k for k, n in name.items() if n not in every])


def _op_db() -> List[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db
    return list(op_db)


def _key(info: Any) -> str:
    variant = getattr(info, "variant_test_name", "") or ""
    return info.name + ("." + variant if variant else "")


def _names_of(dtypes: Any) -> List[str]:
    return ordered(n for n in (canonical(d) for d in (dtypes or ())) if n)


def _dtype_lists(op_db: List[Any]) -> Dict[str, Dict[str, List[str]]]:
    return {_key(info): {kind: _names_of(info.supported_dtypes(kind)) for kind in ("cpu", "cuda")} for info in op_db}


def _child_cuda_lists(gpu_flags: bool) -> Optional[Dict[str, List[str]]]:
    """The cuda lists read by a fresh interpreter, optionally with the GPU-capability flags on: the flags are
    read when the database is imported, so each reading needs its own process."""
    args = [sys.executable, "-m", "portability_harness.declared.torch"] + (["--gpu-flags-on"] if gpu_flags else [])
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # never touch a real GPU while pretending
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, universal_newlines=True)
    if done.returncode != 0:
        sys.stderr.write(f"cuda-list probe (gpu flags {'on' if gpu_flags else 'off'}) failed:\n{done.stderr[-3000:]}\n")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def _turn_gpu_flags_on() -> List[str]:
    """Set every GPU-capability flag of common_cuda true before the database reads them."""
    from torch.testing._internal import common_cuda

    turned = []
    for name, value in list(vars(common_cuda).items()):
        if _GPU_FLAG.search(name) and (isinstance(value, bool) or type(value).__name__ == "LazyVal"):
            setattr(common_cuda, name, True)
            turned.append(name)
    if hasattr(common_cuda, "_get_torch_cuda_version"):
        common_cuda._get_torch_cuda_version = lambda: (99, 0)
        turned.append("_get_torch_cuda_version")
    return turned


# --- names and skips ------------------------------------------------------------------------------------

def _resolve(root: Any, dotted: str) -> Any:
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _names(torch: Any, op_db: List[Any]) -> Dict[str, List[str]]:
    names: Dict[str, List[str]] = {}

    def add(name: str, key: str) -> None:
        names.setdefault(name, [])
        if key not in names[name]:
            names[name].append(key)

    for info in op_db:
        key = _key(info)
        spellings = [(info.name, info.method_variant is not None, info.inplace_variant is not None)]
        spellings += [(a.name, a.method_variant is not None, a.inplace_variant is not None)
                      for a in (getattr(info, "aliases", None) or ())]
        for name, method, inplace in spellings:
            if _resolve(torch, name) is not None:
                add(f"torch.{name}", key)
            if method and "." not in name:
                add(f"torch.Tensor.{name}", key)
            if inplace and "." not in name:
                add(f"torch.Tensor.{name}_", key)
    return names


def decorate_infos(info: Any) -> List[Any]:
    """An OpInfo's DecorateInfos (from its decorators and its skips), each once."""
    seen, found = set(), []
    for d in list(getattr(info, "decorators", None) or ()) + list(getattr(info, "skips", None) or ()):
        if type(d).__name__ == "DecorateInfo" and id(d) not in seen:
            seen.add(id(d))
            found.append(d)
    return found


def _what(decorator: Any) -> Optional[tuple]:
    """('expected_failure'|'skip', reason) for the decorators that declare a test should not pass."""
    if decorator is unittest.expectedFailure:
        return "expected_failure", ""
    qualname = getattr(decorator, "__qualname__", "") or ""
    if qualname.startswith("skip.<locals>"):  # unittest.skip(reason): the reason is in its closure
        reasons = [c.cell_contents for c in (decorator.__closure__ or ()) if isinstance(c.cell_contents, str)]
        return "skip", reasons[0] if reasons else ""
    name = getattr(decorator, "__name__", None) or type(decorator).__name__
    if name.startswith("skip"):
        return "skip", name
    return None


def _skips(op_db: List[Any]) -> List[Dict[str, Any]]:
    skips = []
    for info in op_db:
        for di in decorate_infos(info):
            for decorator in di.decorators:
                what = _what(decorator)
                if what is None:
                    continue
                try:
                    active = bool(di.active_if)
                except Exception:  # a condition that needs a device this machine lacks
                    active = None
                test = ".".join(p for p in (di.cls_name, di.test_name) if p)
                skips.append({"op": _key(info), "kind": di.device_type, "what": what[0], "reason": what[1],
                              "dtypes": _names_of(di.dtypes) if di.dtypes else None, "test": test or None,
                              "active_here": active})
    return skips


def _main(argv: List[str]) -> int:
    """Child process: print the cuda lists as one JSON line (see _child_cuda_lists)."""
    if "--gpu-flags-on" in argv:
        _turn_gpu_flags_on()
    lists = {key: by_kind["cuda"] for key, by_kind in _dtype_lists(_op_db()).items()}
    sys.stdout.write("\n" + json.dumps(lists, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
