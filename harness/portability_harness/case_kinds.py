"""What kind of call a case makes, as its record says: its `pass` (forward or backward) and its input's `layout`.

Both are known before the case runs, from what the test asks for (docs/curated-cases.md):
- `pass`: backward where the test takes the `backward` fixture (backward.py), forward otherwise;
- `layout`: the case's `pytest.mark.layout(name)` (on the test, or on one `pytest.param` of its parametrization);
  without one, `complex` where a parameter named like `dtype` holds a complex dtype, else `dense`.
Standard library only: coverage.py reads the same markers from a module's text on the host.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

PASSES = ("forward", "backward")
LAYOUTS = ("dense", "sparse_coo", "sparse_csr", "quantized", "pinned", "channels_last", "complex")
BACKWARD_FIXTURE = "backward"
LAYOUT_MARKER = "layout"
HOST_OUTPUT = "host_output"
MARKERS = (f"{LAYOUT_MARKER}(name): the case's input layout or kind, one of {', '.join(LAYOUTS)}",
           f"{HOST_OUTPUT}(why): the call's output is meant to be on the host (a copy to it, the gradient of a host "
           "input): an output there is no fallback off the device")


def fields(item: Any) -> Dict[str, str]:
    """The record's `pass` and `layout` of a collected pytest item."""
    marker = item.get_closest_marker(LAYOUT_MARKER)
    if marker is not None:
        layout = str(marker.args[0]) if marker.args else str(marker.kwargs.get("name"))
    else:
        params = getattr(getattr(item, "callspec", None), "params", {})
        complex_dtype = any("dtype" in name and "complex" in str(value) for name, value in params.items())
        layout = "complex" if complex_dtype else "dense"
    return {"pass": "backward" if BACKWARD_FIXTURE in item.fixturenames else "forward", "layout": layout}


def problem(kinds: Dict[str, str]) -> Optional[str]:
    """Why a case's kinds cannot be recorded (a layout name outside LAYOUTS), or None."""
    if kinds["layout"] not in LAYOUTS:
        return (f"unknown layout {kinds['layout']!r} in pytest.mark.layout; use one of {', '.join(LAYOUTS)} "
                "(docs/curated-cases.md)")
    return None


def expected_on_host(fallback: Optional[Dict[str, Any]], host_output: bool) -> Optional[Dict[str, Any]]:
    """An adapter's fallback less the host outputs a `host_output` case means to make (outputs on another device,
    and ops off the device or the compiler, stay); None where nothing else is left."""
    if not fallback or not host_output:
        return fallback
    rest = dict(fallback, devices=[d for d in fallback.get("devices", []) if "cpu" not in d.lower()])
    return {k: v for k, v in rest.items() if v} or None
