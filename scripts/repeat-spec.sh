#!/usr/bin/env bash
# Runs one jest spec (or a few) N times in a row and reports how many runs passed: the hunt for flaky tests.
#
#   scripts/repeat-spec.sh N <jest config> <spec path or pattern>... [-- extra jest args]
#   scripts/repeat-spec.sh 20 libs/messaging/jest.config.js libs/messaging/src/lib/messaging.client.spec.ts
#   scripts/repeat-spec.sh 5 apps/system-e2e/jest.config.js apps/system-e2e/test/tasks   # after `npm run build`
#
# Every run goes on even after a failure (a flaky test fails now and then, so the count is the finding). The log of
# each failed run is kept in $REPEAT_LOG_DIR (default: a fresh directory under /tmp, printed at the end), with the
# names of the tests that failed listed per run. Exit status: 0 when every run passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 3 ] || ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
runs=$1 config=$2
shift 2
specs=() extra=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; extra=("$@"); break; fi
  specs+=("$1"); shift
done

logs=${REPEAT_LOG_DIR:-$(mktemp -d /tmp/repeat-spec.XXXXXX)}
mkdir -p "$logs"
export NX_DAEMON=false NX_NO_CLOUD=true

passed=0 failed_runs=()
for i in $(seq 1 "$runs"); do
  log="$logs/run-$i.log"
  start=$(date +%s)
  if node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js --ci \
    -c "$config" "${specs[@]}" "${extra[@]}" >"$log" 2>&1; then
    passed=$((passed + 1))
    printf 'run %d/%d: pass (%ds)\n' "$i" "$runs" "$(($(date +%s) - start))"
    rm -f "$log"
  else
    failed_runs+=("$i")
    printf 'run %d/%d: FAIL (%ds), log %s\n' "$i" "$runs" "$(($(date +%s) - start))" "$log"
    grep -E '^\s+● ' "$log" | sed 's/^/    /' | sort -u
  fi
done

printf '%d/%d runs passed: %s %s\n' "$passed" "$runs" "$config" "${specs[*]}"
if [ ${#failed_runs[@]} -gt 0 ]; then
  printf 'failed runs: %s (logs in %s)\n' "${failed_runs[*]}" "$logs"
  exit 1
fi
rmdir "$logs" 2>/dev/null || true
exit 0
