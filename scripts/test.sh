#!/usr/bin/env bash
# Runs every check once: ruff, the import layering contracts (lint-imports) and mypy, the console's eslint, tsc, vitest and build (when
# dashboards/ has a package.json; beside the other checks, its output in var/test/console.log, printed at the end),
# go vet and go test of the load generator (simulator/loadgen), then every pytest suite (unit, integration, e2e
# against the built console, started once the console's checks and build are done) on three pytest workers.
# Exit status is non-zero on any failure, and also when pytest collected no tests (its exit 5),
# so a broken collection never passes. Extra arguments go to pytest: scripts/test.sh -k gateway
# FLEET_TEST_SKIP_CONSOLE=1 skips the console's own checks (pytest's e2e still needs a build).
set -uo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)

# The console's checks and build run beside the Python checks and pytest (they are one process each, and this
# machine has two cores): pytest starts the end-to-end tests only once they are done (tests/e2e/conftest.py
# waits for the status file), so the browser tests never run beside them and always drive this build.
console_pid=""
console_log="var/test/console.log"
console_status="var/test/console.status"
if [ -f dashboards/package.json ] && [ "${FLEET_TEST_SKIP_CONSOLE:-0}" != "1" ]; then
  mkdir -p var/test
  rm -f "$console_status" "$console_log"
  set -m  # its own process group, so stop_console ends npm and its children too
  (
    rc=0
    for step in lint typecheck test; do
      t0=$(date +%s)
      if ! (cd dashboards && npm run --silent "$step"); then
        echo "[test] console: npm run $step failed" >&2
        rc=1
        break
      fi
      echo "[test] console: npm run $step ok ($(( $(date +%s) - t0 ))s)" >&2
    done
    # The end-to-end tests drive this build; the script skips it when nothing changed since the
    # last successful build of exactly these sources.
    if [ "$rc" -eq 0 ] && ! scripts/build-console.sh; then
      echo "[test] console: npm run build failed" >&2
      rc=1
    fi
    # The first load's JavaScript budget (docs/performance.md): a screen's weight belongs in its lazy chunk.
    if [ "$rc" -eq 0 ] && ! (cd dashboards && npm run --silent bundle-size | tail -n 3); then
      echo "[test] console: the initial JavaScript is over its budget (npm run bundle-size)" >&2
      rc=1
    fi
    echo "$rc" > "$console_status.tmp" && mv "$console_status.tmp" "$console_status"
  ) > "$console_log" 2>&1 &
  console_pid=$!
  set +m
  trap stop_console EXIT
  export FLEET_TEST_CONSOLE_STATUS="$PWD/$console_status"
fi

# The console's result, once: its log, and whether it failed.
console_failed() {
  [ -n "$console_pid" ] || return 1
  wait "$console_pid"
  console_pid=""
  cat "$console_log" >&2
  [ "$(cat "$console_status" 2>/dev/null)" != "0" ]
}
stop_console() {
  if [ -n "$console_pid" ]; then
    kill -- "-$console_pid" 2>/dev/null
    wait "$console_pid" 2>/dev/null
    console_pid=""
  fi
}

for check in ".venv/bin/ruff check ." ".venv/bin/lint-imports --no-cache" ".venv/bin/mypy"; do
  if ! $check; then
    echo "[test] $check failed" >&2
    stop_console
    exit 1
  fi
done

# The Go load generator (simulator/loadgen, standard library only): go vet and its unit tests. Go is on
# PATH (make install installs Debian's golang-go when it is missing) or in /usr/local/go; without it this
# fails here rather than skipping them.
GO="$(command -v go || true)"
if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then
  GO=/usr/local/go/bin/go
fi
if [ -z "$GO" ]; then
  echo "[test] Go is not installed: simulator/loadgen needs it for go vet, go test and its pytest tests" \
       "(run make install as root, which installs Debian's golang-go; see simulator/README.md)" >&2
  stop_console
  exit 1
fi
go_env=(GOTOOLCHAIN=local CGO_ENABLED=0)  # no toolchain or module download; no C compiler needed
if [ -z "${HOME:-}" ]; then
  go_env+=(GOCACHE="$PWD/var/go-cache")  # go needs a build cache; CI may run without HOME
fi
for step in vet test; do
  t0=$(date +%s)
  if ! (cd simulator/loadgen && env "${go_env[@]}" "$GO" "$step" ./...); then
    echo "[test] simulator/loadgen: go $step failed" >&2
    stop_console
    exit 1
  fi
  echo "[test] simulator/loadgen: go $step ok ($(( $(date +%s) - t0 ))s)" >&2
done

# Three pytest workers (FLEET_TEST_WORKERS; 0 runs in this process): the end-to-end suite on one, the unit and
# integration modules on whichever of the others is free (tests/conftest.py pytest_xdist_make_scheduler). Each worker
# starts its own PostgreSQL and Kafka (tests/support/stack.py), so a test sees only its worker's servers. Three on two
# cores: with two the cores were busy 75 % of the run (the tests wait for reports, answers and time-outs), with three
# 85 %, and the run ends sooner (docs/performance.md "The whole suite's time: three pytest workers").
workers="${FLEET_TEST_WORKERS:-3}"
.venv/bin/pytest tests/unit tests/integration tests/e2e -n "$workers" --timeout="${FLEET_TEST_TIMEOUT_S:-600}" \
  --durations=30 "$@"
rc=$?
if console_failed; then
  echo "[test] the console's checks or build failed (above; $console_log)" >&2
  [ "$rc" -ne 0 ] || rc=1
fi
echo "[test] pytest exit $rc after $(( $(date +%s) - started ))s in total" >&2
if [ "$rc" -eq 5 ]; then
  echo "[test] no tests were collected: failing" >&2
  exit 1
fi
exit "$rc"
