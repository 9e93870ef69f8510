#!/usr/bin/env bash
# Print the path of a Chromium for the report's screenshot test, installing Debian's chromium if there is none.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

find_browser() { for b in chromium chromium-browser google-chrome; do command -v "$b" && return 0; done; return 1; }

find_browser && exit 0
echo "browser: installing chromium" >&2
apt_install chromium || { echo "error: could not install chromium with apt-get; install Chromium and retry" >&2; exit 1; }
find_browser
