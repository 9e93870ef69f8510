#!/usr/bin/env bash
# Make sure a Docker engine answers, for the Docker end-to-end check.
#   docker-engine.sh start   install docker.io if there is no dockerd, start dockerd if no engine answers
#   docker-engine.sh stop    stop the dockerd that `start` started, and nothing else
# The pid of a dockerd this script started is kept in $STATE so that `stop` never touches a user's engine.
set -euo pipefail
STATE="${DOCKER_ENGINE_STATE:-${TMPDIR:-/tmp}/portability-runner-dockerd.pid}"
LOG="${STATE%.pid}.log"

. "$(dirname "$0")/lib.sh"

answers() { docker info >/dev/null 2>&1; }

start() {
  if command -v docker >/dev/null && answers; then echo "docker engine: already running"; return; fi
  if ! command -v dockerd >/dev/null; then
    echo "docker engine: installing docker.io"
    apt_install docker.io || { echo "error: could not install docker.io with apt-get; install a Docker engine and retry" >&2; exit 1; }
  fi
  echo "docker engine: starting dockerd (log: $LOG)"
  as_root sh -c "dockerd >'$LOG' 2>&1 & echo \$! >'$STATE'"
  for _ in $(seq 60); do answers && { echo "docker engine: ready"; return; }; sleep 1; done
  echo "error: dockerd did not answer within 60 s; see $LOG" >&2; exit 1
}

stop() {
  [ -f "$STATE" ] || return 0
  pid=$(cat "$STATE")
  as_root kill "$pid" 2>/dev/null || true
  for _ in $(seq 30); do as_root kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  rm -f "$STATE"
  echo "docker engine: stopped the dockerd this script started"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
