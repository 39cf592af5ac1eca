#!/usr/bin/env bash
# Bench of issue 3 item 3: (a) parsers vs a bare cheerio.load on the shared fixtures, (b) /extract/search through
# gateway + NATS + extractor-search against the upstream simulator vs the same parse in one process.
#   bash bench/parse-and-path/run.sh            (builds first; SKIP_BUILD=1 to reuse dist/)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "${SKIP_BUILD:-0}" = 1 ] || npm run build --silent
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), node $(node -v)"
node bench/parse-and-path/parsers.mjs --seconds "${PARSE_SECONDS:-5}"
node bench/parse-and-path/path.mjs --requests "${REQUESTS:-400}" --concurrency "${CONCURRENCY:-8}" --latency-requests "${LATENCY_REQUESTS:-200}"
