"""Shared fixtures: the project, and real framework venvs built by the local backend with the harness in them."""
from __future__ import annotations

import atexit
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from portability_harness.protocol import Config

from runner import devices, matrix, releases
from runner.backends.local import LocalBackend, VenvEnvironment
from runner.plan import Options, plan
from runner.project import Project

ROOT = Path(__file__).resolve().parent.parent
FAULT_CASES = ROOT / "tests" / "fault_cases"
DEVICES = ROOT / "tests" / "devices"  # device views of captured machines (tests/devices/*/README.md)


def project_curated(root: Path, into: Path) -> Path:
    """A copy under `into` of the project's own curated modules: the files of root/curated that git tracks. A
    user's modules beside them (a function of their own, a second module for a sampled function, one that fails
    to import) are theirs to run; the tests check the project's and must not change with what a user added."""
    listed = subprocess.run(["git", "ls-files", "-z", "curated"], cwd=root, capture_output=True)
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 else []
    if not names:  # not a git checkout (an unpacked archive): curated/ is taken as it is
        shutil.copytree(root / "curated", into / "curated", ignore=shutil.ignore_patterns("__pycache__"))
    for name in (n for n in names if (root / n).is_file()):  # a module deleted but not yet committed: gone
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, into / name)
    return into / "curated"


_COPY = Path(tempfile.mkdtemp(prefix="project-curated-"))
atexit.register(shutil.rmtree, _COPY, True)
CURATED = project_curated(ROOT, _COPY)
# Every runner the tests start reads its curated modules from the copy (Project.find honours RUNNER_CURATED)...
os.environ["RUNNER_CURATED"] = str(CURATED)
# ...and PyPI's release lists as they were on the day they were saved: a release published since changes no test.
PYPI_ANSWERS = ROOT / "tests" / "data" / "pypi-2026-11-27"
os.environ[releases.PYPI_VARIABLE] = PYPI_ANSWERS.as_uri() + "/{name}.json"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture
def device_view(monkeypatch, tmp_path_factory):
    """device_view(name=None): the host's devices as the runner reads them (RUNNER_DEVICE_VIEW, runner/devices.py)
    for the rest of the test, in this process and every one it starts: tests/devices/<name>, a captured machine
    (its nvidia-smi and device nodes), or with no name an empty view, a host with no GPU and no TPU. Every test
    whose outcome depends on the host's devices sets one, so that the suite passes on a GPU or TPU VM as here.
    CUDA_VISIBLE_DEVICES is emptied too: a framework a test starts never reaches a real GPU of the machine, whatever
    the view says (only the tests marked gpu do, tests/gpu/)."""
    def use(name: str | None = None) -> Path:
        folder = DEVICES / name if name else tmp_path_factory.mktemp("no-devices")
        monkeypatch.setenv(devices.VIEW, str(folder))
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
        return folder

    return use


@pytest.fixture
def no_devices(device_view) -> Path:
    """A host with no GPU and no TPU."""
    return device_view()


@pytest.fixture(scope="session")
def project() -> Project:
    return Project(ROOT, matrix.load(ROOT / "matrix.toml"))


@pytest.fixture(scope="session")
def venv_for(project):
    """venv_for(image, profile='current'): the image's real venv with the harness installed, built on first use."""
    built: dict = {}

    def get(image: str, profile: str = "current") -> VenvEnvironment:
        key = (image, profile)
        if key not in built:
            (cell,) = plan(project, Options(profiles=(profile,), images=(image,), backend="local", compilers=("eager",)))
            built[key] = LocalBackend(project.harness_dir).prepare(cell, log=lambda s: None)
        return built[key]

    return get


def config(out: Path, framework: str, curated: Path = CURATED, device: str = "cpu", **fields) -> Config:
    return Config(framework=framework, device=device, out=str(out), curated_root=str(curated), **fields)


def harness_command(env: VenvEnvironment, cfg: Config, tmp: Path) -> list[str]:
    """`python -m portability_harness CONFIG` in the venv, the config written beside the results."""
    path = tmp / f"{Path(cfg.out).stem}.config.json"
    cfg.write(str(path))
    return [env.python, "-m", "portability_harness", str(path)]


