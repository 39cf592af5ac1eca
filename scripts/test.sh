#!/usr/bin/env bash
# Runs every check and test: lint, type-check, build, then unit, integration and end-to-end tests against real
# Redis, NATS (JetStream) and Chromium, which the tests start on free loopback ports. Installs what is missing.
#
# Lint (eslint, then the format check) runs beside type-check and build, which run one after the other: none of them
# starts a server or a browser, and each is mostly one process on one core. The two test phases run alone and one
# after the other (both start Redis, NATS and Chromium, and their waits are what a second load would upset); the
# second runs even when the first failed. At the end (also after a failure) each phase's wall-clock time is printed;
# see README, "Test phases and where the time goes".
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bootstrap.sh
bootstrap test

# Wall-clock seconds of each phase, printed at the end in this order (also after a failure: what ran so far).
ORDER=("lint (eslint)" "format check (prettier)" "type-check" "build" "tests: unit + integration" "tests: system-e2e")
declare -A took=()
seconds() { date +%s; }
report() {
  local status=$? name
  collect
  [ ${#took[@]} -gt 0 ] || return $status
  log "time per phase (wall clock; lint and the format check ran beside type-check and build)"
  for name in "${ORDER[@]}"; do
    [ -n "${took[$name]:-}" ] && printf '  %-28s %s\n' "$name" "${took[$name]}"
  done
  printf '  %-28s %ss\n' "total" "$(($(seconds) - suite_start))"
  return $status
}
# Each step's time is a line "<name>\t<seconds>" in $logs/times (steps run in the background append to it too).
logs=$(mktemp -d /tmp/trawl-test.XXXXXX)
suite_start=$(seconds)
trap report EXIT

timed() {
  local name=$1 start status=0
  shift
  start=$(seconds)
  "$@" || status=$?
  printf '%s\t%s%s\n' "$name" "$(($(seconds) - start))" "$([ $status -eq 0 ] || echo ' (failed)')" >>"$logs/times"
  return $status
}
collect() {
  [ -f "$logs/times" ] || return 0
  while IFS=$'\t' read -r name secs; do took[$name]="${secs%% *}s${secs#"${secs%% *}"}"; done <"$logs/times"
  : >"$logs/times"
}

# Lint and the format check, one after the other, in the background with their output in a file.
lint() {
  timed "lint (eslint)" sh -c 'npx nx show projects >/dev/null && npx eslint . --max-warnings=0' &&
    timed "format check (prettier)" npm run format:check --silent   # fix with `npm run format`
}
lint >"$logs/lint.log" 2>&1 &
lint_pid=$!

# Waits for lint and the format check, prints their output, and fails when they did.
lint_done() {
  local status=0
  wait $lint_pid || status=$?
  cat "$logs/lint.log"
  return $status
}

log "lint and format check in the background; type-check"
timed "type-check" npx tsc -p tsconfig.json --noEmit || { lint_done; exit 1; }
log "build"
timed "build" npm run build --silent || { lint_done; exit 1; }
log "lint and format check (waiting for them; their output follows)"
lint_done || die "lint or format check failed"

# --forceExit: once every test has run, jest exits even when a failed test left a connection open (it otherwise
# waits for ever, "Jest did not exit", and the run ends at CI's time limit without the next phase or a report).
jest() {
  node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js --ci --passWithNoTests \
    --forceExit "$@"
}

# A failure in the first test phase does not skip the second: one run tells every failing test (the exit status is
# still a failure).
failed=()
log "tests: unit, integration and in-process end-to-end (every project but system-e2e)"
timed "tests: unit + integration" jest "$@" || failed+=("unit + integration")

log "tests: whole-system end-to-end (every service as its own process, one suite at a time)"
timed "tests: system-e2e" jest -c apps/system-e2e/jest.config.js "$@" || failed+=("system-e2e")
collect
rm -rf "$logs"
[ ${#failed[@]} -eq 0 ] || die "tests failed: ${failed[*]}"
