#!/usr/bin/env bash
# npm run bench: builds once, then runs every bench/<name>/run.sh (each prints JSON lines). See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build --silent
for b in bench/*/run.sh; do
  echo "## ${b%/run.sh}"
  SKIP_BUILD=1 bash "$b"
done
