"""The image folders: one per framework x device, one Dockerfile rendered per image that takes every version from
matrix.toml, and the device options the NVIDIA container toolkit and Cloud TPU VM docs require (CUDA and TPU
cannot run here)."""
from __future__ import annotations

import os
import re

import pytest
from conftest import ROOT

from portability_harness.protocol import FRAMEWORKS

from runner import images, matrix
from runner.backends import docker_engine, local
from runner.errors import UserError

IMAGES, HARNESS = ROOT / "images", ROOT / "harness"
SPECS = images.specs(IMAGES)
SHORT = {"torch": "torch", "tensorflow": "tf", "jax": "jax"}


def instructions(spec: images.ImageSpec) -> list[tuple[str, str]]:
    """(instruction, argument) pairs of the image's rendered Dockerfile, comments dropped, continuations joined."""
    text = re.sub(r"\\\n", " ", docker_engine.dockerfile(IMAGES, spec))
    lines = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith("#")]
    return [(l.split(None, 1)[0].upper(), l.split(None, 1)[1] if " " in l else "") for l in lines]


def env_of(spec: images.ImageSpec) -> dict[str, str]:
    env = {}
    for op, arg in instructions(spec):
        if op == "ENV":
            env.update(dict(kv.split("=", 1) for kv in arg.split()))
    return env


def test_every_framework_by_device_has_an_image():
    names = {s.name for s in SPECS}
    # plus the TPU model on this CPU, one image per framework (device kind xla-cpu)
    expected = {f"{SHORT[f]}-{d}" for f in FRAMEWORKS for d in ("cpu", "cuda", "tpu", "xla-cpu")}
    assert names == expected
    for s in SPECS:
        assert s.name == f"{SHORT[s.framework]}-{s.device}"
    assert not list(IMAGES.glob("*/Dockerfile")), "every image is built from the one images/Dockerfile"


def test_a_model_image_takes_its_cpu_images_packages_and_venv():
    profile = matrix.load(ROOT / "matrix.toml").profile("current")
    for name, cpu in (("tf-xla-cpu", "tf-cpu"), ("jax-xla-cpu", "jax-cpu")):
        model, plain = images.load(IMAGES, name), images.load(IMAGES, cpu)
        assert model.packages == plain.packages and model.device == "xla-cpu"
        assert local.venv_path(model, profile) == local.venv_path(plain, profile)  # one download, one venv
    assert images.load(IMAGES, "tf-xla-cpu").environment == (("TF_XLA_FLAGS", "--tf_xla_enable_xla_devices"),)


def test_packages_of_names_an_image_that_lists_its_own(tmp_path):
    for name, body in (("a", 'framework = "jax"\ndevice = "cpu"\npackages_of = "a"\n'),
                       ("b", 'framework = "jax"\ndevice = "cpu"\npackages_of = "c"\n'),
                       ("c", 'framework = "jax"\ndevice = "cpu"\npackages_of = "a"\n'),
                       ("d", 'framework = "torch"\ndevice = "cpu"\npackages_of = "e"\n'),
                       ("e", 'framework = "jax"\ndevice = "cpu"\npackages = ["jax"]\n')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "image.toml").write_text(body)
    for name in ("a", "b"):
        with pytest.raises(UserError, match="must name an image that lists its own packages"):
            images.load(tmp_path, name)
    with pytest.raises(UserError, match="an image of another framework"):
        images.load(tmp_path, "d")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_dockerfile_takes_base_and_pins_as_build_arguments(spec):
    steps = instructions(spec)
    assert steps[0] == ("ARG", "BASE") and steps[1] == ("FROM", "${BASE}")
    args = {arg.split("=")[0] for op, arg in steps if op == "ARG"}
    m = matrix.load(ROOT / "matrix.toml")
    profile = m.settings(spec.name, spec.framework, spec.device, "current").profile
    assert set(docker_engine.build_args(spec, profile)) <= args
    text = docker_engine.dockerfile(IMAGES, spec)
    assert not re.search(r"==\s*\d|:\d+\.\d+|python3\.\d+|cuda1\d", text), "a version written in the Dockerfile"
    user = [arg for op, arg in steps if op == "USER"]
    assert user and user[-1] not in ("root", "0")
    assert steps[-1] == ("ENTRYPOINT", '["python", "-m", "portability_harness"]')
    assert env_of(spec) == {**dict(spec.environment), **env_of_common()}  # image.toml's environment, rendered


def env_of_common() -> dict[str, str]:
    return {"PATH": "/opt/venv/bin:$PATH", "PYTHONUNBUFFERED": "1", "HOME": "/home/runner"}


@pytest.mark.parametrize("profile", sorted(matrix.load(ROOT / "matrix.toml").profiles))
def test_build_arguments_of_every_cell(profile):
    m = matrix.load(ROOT / "matrix.toml")
    for spec in SPECS:
        s = m.settings(spec.name, spec.framework, spec.device, profile)
        if s.excluded:
            continue
        args = docker_engine.build_args(spec, s.profile)
        assert args["PYTHON"] == s.profile.python
        reqs = args["REQUIREMENTS"].splitlines()
        assert len(reqs) == len(spec.packages)
        framework_req = reqs[0]
        assert re.search(r"==\d|@ https://", framework_req), framework_req  # the framework itself is pinned
        assert all(not re.search(r"\[|@", c) for c in args["CONSTRAINTS"].splitlines())  # pip refuses extras there
        tag = docker_engine.image_tag(IMAGES, HARNESS, spec, s.profile, s.profile.base_for(spec.device))
        assert tag.startswith(f"portability-runner/{spec.name}:{profile}-")


