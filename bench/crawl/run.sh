#!/usr/bin/env bash
# Crawl benchmark (bench/README.md, "crawl"): Trawl's crawl vs Crawlee's crawlers on the same local site.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec node bench/crawl/run.mjs "$@"
