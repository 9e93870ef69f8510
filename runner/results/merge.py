"""Merge the cells' JSONL files of one run into results/<run-id>/merged.json.

merged.json holds every cell the matrix planned, with its status (done, failed, not_run, excluded)
and reason, and for each repeat the header, footer and case records. Raw warm samples stay in the
cells' JSONL files (they can be a thousand numbers a case); the merged cases keep their statistics.
Host side; written atomically, so a reader never sees half a file.
"""
from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

from runner.results import record, store

MERGED = "merged.json"
_RAW = ("warm_samples_s",)


def merge(run_dir: Path, run_id: str, cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Write merged.json and return it. cells: the matrix's cell entries (image, framework, device,
    profile, status, reason, backend, files)."""
    merged = {"schema": record.SCHEMA, "run_id": run_id,
              "merged_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "cells": [_cell(run_dir, c) for c in cells]}
    write_json(run_dir / MERGED, merged)
    return merged


def _cell(run_dir: Path, cell: dict[str, Any]) -> dict[str, Any]:
    entry = {k: v for k, v in cell.items() if k != "files"}
    entry["runs"] = []
    for name in cell.get("files", []):
        path = run_dir / name
        if not path.exists():
            continue
        try:
            contents = store.read(str(path))
        except store.CorruptResults as e:
            entry["runs"].append({"file": name, "error": str(e)})
            continue
        entry["runs"].append({
            "file": name, "header": contents.header, "footer": contents.footer, "torn": contents.torn is not None,
            "cases": [{k: v for k, v in c.items() if k not in _RAW} for c in contents.cases],
        })
    return entry


def write_json(path: Path, data: Any) -> Path:
    return write_text(path, json.dumps(data, indent=1))


def write_text(path: Path, text: str) -> Path:
    """Atomically: a reader (or a crash) never sees half a file, and the old one stays until the new is whole."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path
