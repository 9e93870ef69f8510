"""benchmarks/estimate_accuracy.py: what the reference runs alone would have expected of a run already made."""
from __future__ import annotations

import re
import subprocess
import sys
import tarfile

from conftest import ROOT

from runner.archive import ARCHIVE

SCRIPT = ROOT / "benchmarks" / "estimate_accuracy.py"
MATRIX = ROOT / "results" / "reference" / "matrix-cpu-2026-11-27" / ARCHIVE


def _accuracy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_a_reference_run_asked_about_itself_is_expected_at_its_own_walls(tmp_path):
    """The newest reference run of each setup is the run itself: scaled by its own calibration, each repeat's
    expectation is its own wall (ratio 1.00) and every cell is within 25 %; a wrong key, scale or start-up would
    move them."""
    with tarfile.open(MATRIX) as tar:
        names = [m.name for m in tar if m.name.endswith(".jsonl")]
        tar.extractall(tmp_path, members=[tar.getmember(n) for n in names])
    references = tmp_path / "reference" / "same"
    references.mkdir(parents=True)
    (references / ARCHIVE).symlink_to(MATRIX)
    done = _accuracy(str(tmp_path), "--references", str(tmp_path / "reference"))
    assert done.returncode == 0, done.stderr
    rows = re.findall(r"^(\S+\.jsonl)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+.*\breference$", done.stdout, re.M)
    assert sorted(r[0] for r in rows) == sorted(names), done.stdout
    assert all(r[3] == "1.00" for r in rows), done.stdout
    cells = len({re.sub(r"-r\d+$", "", n[:-len(".jsonl")]) for n in names})
    assert f"{cells} of {cells} cells within 25%" in done.stdout, done.stdout


def test_a_folder_without_a_finished_repeat_is_one_line_and_an_error(tmp_path):
    (tmp_path / "torn.jsonl").write_text('{"record": "header"}\n')
    done = _accuracy(str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: {tmp_path} holds no finished repeat (*.jsonl with a footer)", done.stderr
