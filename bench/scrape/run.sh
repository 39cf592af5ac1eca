#!/usr/bin/env bash
# Scrape benchmark (bench/README.md, "scrape"): extractor-scrape over NATS vs Crawlee, same pages, same Chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec node bench/scrape/run.mjs "$@"
