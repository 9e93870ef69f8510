"""Read the installed framework's declared support and save it as a table.

    python -m portability_harness.declared FRAMEWORK --out DIR   # writes DIR/<framework>-<version>.json.gz

Prints the table's coverage (ops and op x dtype pairs per device kind). Run it inside an environment
that has the framework (and its test-database dependencies: expecttest and pyyaml for torch, absl-py
for jax).
"""
from __future__ import annotations

import argparse
import os
import sys

from . import read, save


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m portability_harness.declared")
    parser.add_argument("framework", choices=("tensorflow", "torch", "jax"))
    parser.add_argument("--out", required=True, help="folder for <framework>-<version>.json.gz")
    args = parser.parse_args(argv)
    table = read(args.framework)
    version = table["framework_version"].split("+", 1)[0]
    path = save(table, os.path.join(args.out, f"{args.framework}-{version}.json.gz"))
    print(f"{path}: {table['framework']} {table['framework_version']} (Python {table['python']})")
    for kind, info in table["devices"].items():
        cov = table["coverage"].get(kind, {"ops": 0, "pairs": 0})
        unknowable = len(table["unknowable"].get(kind, ()))
        print(f"  {kind:5} known={str(info['known']).lower():5} ops={cov['ops']:5} pairs={cov['pairs']:6}"
              f" unknowable={unknowable:4}  {info['note']}")
    print(f"  names={len(table['names'])} skips={len(table['skips'])} ops in table={len(table['ops'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
