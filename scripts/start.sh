#!/usr/bin/env bash
# Starts the whole stack on this machine: installs what is missing, starts Redis and NATS (JetStream on) as local
# processes when none answers at REDIS_URL / NATS_URL, builds, then starts every service. Ctrl-C stops what it started.
#
#   npm start                          # gateway on http://127.0.0.1:8080, API key "dev-key"
#   TRAWL_SIMULATOR=1 npm start        # extractors read the built-in upstream simulator instead of the internet
#   TRAWL_SIMULATOR=1 TRAWL_SIMULATOR_MODE=2026 npm start   # ... playing the 2025-2026 sites (walls, challenges)
#   SSRF_ALLOW_HOSTS=127.0.0.1 npm start   # let /scrape reach pages served on this machine (demos)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bootstrap.sh
bootstrap

export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
export API_KEYS="${API_KEYS:-dev-key}"
export WEBHOOK_SIGNING_SECRET="${WEBHOOK_SIGNING_SECRET:-whsec_$(printf 'trawl-dev-signing-secret' | base64)}"
export PORT="${PORT:-8080}"
export CHROMIUM_PATH="${CHROMIUM_PATH:-$(chromium_path || true)}"
RUN_DIR="${TRAWL_RUN_DIR:-tmp/run}"
mkdir -p "$RUN_DIR"

pids=()
cleanup() {
  trap - INT TERM EXIT
  log "stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup INT TERM EXIT

host_port() { local u="${1#*://}"; u="${u%%/*}"; u="${u%%,*}"; echo "${u%%:*} ${u##*:}"; }
reachable() { read -r h p < <(host_port "$1"); (exec 3<>"/dev/tcp/$h/$p") 2>/dev/null; }

if reachable "$REDIS_URL"; then log "using Redis at $REDIS_URL"; else
  read -r _ rport < <(host_port "$REDIS_URL")
  log "starting redis-server on 127.0.0.1:$rport"
  redis-server --port "$rport" --bind 127.0.0.1 --dir "$RUN_DIR" --save '' --appendonly yes --maxmemory-policy noeviction >"$RUN_DIR/redis.log" 2>&1 &
  pids+=($!)
fi
if reachable "$NATS_URL"; then log "using NATS at $NATS_URL (JetStream must be enabled; max_payload 8MB for large batches)"; else
  read -r _ nport < <(host_port "$NATS_URL")
  log "starting nats-server -js on 127.0.0.1:$nport"
  nats-server -c deploy/nats/nats.conf -a 127.0.0.1 -p "$nport" -js -sd "$RUN_DIR/jetstream" >"$RUN_DIR/nats.log" 2>&1 &
  pids+=($!)
fi

log "building"
npm run build --silent

if [ "${TRAWL_SIMULATOR:-0}" = "1" ] && [ -f dist/tools/upstream-simulator/src/main.js ]; then
  export SIMULATOR_PORT="${SIMULATOR_PORT:-8090}"
  export SEARCH_BASE_URL="http://127.0.0.1:$SIMULATOR_PORT" MAPS_BASE_URL="http://127.0.0.1:$SIMULATOR_PORT"
  export RETAIL_BASE_URL="http://127.0.0.1:$SIMULATOR_PORT"
  export SSRF_ALLOW_HOSTS="${SSRF_ALLOW_HOSTS:+$SSRF_ALLOW_HOSTS,}127.0.0.1"
  sim_mode="${TRAWL_SIMULATOR_MODE:-${SIMULATOR_MODE:-classic}}"
  log "starting the upstream simulator on 127.0.0.1:$SIMULATOR_PORT (mode $sim_mode)"
  SIMULATOR_MODE="$sim_mode" node dist/tools/upstream-simulator/src/main.js >"$RUN_DIR/simulator.log" 2>&1 &
  pids+=($!)
fi

metrics_port=9465
for main in dist/apps/*/src/main.js; do
  name="$(basename "$(dirname "$(dirname "$main")")")"
  case "$name" in *-e2e) continue ;; esac
  if [ "$name" = gateway ]; then mport="$PORT"; else mport=$metrics_port; metrics_port=$((metrics_port + 1)); fi
  log "starting $name (log: $RUN_DIR/$name.log)"
  METRICS_PORT="$mport" INSTANCE_ID="$name-$(hostname)" node "$main" >"$RUN_DIR/$name.log" 2>&1 &
  pids+=($!)
done

log "gateway: http://127.0.0.1:$PORT/api/openapi/v1 (docs: /api/openapi/v1/docs), API key: ${API_KEYS%%,*}"
log "Ctrl-C stops everything started here"
wait -n "${pids[@]}" || true
log "a process exited; see $RUN_DIR/*.log"
