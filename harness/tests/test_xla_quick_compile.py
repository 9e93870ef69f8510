"""The TPU model's quick-compile flags: given where the framework's XLA is of a release they were verified on, after
the XLA_FLAGS the environment already sets, and not at all for an older release (whose XLA would abort on a flag it
does not know), where the framework is not installed, or where they are turned off; none for torch_xla 2.9. The
releases are read from real installed metadata (a dist-info folder on sys.path), as importlib finds a wheel's."""
from __future__ import annotations

import pytest

from portability_harness.frameworks import adapter_for, xla_quick_compile as quick


def _installed(folder, monkeypatch, name: str, version: str) -> None:
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    monkeypatch.syspath_prepend(str(folder))


@pytest.mark.parametrize("framework,distribution,old,new", [
    ("jax", "jaxlib", "0.4.7", "0.10.2"),
    ("tensorflow", "tensorflow", "2.11.0", "2.21.0"),
])
def test_flags_from_the_verified_release_only(tmp_path, monkeypatch, framework, distribution, old, new):
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
    with monkeypatch.context() as m:
        _installed(tmp_path / "old", m, distribution, old)
        assert quick.environment(framework) == {}
    _installed(tmp_path / "new", monkeypatch, distribution, new)
    assert quick.environment(framework) == {
        "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false " + " ".join(quick.VERIFIED[framework].flags)}
    monkeypatch.setenv(quick.OFF, "0")
    assert quick.environment(framework) == {}


def test_only_the_model_device_gets_them(tmp_path, monkeypatch):
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    _installed(tmp_path, monkeypatch, "jaxlib", "0.10.2")
    jax = adapter_for("jax")
    assert jax.environment("cpu", "steady") == {"JAX_PLATFORMS": "cpu"}  # a timing cell compiles as users do
    assert jax.environment("xla-cpu", "steady") == {"JAX_PLATFORMS": "cpu",
                                                    "XLA_FLAGS": " ".join(quick.EMITTERS + quick.LLVM)}
    assert adapter_for("torch").environment("xla-cpu", "steady") == {"PJRT_DEVICE": "CPU"}  # no torch_xla here
    assert quick.environment("mxnet") == {}


def test_torch_xla_2_9_gets_none(tmp_path, monkeypatch):
    # LLVM's flags alone ran an unoptimised loop 20 times slower, the legacy emitters changed a verdict
    _installed(tmp_path, monkeypatch, "torch_xla", "2.9.0")
    assert quick.environment("torch") == {}
