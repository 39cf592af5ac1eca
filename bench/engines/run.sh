#!/usr/bin/env bash
# Bench of issue 12 must-show 6: searches/s by engine (http, browser, auto) against the simulator's classic and 2026
# modes; rendered searches/s vs /scrape browser pages/s on the same pages; auto vs http on the HTTP-friendly upstream.
#   bash bench/engines/run.sh            (builds first; SKIP_BUILD=1 to reuse dist/)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "${SKIP_BUILD:-0}" = 1 ] || npm run build --silent
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), node $(node -v), load $(cut -d' ' -f1-3 /proc/loadavg)"
node bench/engines/run.mjs --requests "${REQUESTS:-60}" --concurrency "${CONCURRENCY:-4}" --rounds "${ROUNDS:-2}"
