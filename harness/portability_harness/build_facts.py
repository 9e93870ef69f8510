"""`python -m portability_harness.build_facts FRAMEWORK [DEVICE]`: what this environment's build of the framework
supports (Adapter.build: CUDA runtime, cuDNN, compiled arch list), as one JSON object on stdout.

Its own process because reading it imports the framework, which the supervisor never does; the host's dry run asks
the same question of a venv it has already built.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional

from portability_harness.frameworks import adapter_for

PROBE_S = 600.0  # an import of TensorFlow on a cold disk takes minutes on a small machine


def probe(framework: str, device: str, python: str = sys.executable,
          env: Optional[Dict[str, str]] = None) -> Optional[Dict[str, Any]]:
    """The build facts read by `python` (default: this interpreter, in this environment), or None if they could not
    be read (the run then goes on, and a framework that cannot start says why in its own error)."""
    try:
        out = subprocess.run([python, "-m", "portability_harness.build_facts", framework, device],
                             capture_output=True, text=True, timeout=PROBE_S, env=env)
        facts = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return facts if isinstance(facts, dict) else None


def main(argv: List[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    adapter = adapter_for(argv[0])
    os.environ.update(adapter.environment(argv[1] if len(argv) > 1 else "cpu", "steady"))
    print(json.dumps(adapter.build(), default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def cell_reason(framework: str, device: str, device_facts: Dict[str, Any]) -> Optional[str]:
    """Why this interpreter's framework build cannot run on the cell's GPU (`device_facts`, the host's reading of
    it), or None: the build is asked in a process of its own (build_facts)."""
    if device != "cuda" or not device_facts:
        return None
    from portability_harness.compat import cuda_reason

    build = probe(framework, device)
    return cuda_reason(build.get("label", framework), build, device_facts) if build else None