def harness(env: VenvEnvironment, cfg: Config, timeout: float = 600) -> tuple[int, list[dict]]:
    """Run the harness on one config in a venv; returns its exit status and progress events."""
    proc = subprocess.run(harness_command(env, cfg, Path(cfg.out).parent), cwd=Path(cfg.out).parent,
                          env=env.variables(), capture_output=True, text=True, timeout=timeout)
    events = [json.loads(l) for l in proc.stdout.splitlines() if l.startswith("{")]
    return proc.returncode, events


def curated_cases(env: VenvEnvironment, framework: str, pattern: str) -> list[str]:
    """The case ids a run of the curated functions matching `pattern` must end with, counted apart from the run:
    the node ids pytest collects from their modules in `env`, relative to the curated root as the worker records
    them."""
    from portability_harness.catalog import curated

    modules = sorted({str(CURATED / f.module) for f in curated(str(CURATED), framework)
                      if fnmatch.fnmatchcase(f.name, pattern)})
    assert modules, f"no curated {framework} function matches {pattern}"
    # The harness's plugin names parameters as the worker does (its hooks only route a run; none here).
    command = [env.python, "-m", "pytest", "-c", str(ROOT / "harness" / "portability_harness" / "pytest.ini"),
               "--rootdir", str(CURATED), "--confcutdir", str(CURATED), "-p", "portability_harness.plugin",
               "--collect-only", "-q", *modules]
    with tempfile.TemporaryDirectory() as elsewhere:  # a folder named like the framework must not shadow it
        proc = subprocess.run(command, cwd=elsewhere, capture_output=True, text=True, timeout=600,
                              env=env.variables())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return [line for line in proc.stdout.splitlines() if "::" in line]


def wait_for(condition, what: str, timeout: float = 300, proc: subprocess.Popen | None = None) -> None:
    """Poll `condition` until it holds. Fails naming what it waited for: past `timeout` seconds, or once `proc`,
    the process that was to bring it about, has ended (with that process's output)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"waiting for {what}, the process ended first (exit {proc.returncode}):\n"
                        f"{(out or '')[-2000:]}\n{(err or '')[-3000:]}")
        assert time.monotonic() < deadline, f"waited {timeout:.0f} s for {what}"
        time.sleep(0.1)


def command(pid: int) -> str:
    """A process's command line ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def children(pid: int) -> set[int]:
    """The processes `pid` started, as the kernel lists them (a child just forked is there before it runs)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def working_in(folder: Path) -> list[str]:
    """The processes whose working directory is `folder`, as "pid: command line": those of a run in that results
    folder (its harness, the worker, what a case started), never another run's on this machine."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "cwd") == str(folder.resolve()):
                found.append(f"{entry.name}: {command(int(entry.name)).strip()}")
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def steady_tickets(folder: Path, n: int) -> dict[str, str]:
    """The environment in which tests/fault_cases/torch/test_steady.py runs `n` cases, then waits (its docstring
    says how): a test stops the run once their records are in, and the stop lands between records."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"ticket-{i:02d}").write_text("")
    return {"STEADY_TICKETS": str(folder)}


def clean_env() -> dict[str, str]:
    """The host's environment without PYTHONPATH: inside a venv only the harness package is importable."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def cases_of(path: Path) -> list[dict]:
    from portability_harness.records import store

    return store.read(str(path)).cases


def browser() -> str:
    """The system's Chromium (scripts/browser.sh installs Debian's if there is none), for the report page tests."""
    proc = subprocess.run([str(ROOT / "scripts" / "browser.sh")], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"no Chromium for the report page tests: {proc.stderr.strip()}")
    return proc.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium driven by playwright: the system's (scripts/browser.sh), not a downloaded one."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=browser(), args=["--no-sandbox", "--disable-gpu",
                                                               "--disable-dev-shm-usage"])
        yield b
        b.close()


