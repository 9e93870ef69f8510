#!/usr/bin/env bash
# Build a Debian base image without an image registry: debootstrap a minimal Debian with Python,
# carry the host's CA bundle (so pip works behind a TLS-inspecting proxy) and `docker import` it.
#   scripts/build-offline-base.sh [TAG]      default TAG: portability-runner/base:bookworm
# Then: runner images build --image jax-cpu --base portability-runner/base:bookworm
# Debian bookworm ships Python 3.11, the `current` profile's Python. Re-running reuses an existing tag.
set -euo pipefail
TAG="${1:-portability-runner/base:bookworm}"
SUITE="${DEBIAN_SUITE:-bookworm}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CA_BUNDLE="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"

if docker image inspect "$TAG" >/dev/null 2>&1; then echo "$TAG (exists)"; exit 0; fi
[ "$(id -u)" = 0 ] || { echo "error: debootstrap needs root; run this script as root (or with sudo)" >&2; exit 1; }
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null \
  || { echo "error: could not install debootstrap with apt-get; install it and retry" >&2; exit 1; }
[ -r "$CA_BUNDLE" ] || { echo "error: no CA bundle at $CA_BUNDLE; set CA_BUNDLE=/path/to/bundle.crt" >&2; exit 1; }

ROOTFS="$(mktemp -d "${TMPDIR:-/tmp}/runner-base.XXXXXX")"
trap 'rm -rf "$ROOTFS"' EXIT
echo "debootstrap $SUITE from $MIRROR (a few minutes)"
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates "$SUITE" "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 \
  || { echo "error: debootstrap failed; see $ROOTFS.log" >&2; exit 1; }
cp "$CA_BUNDLE" "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
# pip trusts its own certifi bundle, not the system's: point it at the host's.
printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$ROOTFS/etc/pip.conf"
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
tar -C "$ROOTFS" -c . | docker import --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' - "$TAG" >/dev/null
rm -f "$ROOTFS.log"
echo "$TAG"