def test_tag_changes_with_any_input():
    m = matrix.load(ROOT / "matrix.toml")
    spec, p = images.load(ROOT / "images", "jax-cpu"), m.profile("current")
    tag = docker_engine.image_tag(IMAGES, HARNESS, spec, p, "python:3.11-slim")
    assert tag == docker_engine.image_tag(IMAGES, HARNESS, spec, p, "python:3.11-slim")
    assert tag != docker_engine.image_tag(IMAGES, HARNESS, spec, p, "debian:12")
    bumped = matrix.Profile(p.name, p.python, {**p.packages, "jax": "0.10.3"}, p.find_links, p.bases)
    assert tag != docker_engine.image_tag(IMAGES, HARNESS, spec, bumped, "python:3.11-slim")
    other = images.ImageSpec(spec.name, spec.folder, spec.framework, spec.device, spec.packages, spec.find_links,
                             (("JAX_PLATFORMS", "cpu"), ("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")))
    assert tag != docker_engine.image_tag(IMAGES, HARNESS, other, p, "python:3.11-slim")


@pytest.mark.parametrize("spec", [s for s in SPECS if s.device == "cuda"], ids=lambda s: s.name)
def test_cuda_images_follow_the_nvidia_container_toolkit(spec):
    # The toolkit mounts the driver for the capabilities NVIDIA_DRIVER_CAPABILITIES names; unset, only
    # `utility`: CUDA needs `compute`. GPUs reach the container through a device request (`--gpus all`).
    env = env_of(spec)
    assert {"compute", "utility"} <= set(env["NVIDIA_DRIVER_CAPABILITIES"].split(","))
    assert env["NVIDIA_VISIBLE_DEVICES"] == "all"
    options = docker_engine.run_options("cuda")
    (request,) = options["device_requests"]
    assert request["Count"] == -1 and request["Capabilities"] == [["gpu"]]
    assert options["network_mode"] == "none"
    assert all("nvidia/cuda:" in matrix.load(ROOT / "matrix.toml").profile(p).base_for("cuda")
               for p in ("current", "paper2023"))


@pytest.mark.parametrize("spec", [s for s in SPECS if s.device == "tpu"], ids=lambda s: s.name)
def test_tpu_images_follow_the_cloud_tpu_vm_docs(spec, no_devices):
    # Cloud TPU: `docker run --privileged --net=host` (the chips and the TPU runtime's host networking);
    # PyTorch/XLA also asks for a large /dev/shm. libtpu comes from the frameworks' documented indexes.
    options = docker_engine.run_options("tpu")
    assert options["privileged"] is True and options["network_mode"] == "host" and options["shm_size"]
    assert options["group_add"] == []  # no TPU device nodes on this host
    assert any("libtpu" in link for link in spec.find_links)
    if spec.framework == "torch":
        assert env_of(spec)["PJRT_DEVICE"] == "TPU"
    if spec.framework == "jax":
        assert env_of(spec)["JAX_PLATFORMS"] == "tpu"


def test_cpu_cells_have_no_network():
    assert docker_engine.run_options("cpu") == {"network_mode": "none"}
    assert docker_engine.run_options("xla-cpu") == {"network_mode": "none"}


def test_the_image_carries_the_harness_wheel_and_nothing_of_the_host():
    from runner import harness_dist

    wheel = harness_dist.wheel(HARNESS)
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "portability_harness/__main__.py" in names and "portability_harness/pytest.ini" in names
    assert not any(n.startswith("runner/") for n in names)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.device != "cpu"], ids=lambda s: s.name)
def test_accelerator_images_carry_what_declared_support_and_the_census_import(spec):
    # The CPU image of each framework is where `runner declared` and `runner census` are tried here; an accelerator
    # image of the same framework needs the same test dependencies, or those commands fail only on the device.
    (cpu,) = [s for s in SPECS if s.framework == spec.framework and s.device == "cpu"]
    extras = {p for p in cpu.packages if p not in (spec.framework, "jaxlib", "tensorflow", "torch")}
    base = {re.split(r"[\[=<>]", p)[0] for p in spec.packages}
    assert extras <= base, f"{spec.name} lacks {sorted(extras - base)}"


def test_the_tpu_containers_user_joins_the_groups_that_own_the_device_nodes(tmp_path):
    # Real files stand for /dev/accel0 and /dev/vfio/0 (owned by two groups): the container's non-root user must
    # be in each owner's group to open them; a node that is gone is skipped.
    if os.getuid() != 0:
        pytest.skip("needs root to give a file another group")
    nodes = [tmp_path / "accel0", tmp_path / "vfio0", tmp_path / "gone"]
    for node, gid in zip(nodes[:2], (1234, 5678)):
        node.write_text("")
        os.chown(node, -1, gid)
    assert docker_engine.device_groups(nodes) == ["1234", "5678"]
