"""matrix.toml: validation names the line and the fix; cells, excludes and overrides expand as written."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, runner_cli

from runner import images, matrix
from runner.errors import UserError
from runner.plan import Options, plan
from runner.project import Project

# The packages line is one TOML line (an inline table cannot wrap): the backslash joins it.
MINIMAL = """\
[matrix]
frameworks = ["jax", "torch"]
devices = ["cpu", "cuda"]
profiles = ["p"]
repeats = 2

[profiles.p]
python = "3.11"
packages = { jax = "0.10.2", jaxlib = "0.10.2", torch = "2.13.0", pytest = "8.3.5", absl-py = "2.5.1", \
nvidia-ml-py = "13.615.71" }
bases = { cpu = "python:{python}-slim" }
"""


def load(tmp_path: Path, text: str) -> matrix.Matrix:
    path = tmp_path / "matrix.toml"
    path.write_text(text)
    return matrix.load(path)


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(UserError) as e:
        load(tmp_path, text)
    message = str(e.value)
    assert "\n" not in message
    return message


def test_the_projects_matrix_loads_and_every_cell_has_its_pins():
    m = matrix.load(ROOT / "matrix.toml")
    assert m.repeats == 3 and m.timeout_s == 900
    for profile in m.profiles:
        for spec in images.specs(ROOT / "images"):
            s = m.settings(spec.name, spec.framework, spec.device, profile)
            if s.excluded:
                continue
            requirements = spec.requirements(s.profile)  # raises when a pin is missing
            assert requirements and s.profile.base_for(spec.device)


@pytest.mark.parametrize("text, line, words", [
    (MINIMAL.replace("repeats = 2", "repeat = 2"), 5, ["unknown key 'repeat'", "did you mean 'repeats'"]),
    (MINIMAL.replace('"jax", "torch"', '"jax", "pytorch"'), 2, ["unknown framework", "'torch'"]),
    (MINIMAL.replace('"cpu", "cuda"', '"cpu", "gpu"'), 3, ["unknown device 'gpu'", "cuda"]),
    (MINIMAL.replace('profiles = ["p"]', 'profiles = ["paper"]'), 4, ["unknown profile 'paper'", "allowed: p"]),
    (MINIMAL.replace("repeats = 2", "repeats = 0"), 5, ["repeats = 0", "positive"]),
    (MINIMAL.replace('python = "3.11"', "python = 3.11"), 8, ["python = \"3.x\""]),
    (MINIMAL + '[[exclude]]\nimage = "jax-cpu"\n', 11, ["no reason", "reason ="]),
    (MINIMAL + '[[override]]\nprofile = "p"\npython_version = "3.10"\n', 13, ["unknown key 'python_version'", "'python'"]),
    (MINIMAL + "[extras]\n", 11, ["unknown table or key 'extras'"]),
    (MINIMAL.replace("repeats = 2", 'numerics = "fast"'), 5, ["unknown numerics 'fast'", "strict", "vendor"]),
    (MINIMAL.replace("repeats = 2", 'compiler = ["eager", "xla"]'), 5, ["unknown compiler 'xla'", "compiled"]),
    (MINIMAL.replace("repeats = 2", 'compiler = ["eager", "eager"]'), 5, ["names no compiler or one twice",
                                                                          'compiler = "eager" or']),
    (MINIMAL + '[[environment]]\nname = "vm"\n', 11, ["[[environment]] has no python", "python = "]),
    (MINIMAL + '[[environment]]\nname = "p"\npython = "/x"\n', 12, ["name 'p' is also a profile's"]),
    (MINIMAL + '[[environment]]\nname = "vm"\npython = "/x"\ndevice = ["cpu"]\n', 14, ["unknown key 'device'",
                                                                                    "'devices'"]),
])
def test_a_mistake_names_its_line_and_the_fix(tmp_path, text, line, words):
    message = error_of(tmp_path, text)
    assert message.startswith(f"matrix.toml line {line}:"), message
    for word in words:
        assert word in message, message


def test_toml_syntax_error(tmp_path):
    assert "fix the TOML syntax" in error_of(tmp_path, "[matrix\n")


def test_cells_expand_frameworks_by_devices_then_opt_in_images(tmp_path):
    m = load(tmp_path, MINIMAL.replace("repeats = 2", 'repeats = 2\ninclude = ["torch-xla-cpu"]'))
    assert Project(ROOT, m).cell_images() == ["jax-cpu", "jax-cuda", "torch-cpu", "torch-cuda", "torch-xla-cpu"]
    with pytest.raises(UserError, match="unknown image 'tf-gpu'"):
        Project(ROOT, load(tmp_path, MINIMAL.replace("repeats = 2", 'include = ["tf-gpu"]'))).cell_images()
    # `runner matrix --skip`: one run leaves an included (or any) image out; an unknown one is an error
    m.skip = ["torch-xla-cpu", "jax-cuda"]
    assert Project(ROOT, m).cell_images() == ["jax-cpu", "torch-cpu", "torch-cuda"]
    m.skip = ["tf-gpu"]
    with pytest.raises(UserError, match="unknown image 'tf-gpu'"):
        Project(ROOT, m).cell_images()


def test_the_matrix_runs_torch_xla_on_the_cpu_unless_a_run_skips_it():
    dry = runner_cli("matrix", "--dry-run", "--backend", "local", "--compiler", "eager")
    assert dry.returncode == 0, dry.stderr
    assert "torch-xla-cpu" in dry.stdout
    skipped = runner_cli("matrix", "--dry-run", "--backend", "local", "--compiler", "eager", "--skip", "torch-xla-cpu")
    assert skipped.returncode == 0 and "torch-xla-cpu" not in skipped.stdout and "torch-cpu" in skipped.stdout


def test_overrides_apply_in_order_and_excludes_carry_their_reason(tmp_path):
    m = load(tmp_path, MINIMAL + """
