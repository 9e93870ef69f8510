"""`python -m portability_harness.environment`: this interpreter and every distribution of its environment, as one
JSON object, with a fingerprint of the list. The worker puts the list in every header; the host asks an existing
environment the same question before it runs a cell there, so both name an environment the same way."""
from __future__ import annotations

import hashlib
import json
import sys
from typing import Any, Dict, List, Tuple

HARNESS = "portability-harness"  # the harness itself is not part of the environment measured


def packages() -> List[Tuple[str, str]]:
    from importlib import metadata

    names: Dict[str, str] = {}
    for d in metadata.distributions():
        name = (d.metadata["Name"] or "").strip().lower().replace("_", "-")
        if name and name != HARNESS:
            names[name] = d.version
    return sorted(names.items())


def fingerprint(listed: List[Tuple[str, str]]) -> str:
    return hashlib.sha256("\n".join(f"{n}=={v}" for n, v in listed).encode()).hexdigest()[:16]


def facts() -> Dict[str, Any]:
    listed = packages()
    return {"python": list(sys.version_info[:3]), "executable": sys.executable,
            "packages": [f"{n}=={v}" for n, v in listed], "packages_fingerprint": fingerprint(listed)}


if __name__ == "__main__":
    print(json.dumps(facts()))