def headless(profile: Path) -> list[str]:
    """Headless Chromium's command line with a profile of its own and no background networking (this machine's
    network refuses it)."""
    return [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--no-first-run", "--disable-background-networking", f"--user-data-dir={profile}"]


def one_line_error(proc: subprocess.CompletedProcess, *words: str) -> str:
    """Bad input: one line on stderr naming the problem (and the words given), a non-zero exit, no traceback."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A Ray check that fails shows, under its name, the tails of its cluster's logs (each node's `ray start`
    output, the raylets', the runtime-env agents' and the failed workers'): the fixture removes them when it
    stops the cluster, and a failure in CI must be caught with its cause."""
    outcome = yield
    report = outcome.get_result()
    cluster = getattr(item, "funcargs", {}).get("cluster")
    if report.when == "call" and report.failed and hasattr(cluster, "diagnostics"):
        report.sections.append(("ray cluster logs", cluster.diagnostics()))


# --- four small real runs that the report's tests read (test_report.py, test_report_page.py) ---------------------

TORCH = ("torch.round", "torch.cuda", "torch.Tensor.is_same_size", "torch.nn.Linear")
JAX = ("jax.numpy.add", "jax.core.get_aval", "jax.lax.erf")
RUNS = {  # folder: bench arguments
    "torch-current": ("--image", "torch-cpu", "--repeats", "2", *(a for f in TORCH for a in ("--functions", f))),
    "torch-paper2023": ("--image", "torch-cpu", "--profile", "paper2023",
                        *(a for f in TORCH for a in ("--functions", f))),
    "jax-steady": ("--image", "jax-cpu", *(a for f in JAX for a in ("--functions", f))),
    "jax-paper": ("--image", "jax-cpu", "--mode", "paper", *(a for f in JAX for a in ("--functions", f))),
}


def start_runner(*args: str, env: dict | None = None, **kw) -> subprocess.Popen:
    """`runner ...` as a user starts it from a terminal: its own process group, as a shell's job is (a test can stop
    or kill the whole run), its output kept."""
    return subprocess.Popen([sys.executable, "-m", "runner.cli", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(os.environ, COLUMNS="200", **(env or {})), **kw)


def finished(proc: subprocess.Popen, timeout: float = 900) -> subprocess.CompletedProcess:
    """A process started with `start_runner`, once it has ended, with its output."""
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def processes_naming(path: str) -> list[int]:
    """The processes whose command line or environment names `path` (a file no other process knows of)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        for what in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as f:
                    if path.encode() in f.read():
                        found.append(int(pid))
                        break
            except OSError:
                pass
    return found


def small_matrix(folder: Path, table: str, extra: str = "") -> Path:
    """The project's matrix.toml written into `folder` with its [matrix] table's body replaced by `table` (its
    profiles as they are) and `extra` appended; its path."""
    text = re.sub(r"(?ms)^\[matrix\].*?(?=^\[profiles)", f"[matrix]\n{table}\n\n", (ROOT / "matrix.toml").read_text())
    path = folder / "matrix.toml"
    path.write_text(text + extra)
    return path


def runner_cli(*args: str, cwd: Path = ROOT, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="250"))


@pytest.fixture(scope="session")
def runs(tmp_path_factory, venv_for) -> Path:
    """The four runs, measured once a session; REPORT_RUNS=FOLDER reuses the runs this fixture made before (to work
    on the report on a slow machine without measuring them again)."""
    kept = os.environ.get("REPORT_RUNS")
    if kept:
        assert all((Path(kept) / name).is_dir() for name in RUNS), f"REPORT_RUNS={kept} lacks some of {list(RUNS)}"
        return Path(kept)
    venv_for("torch-cpu"), venv_for("torch-cpu", "paper2023"), venv_for("jax-cpu")
    base = tmp_path_factory.mktemp("runs")
    for name, args in RUNS.items():
        proc = runner_cli("bench", *args, "--backend", "local", "--out", str(base / name))
        assert proc.returncode == 0, proc.stderr[-2000:]
    return base


def records(folder: Path) -> list[tuple[dict, dict]]:
    """(header, case) for every case record under folder, read with nothing but json."""
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        lines = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
        header = next(r for r in lines if r["record"] == "header")
        out += [(header, r) for r in lines if r["record"] == "case"]
    return out


def copy_with_header(source: Path, dest: Path, **fields) -> None:
    """The results files of `source` copied into `dest` with `fields` set in their headers: the same records as if
    measured elsewhere (another device or model), for the report's naming of setups."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.jsonl")):
        lines = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
        for line in lines:
            if line["record"] == "header":
                line.update(fields)
        (dest / path.name).write_text("".join(json.dumps(l) + "\n" for l in lines))


@pytest.fixture(scope="session")
def everything(runs):
    """The four runs loaded by the report, and their records read with nothing but json."""
    from runner.report import load

    folders = [runs / name for name in RUNS]
    return load.load(folders), [r for f in folders for r in records(f)]
