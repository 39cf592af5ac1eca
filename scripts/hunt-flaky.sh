#!/usr/bin/env bash
# The hunt for flaky tests: runs each integration spec (those that start real Redis, NATS or Chromium) N times in a
# row with scripts/repeat-spec.sh, one spec at a time, and prints a table of pass counts at the end.
#
#   scripts/hunt-flaky.sh N [spec...]      # default: every spec that uses the real-server harnesses, but system-e2e
#   scripts/hunt-flaky.sh 5 libs/messaging/src/lib/draining-nats.server.spec.ts
#   HUNT_SYSTEM=1 scripts/hunt-flaky.sh 3  # also apps/system-e2e (runs from dist/: `npm run build` first)
#
# A spec's project (and so its jest config) is the first two parts of its path (apps/<app>, libs/<lib>, tools/<tool>).
# Logs of failed runs stay under $HUNT_LOG_DIR (default: a fresh directory under /tmp). Exit status 1 when any run
# failed.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
runs=$1
shift
if [ $# -gt 0 ]; then
  specs=("$@")
else
  # The real-server harnesses of libs/testing, the browser pool and the whole-system stack.
  mapfile -t specs < <(git grep -lE 'startNats|startRedis|startStack|resolveChromiumPath|startBuiltSimulator' -- '*.spec.ts' '*.e2e-spec.ts' \
    | grep -v '^libs/testing/src/lib/.*harness\.ts$' \
    | { if [ "${HUNT_SYSTEM:-0}" = 1 ]; then cat; else grep -v '^apps/system-e2e/'; fi } | sort)
fi

logs=${HUNT_LOG_DIR:-$(mktemp -d /tmp/hunt-flaky.XXXXXX)}
summary=()
flaky=0
for spec in "${specs[@]}"; do
  project=$(echo "$spec" | cut -d/ -f1-2)
  name=$(echo "$spec" | tr '/' '_')
  start=$(date +%s)
  out=$(REPEAT_LOG_DIR="$logs/$name" scripts/repeat-spec.sh "$runs" "$project/jest.config.js" "$spec" 2>&1)
  status=$?
  echo "$out" | grep -E 'FAIL|● ' || true
  line="$(echo "$out" | grep -E '^[0-9]+/[0-9]+ runs passed' | cut -d: -f1)  $spec  ($(($(date +%s) - start))s)"
  echo "$line"
  summary+=("$line")
  [ $status -eq 0 ] || flaky=1
done

echo
echo "hunt: $runs runs of each spec ($(date -u +%F), $(nproc) cores); failed-run logs in $logs"
printf '%s\n' "${summary[@]}"
exit $flaky
