#!/usr/bin/env bash
# What every node of cluster/gcp.yaml runs once: the runner (with Ray, at the driver's version) in
# ~/portability-runner/.venv, Docker for the docker backend, and on a GPU VM the NVIDIA container toolkit.
# Framework environments are built later by the runner itself, per cell (a venv, or an image when Docker
# answers), exactly as on a single machine.
set -euo pipefail
cd "$HOME/portability-runner"
. scripts/lib.sh

apt_install python3-venv python3-pip docker.io || { echo "error: apt-get could not install python3-venv and docker.io" >&2; exit 1; }
as_root systemctl enable --now docker
as_root usermod -aG docker "$USER"

if command -v nvidia-smi >/dev/null; then
  # GPUs reach containers through the NVIDIA container toolkit (docker run --gpus all).
  curl -fsSL https://nvidia.github.io/libnvidia-container/gpgkey | as_root gpg --batch --yes --dearmor \
    -o /usr/share/keyrings/nvidia-container-toolkit-keyring.gpg
  curl -fsSL https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list \
    | sed 's#deb https://#deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://#' \
    | as_root tee /etc/apt/sources.list.d/nvidia-container-toolkit.list >/dev/null
  apt_install nvidia-container-toolkit
  as_root nvidia-ctk runtime configure --runtime=docker
  as_root systemctl restart docker
fi

# The host side needs Python 3.11+; Ubuntu 22.04 (and the TPU VM's image) ship 3.10: uv provides one.
python3 -m pip install --user --quiet uv
python=$("$HOME/.local/bin/uv" python find 3.11 2>/dev/null || { "$HOME/.local/bin/uv" python install 3.11 >&2 && "$HOME/.local/bin/uv" python find 3.11; })
make PYTHON="$python" .venv/bin/.installed  # the runner, its harness and Ray (the extra `ray`), as `make test` installs them
