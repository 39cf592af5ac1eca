#!/usr/bin/env bash
# Tasks benchmark (see bench/README.md): a 10,000-URL batch through gateway, task-service, extractor-scrape (http
# engine) and webhook-dispatcher against ../shared/bench/site.mjs, beside bare BullMQ on the same Redis.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec node bench/tasks/run.mjs "$@"
