#!/usr/bin/env bash
# Runs every check once: ruff, the import layering contracts (lint-imports) and mypy, the console's eslint, tsc, vitest and build (when
# dashboards/ has a package.json), go vet and go test of the load generator (simulator/loadgen), then
# every pytest suite (unit, integration, e2e against the built console).
# Exit status is non-zero on any failure, and also when pytest collected no tests (its exit 5),
# so a broken collection never passes.
#
# Two lanes run side by side, because most of a test's time is waiting (for Kafka, a worker, a browser), not
# CPU (docs/performance.md "Test suite time"):
#   core:    pytest tests/unit tests/integration
#   console: eslint, tsc, vitest, the build and its bundle budget, go vet / go test, then pytest tests/e2e
# Each lane's pytest starts its own PostgreSQL and Kafka (tests/conftest.py), so neither sees the other's data.
# Their output is prefixed with the lane's name; both lanes' summaries are printed again at the end.
#
# Extra arguments go to pytest and run one pytest over unit, integration and e2e in one lane (the order of
# a single run): scripts/test.sh -k gateway
# FLEET_TEST_SKIP_CONSOLE=1 skips the console's own checks (pytest's e2e still needs a build).
# FLEET_TEST_SERIAL=1 runs the two lanes one after the other.
set -uo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
export PYTHONUNBUFFERED=1  # the lanes stream through a pipe
logs="var/test-logs"
mkdir -p "$logs"

for check in ".venv/bin/ruff check ." ".venv/bin/lint-imports --no-cache" ".venv/bin/mypy"; do
  if ! $check; then
    echo "[test] $check failed" >&2
    exit 1
  fi
done

pytest_args=(--timeout="${FLEET_TEST_TIMEOUT_S:-600}" --durations=30)

# Runs pytest; exit 5 (nothing collected) is a failure too.
run_pytest() {
  .venv/bin/pytest "$@" "${pytest_args[@]}"
  local rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "[test] no tests were collected: failing" >&2
    return 1
  fi
  return "$rc"
}

console_checks() {
  if [ -f dashboards/package.json ] && [ "${FLEET_TEST_SKIP_CONSOLE:-0}" != "1" ]; then
    for step in lint typecheck test; do
      t0=$(date +%s)
      if ! (cd dashboards && npm run --silent "$step"); then
        echo "[test] console: npm run $step failed" >&2
        return 1
      fi
      echo "[test] console: npm run $step ok ($(( $(date +%s) - t0 ))s)" >&2
    done
    # The end-to-end tests drive this build; the script skips it when nothing changed since the
    # last successful build of exactly these sources.
    if ! scripts/build-console.sh; then
      echo "[test] console: npm run build failed" >&2
      return 1
    fi
    # The first load's JavaScript budget (docs/performance.md): a screen's weight belongs in its lazy chunk.
    if ! (cd dashboards && npm run --silent bundle-size | tail -n 3); then
      echo "[test] console: the initial JavaScript is over its budget (npm run bundle-size)" >&2
      return 1
    fi
  fi
}

# The Go load generator (simulator/loadgen, standard library only): go vet and its unit tests. Go is part
# of the machine image (/usr/local/go); without it this fails here rather than skipping them.
go_checks() {
  local GO
  GO="$(command -v go || true)"
  if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then
    GO=/usr/local/go/bin/go
  fi
  if [ -z "$GO" ]; then
    echo "[test] Go is not installed: simulator/loadgen needs it for go vet, go test and its pytest tests" \
         "(expected at /usr/local/go/bin/go; see simulator/README.md)" >&2
    return 1
  fi
  local go_env=(GOTOOLCHAIN=local CGO_ENABLED=0)  # no toolchain or module download; no C compiler needed
  if [ -z "${HOME:-}" ]; then
    go_env+=(GOCACHE="$PWD/var/go-cache")  # go needs a build cache; CI may run without HOME
  fi
  for step in vet test; do
    t0=$(date +%s)
    if ! (cd simulator/loadgen && env "${go_env[@]}" "$GO" "$step" ./...); then
      echo "[test] simulator/loadgen: go $step failed" >&2
      return 1
    fi
    echo "[test] simulator/loadgen: go $step ok ($(( $(date +%s) - t0 ))s)" >&2
  done
}

core_lane() {
  run_pytest tests/unit tests/integration
}

console_lane() {
  console_checks && go_checks && run_pytest tests/e2e
}

# One lane's output, prefixed, to the terminal and to its log.
lane() {
  local name=$1 fn=$2
  ( "$fn" 2>&1; echo "[test] lane $name exit $?" ) | tee "$logs/$name.log" | sed -u "s/^/[$name] /"
}

if [ "$#" -gt 0 ]; then
  console_checks && go_checks && run_pytest tests/unit tests/integration tests/e2e "$@"
  rc=$?
  echo "[test] pytest exit $rc after $(( $(date +%s) - started ))s in total" >&2
  exit "$rc"
fi

if [ "${FLEET_TEST_SERIAL:-0}" = "1" ]; then
  lane core core_lane
  lane console console_lane
else
  trap 'trap - INT TERM; kill 0' INT TERM  # Ctrl-C or CI's stop ends both lanes and their servers
  lane core core_lane &
  core_pid=$!
  lane console console_lane &
  console_pid=$!
  wait "$core_pid" "$console_pid"
fi

rc=0
for name in core console; do
  echo "[test] ---- $name: summary" >&2
  if grep -q "^\[test\] lane $name exit 0$" "$logs/$name.log"; then
    grep -E "^=+ .*(passed|failed|error).* =+$" "$logs/$name.log" | tail -n 1 >&2
  else
    rc=1
    grep -E "^(FAILED|ERROR)" "$logs/$name.log" | tail -n 60 >&2
    echo "[test] the end of its log:" >&2
    tail -n 30 "$logs/$name.log" >&2
  fi
done
echo "[test] exit $rc after $(( $(date +%s) - started ))s in total (logs: $logs/core.log, $logs/console.log)" >&2
exit "$rc"
