"""A new user measures a function of their own, following the user guide's "Measure your own functions"
(docs/own-functions.md): `runner new` writes a module into a team's own --curated folder, then `runner list`,
`runner bench --functions`, `runner report`. Real harness runs, nothing stubbed."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, cases_of, config, harness

from runner import scaffold
from runner.errors import UserError

ELEMENTWISE = {"jax": ("jax-cpu", "jax.nn.softmax"), "torch": ("torch-cpu", "torch.nn.functional.softmax"),
               "tensorflow": ("tf-cpu", "tf.nn.softmax")}


def cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="250"))


def section(md: str, title: str) -> str:
    start = md.index(f"## {title}\n")
    end = md.find("\n## ", start + 1)
    return md[start:end if end > 0 else len(md)]


@pytest.mark.slow
def test_a_new_user_measures_jax_nn_softmax(venv_for, tmp_path):
    venv_for("jax-cpu")
    team = tmp_path / "team-curated"  # a team's own folder: <folder>/<framework>/test_*.py
    team.mkdir()
    new = cli("new", "--framework", "jax", "jax.nn.softmax", "--curated", str(team))
    assert new.returncode == 0, new.stderr
    module = team / "jax" / "test_softmax.py"
    assert f"wrote {module}" in new.stdout
    again = cli("new", "--framework", "jax", "jax.nn.softmax", "--curated", str(team))
    assert again.returncode != 0 and "already has a module" in again.stderr and "Traceback" not in again.stderr
    assert 'pytestmark = pytest.mark.function("jax.nn.softmax")\n' in module.read_text()

    listed = cli("list", "--curated", str(team))
    assert listed.returncode == 0, listed.stderr
    row = next(l for l in listed.stdout.splitlines() if "jax.nn.softmax" in l)
    assert "jax/test_softmax.py" in row and not listed.stderr.strip()

    out = tmp_path / "run"
    bench = cli("bench", "--image", "jax-cpu", "--curated", str(team), "--functions", "jax.nn.softmax", "--quick",
                "--backend", "local", "--out", str(out))
    assert bench.returncode == 0, bench.stderr[-2000:]
    (results,) = out.glob("*.jsonl")
    cases = cases_of(results)
    assert len(cases) == 3 and {c["function"] for c in cases} == {"jax.nn.softmax"}
    assert all(c["outcome"] == "passed" and c["warm_samples_s"] for c in cases), cases
    header = json.loads(results.read_text().splitlines()[0])
    assert header["catalog"] == {"jax.nn.softmax": {"decile": None, "top20": False, "paper_label": None}}

    report = cli("report", str(out))
    assert report.returncode == 0, report.stderr
    md = (out / "report.md").read_text()
    assert "| jax | cpu | " in section(md, "Portability")
    for title in ("Most used functions", "Failure by usage decile"):
        text = section(md, title)
        assert "covers the study's sample only" in text, title
        assert "1 function of these records is outside it and counted in Portability only: jax.nn.softmax" in text
        assert "No function of the study's sample ran" in text
    assert "schema 1" not in md and "No usage deciles" not in md


@pytest.mark.slow
@pytest.mark.parametrize("framework", sorted(ELEMENTWISE))
def test_the_scaffold_passes_as_written_for_an_elementwise_function(framework, venv_for, tmp_path):
    image, name = ELEMENTWISE[framework]
    env = venv_for(image)
    (tmp_path / "curated").mkdir()
    scaffold.write_module(tmp_path / "curated", framework, name)
    out = tmp_path / f"{framework}.jsonl"
    rc, events = harness(env, config(out, framework, curated=tmp_path / "curated", quick=True, timeout_s=300))
    assert rc == 0, events
    cases = cases_of(out)
    assert len(cases) == 3 and all(c["outcome"] == "passed" for c in cases), [(c["case_id"], c["message"])
                                                                                for c in cases]


def test_the_scaffold_never_overwrites_and_names_what_it_refuses(tmp_path):
    (tmp_path / "jax").mkdir()
    first = scaffold.write_module(tmp_path, "jax", "jax.nn.softmax")
    before = first.read_text()
    with pytest.raises(UserError, match=r"jax.nn.softmax already has a module: .*test_softmax.py; edit that one"):
        scaffold.write_module(tmp_path, "jax", "jax.nn.softmax")
    assert first.read_text() == before
    # Another function with the same last name gets a longer file name rather than the taken one.
    second = scaffold.write_module(tmp_path, "jax", "jax.scipy.special.softmax")
    assert second.name == "test_special_softmax.py" and first.read_text() == before
    for framework, name, words in (("jax", "torch.add", "not a jax function"), ("mxnet", "mxnet.nd.add", "unknown"),
                                   ("tensorflow", "softmax", "full dotted name")):
        with pytest.raises(UserError, match=words):
            scaffold.write_module(tmp_path, framework, name)
    with pytest.raises(UserError, match="is not a folder"):
        scaffold.write_module(tmp_path / "nowhere", "jax", "jax.nn.relu")
    # Class names become snake case; TensorFlow's names keep their tf alias.
    path = scaffold.write_module(tmp_path, "tensorflow", "tf.keras.layers.LayerNormalization")
    assert path.name == "test_layer_normalization.py" and "import tensorflow as tf\n" in path.read_text()


def test_a_module_without_its_marker_is_listed_with_the_fix(tmp_path):
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "test_softmax.py").write_text("import jax\n\n\ndef test_softmax(bench, device):\n    pass\n")
    proc = cli("list", "--curated", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "<no function marker: jax/test_softmax.py>" in proc.stdout
    assert "jax/test_softmax.py: cannot be read: no function marker; add pytestmark = pytest.mark.function(" in \
        " ".join(proc.stderr.split())


@pytest.mark.slow
def test_a_module_of_yours_that_does_not_import_is_one_failed_case_with_its_error(venv_for, tmp_path):
    # The worker prints tracebacks in Python's own format (--tb=native); a module that fails to import is still
    # recorded from pytest's collection report, with the exception's last line as its message.
    venv_for("jax-cpu")
    folder = tmp_path / "team" / "jax"
    folder.mkdir(parents=True)
    (folder / "test_missing.py").write_text('import pytest\nimport not_a_module_anywhere\n'
                                            'pytestmark = pytest.mark.function("jax.numpy.add")\n')
    (folder / "test_refuses.py").write_text('import pytest\npytestmark = pytest.mark.function("jax.numpy.sin")\n'
                                            'raise RuntimeError("the module refuses to load")\n')
    out = tmp_path / "out"
    run = cli("bench", "--image", "jax-cpu", "--curated", str(tmp_path / "team"), "--quick", "--out", str(out))
    assert run.returncode == 0, run.stderr[-2000:]
    (path,) = out.glob("*.jsonl")
    cases = {c["function"]: c for c in cases_of(path)}
    assert cases["jax.numpy.add"]["outcome"] == cases["jax.numpy.sin"]["outcome"] == "failed", cases
    assert cases["jax.numpy.add"]["message"] == "ModuleNotFoundError: No module named 'not_a_module_anywhere'"
    assert cases["jax.numpy.sin"]["message"] == "RuntimeError: the module refuses to load"
