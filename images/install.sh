#!/bin/sh
# Run by images/Dockerfile (the build copies it in): a Python of the profile's version in /opt/venv with
# the pinned requirements and the harness wheel (/tmp/harness/*.whl), and the non-root user the harness
# runs as. Inputs are the Dockerfile's build arguments, which RUN sees as environment variables:
#   PYTHON (3.x), REQUIREMENTS and CONSTRAINTS (one requirement a line), FIND_LINKS (space-separated URLs).
set -eu
: "${PYTHON:?build argument PYTHON is required}" "${REQUIREMENTS:?build argument REQUIREMENTS is required}"

if ! command -v "python$PYTHON" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    # CUDA bases (Ubuntu) carry no Python: take the distribution's build of the profile's version.
    # A distribution without that version falls through to the error below.
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "python$PYTHON" "python$PYTHON-venv" ca-certificates || true
    rm -rf /var/lib/apt/lists/*
fi
command -v "python$PYTHON" >/dev/null 2>&1 || {
    echo "error: the base image has no python$PYTHON (nor a package of it); pass a base with Python $PYTHON (--base)" >&2
    exit 1
}

"python$PYTHON" -m venv /opt/venv
printf '%s\n' "$REQUIREMENTS" >/tmp/requirements.txt
printf '%s\n' "${CONSTRAINTS:-}" >/tmp/constraints.txt
set --
for link in ${FIND_LINKS:-}; do set -- "$@" --find-links "$link"; done
/opt/venv/bin/pip install --no-cache-dir --no-input --disable-pip-version-check \
    -r /tmp/requirements.txt -c /tmp/constraints.txt "$@"
rm -f /tmp/requirements.txt /tmp/constraints.txt
# The harness's only dependency, pytest, is among the requirements: install it without resolving again.
/opt/venv/bin/pip install --no-cache-dir --no-input --disable-pip-version-check --no-deps /tmp/harness/*.whl

# A fixed uid, so that the host can hand the results folder to it (runner.backends.docker).
useradd --create-home --uid 1000 --shell /bin/sh runner