[[override]]
framework = "torch"
python = "3.10"
packages = { torch = "1.12.0" }
timeout = 60

[[override]]
image = "torch-cuda"
repeats = 5
base = "nvidia/cuda:x-{python}"

[[exclude]]
image = "jax-cuda"
reason = "no CUDA build of this jaxlib"
""")
    cuda = m.settings("torch-cuda", "torch", "cuda", "p")
    assert (cuda.profile.python, cuda.profile.packages["torch"], cuda.timeout_s, cuda.repeats) == ("3.10", "1.12.0", 60, 5)
    assert cuda.base == "nvidia/cuda:x-3.10" and cuda.excluded is None
    cpu = m.settings("torch-cpu", "torch", "cpu", "p")
    assert cpu.repeats == 2 and cpu.base is None and cpu.profile.base_for("cpu") == "python:3.10-slim"
    assert m.settings("jax-cpu", "jax", "cpu", "p").profile.packages["torch"] == "2.13.0"  # untouched
    assert m.settings("jax-cuda", "jax", "cuda", "p").excluded == "no CUDA build of this jaxlib"
    with pytest.raises(UserError, match=r"no base image for cuda images"):
        m.settings("jax-cuda", "jax", "cuda", "p").profile.base_for("cuda")


def test_plan_lists_absent_devices_and_excludes_as_not_run(tmp_path, no_devices):
    m = load(tmp_path, MINIMAL + '[[exclude]]\nimage = "torch-cpu"\nreason = "not today"\n')
    cells = {c.key: c for c in plan(Project(ROOT, m), Options(backend="local"))}
    assert cells["jax-cpu/p"].initial_status == "pending" and cells["jax-cpu/p"].repeats == 2
    assert cells["torch-cpu/p"].initial_status == "excluded" and cells["torch-cpu/p"].reason == "not today"
    # A host with no NVIDIA GPU: the cuda cells are listed with the reason, not attempted.
    assert cells["jax-cuda/p"].initial_status == "not_run" and "no NVIDIA GPU" in cells["jax-cuda/p"].reason


def test_requirements_take_versions_from_the_profile_only(tmp_path):
    m = load(tmp_path, MINIMAL)
    spec = images.load(ROOT / "images", "jax-cuda")
    p = m.profile("p")
    assert spec.requirements(p)[0] == "jax[cuda12]==0.10.2"
    whole = matrix.Profile("w", "3.11", {**p.packages, "jax": "jax[cuda11_pip]==0.4.8"})
    assert spec.requirements(whole)[0] == "jax[cuda11_pip]==0.4.8"
    # Dependencies get the profile's pins as constraints; the image's own packages are pinned once, as
    # requirements (a pin that does not exist is then pip's "no matching distribution", not a conflict).
    assert "jaxlib==0.10.2" in spec.constraints(p) and not any("cuda11" in c for c in spec.constraints(whole))
    assert not any(c.startswith(("jax==", "pytest==")) for c in spec.constraints(p))
    with pytest.raises(UserError, match="pins no version of 'pytest'"):
        spec.requirements(matrix.Profile("x", "3.11", {"jax": "0.10.2"}))
