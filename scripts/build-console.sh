#!/usr/bin/env bash
# Builds the console (dashboards/ -> dashboards/dist) when its sources changed since the last
# successful build, so `make up` and `make test` serve what is in the tree without rebuilding
# every time. The inputs include scripts/ (the build's own Vite plugins: antd's static styles, the
# precompressed .br / .gz twins). The stamp (a hash of every build input) lives in node_modules/, next to the
# dependencies it was built with, and is written only after a successful build.
# Usage: scripts/build-console.sh [--force]
set -euo pipefail
cd "$(dirname "$0")/../dashboards"

log() { printf '[console] %s\n' "$*" >&2; }

if [ ! -f package.json ]; then
  log "no dashboards/package.json: nothing to build"
  exit 0
fi
if [ ! -d node_modules ]; then
  log "dashboards/node_modules is missing: run 'make install' first"
  exit 1
fi

STAMP=node_modules/.fleet-console-build
inputs=(package.json package-lock.json index.html api-reference.html vite.config.ts)
for f in tsconfig*.json .npmrc; do [ -f "$f" ] && inputs+=("$f"); done
want="$(
  { find src public scripts -type f 2>/dev/null; printf '%s\n' "${inputs[@]}"; } \
    | LC_ALL=C sort | while IFS= read -r f; do [ -f "$f" ] && sha256sum "$f"; done | sha256sum | cut -d' ' -f1
)"

# dist/index.html.br: the precompressed twins (scripts/precompress.ts) are part of a complete build.
if [ "${1:-}" != "--force" ] && [ -f dist/index.html ] && [ -f dist/index.html.br ] \
   && [ "$(cat "$STAMP" 2>/dev/null || true)" = "$want" ]; then
  log "dist/ is up to date"
  exit 0
fi

rm -f "$STAMP"
log "npm run build (sources changed or no build yet)"
started=$(date +%s)
npm run build --silent
echo "$want" > "$STAMP"
log "built dist/ in $(( $(date +%s) - started ))s"
