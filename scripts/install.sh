#!/usr/bin/env bash
# Idempotent bootstrap of a development or CI machine (Debian 12): system packages when root and
# missing, the virtualenv (re-installed only when pyproject.toml changed), the Kafka jars.
# Quick when everything is present. Usage: scripts/install.sh  (or `make install`)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[install] %s\n' "$*" >&2; }

APT_UPDATED=0
apt_install() {
  if [ "$(id -u)" -ne 0 ]; then
    log "missing system packages: $*; install them as root (apt-get install -y $*)"
    exit 1
  fi
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null
}

# --- system packages -------------------------------------------------------------------------
missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
# espeak-ng speaks the simulated terminals' cabin audio (simulator/video_clips.py; a tone without it)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
# HAProxy balances terminals and browsers over the gateways and APIs of `fleet up --topology cluster`
# (fleet/cluster.py) and its fault test (tests/integration/test_cluster_faults.py); Debian's 2.6.
[ -x /usr/sbin/haproxy ] || command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
# Go builds the load generator (simulator/loadgen). A machine without it gets Debian's golang-go, whose
# Go is GO_DEBIAN_VERSION: the `go` line of simulator/loadgen/go.mod must not be newer (a unit test
# keeps the two equal: tests/unit/simulator/test_loadgen_go_version.py).
GO_DEBIAN_PACKAGE=golang-go
GO_DEBIAN_VERSION=1.19
command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || missing+=("$GO_DEBIAN_PACKAGE")
# Chromium's headless shell drives the end-to-end tests of the console (Playwright with the system browser), the
# full Chromium the browser benchmarks (the browser an operator runs); a CJK font makes their screenshots of the
# Chinese UI readable (without one, Chinese renders as boxes).
if [ -f dashboards/package.json ]; then
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
  dpkg -s fonts-noto-cjk >/dev/null 2>&1 || dpkg -s fonts-wqy-zenhei >/dev/null 2>&1 || missing+=(fonts-noto-cjk)
fi

PYTHON="${FLEET_PYTHON:-}"
if [ -z "$PYTHON" ]; then
  PYTHON="$(command -v python3.11 || true)"
fi
if [ -z "$PYTHON" ]; then
  missing+=(python3.11 python3.11-venv)
  PYTHON=/usr/bin/python3.11
elif [ "$PYTHON" = /usr/bin/python3.11 ] && ! dpkg -s python3.11-venv >/dev/null 2>&1; then
  missing+=(python3.11-venv)  # Debian's python3.11 has no ensurepip without it
fi
if [ "${#missing[@]}" -gt 0 ]; then
  apt_install "${missing[@]}"
fi

# --- virtualenv ------------------------------------------------------------------------------
STAMP=.venv/.fleet-install-stamp
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -x .venv/bin/python ]; then
  log "creating .venv with $PYTHON"
  "$PYTHON" -m venv .venv
fi
if [ "$(cat "$STAMP" 2>/dev/null || true)" != "$want" ]; then
  log "pip install -e .[dev] (pyproject.toml changed or first install)"
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip setuptools wheel
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
  echo "$want" > "$STAMP"
fi

# --- Kafka jars (Maven Central, cached in .cache/kafka-jars) ----------------------------------
.venv/bin/python -c 'from fleet.services.kafka import ensure_jars; ensure_jars()'

# --- simulated cameras: H.264 clips (PyAV's libx264) and G.711A cabin audio, made once ---------------
.venv/bin/python -m simulator.video_clips

# --- the Go load generator (simulator/loadgen -> var/bin/fleet-loadgen; Go from the image or golang-go above) ---
.venv/bin/python - <<'PY'
import sys

from simulator.loadgen import BINARY, LoadgenUnavailable, ensure_built

before = BINARY.stat().st_mtime if BINARY.exists() else None
try:
    ensure_built()
except LoadgenUnavailable as exc:
    print(f"[install] {exc}: `fleet loadgen`, ingest_bench --source loadgen and make test need Go"
          " (on PATH or at /usr/local/go/bin/go; as root, make install installs Debian's golang-go)",
          file=sys.stderr)
else:
    if before is None or BINARY.stat().st_mtime != before:
        print(f"[install] load generator built: {BINARY}", file=sys.stderr)
PY

# --- console dependencies ------------------------------------------------------------
if [ -f dashboards/package.json ]; then
  lock=dashboards/package-lock.json
  dstamp=dashboards/node_modules/.fleet-install-stamp
  dwant="$(cat dashboards/package.json "$lock" 2>/dev/null | sha256sum | cut -d' ' -f1)"
  if [ "$(cat "$dstamp" 2>/dev/null || true)" != "$dwant" ]; then
    command -v npm >/dev/null 2>&1 || apt_install nodejs npm
    # Vite 8 needs Node >= 20.19 (package.json "engines"); Debian 12's own nodejs is 18.
    if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
      log "Node $(node --version) is too old for the console: install Node >= 20.19 (e.g. NodeSource's nodejs 20 or 22)"
      exit 1
    fi
    log "npm install in dashboards/"
    if [ -f "$lock" ]; then (cd dashboards && npm ci --no-audit --no-fund); else (cd dashboards && npm install --no-audit --no-fund); fi
    echo "$dwant" > "$dstamp"
  fi
fi
log "ok"
