#!/usr/bin/env bash
# Runs every test suite (unit, integration, e2e) once. Exit status is non-zero on any failure,
# and also when pytest collected no tests (its exit 5), so a broken collection never passes.
# Extra arguments go to pytest: scripts/test.sh -k gateway
set -uo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
.venv/bin/pytest tests/ --timeout="${FLEET_TEST_TIMEOUT_S:-600}" --durations=15 "$@"
rc=$?
echo "[test] pytest exit $rc after $(( $(date +%s) - started ))s" >&2
if [ "$rc" -eq 5 ]; then
  echo "[test] no tests were collected: failing" >&2
  exit 1
fi
exit "$rc"
