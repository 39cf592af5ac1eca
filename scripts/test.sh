#!/usr/bin/env bash
# Runs every check and test: lint, type-check, build, then unit, integration and end-to-end tests against real
# Redis, NATS (JetStream) and Chromium, which the tests start on free loopback ports. Installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bootstrap.sh
bootstrap

log "lint"
npx nx show projects >/dev/null   # computes the project graph the module-boundary rule reads
npx eslint . --max-warnings=0
npm run format:check --silent   # formatting as .prettierrc says (fix with `npm run format`)

log "type-check"
npx tsc -p tsconfig.json --noEmit

log "build"
npm run build --silent

jest() { node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js --ci --passWithNoTests "$@"; }

log "tests: unit, integration and in-process end-to-end (every project but system-e2e)"
jest "$@"

log "tests: whole-system end-to-end (every service as its own process, one suite at a time)"
jest -c apps/system-e2e/jest.config.js "$@"
