#!/usr/bin/env bash
# Starts the whole stack on this machine: installs what is missing, starts Redis and NATS (JetStream on) as local
# processes when none answers at REDIS_URL / NATS_URL, builds, then starts every service. Ctrl-C stops what it started,
# in order: the services first (SIGTERM, then up to TRAWL_STOP_GRACE_S seconds to finish their work), Redis and NATS
# last. Every child runs in its own session (setsid), so a terminal's Ctrl-C (SIGINT to the foreground process group)
# reaches only this script and npm, never Redis or NATS while the services still need them.
#
#   npm start                          # gateway on http://127.0.0.1:8080 (this machine only), with an API key made
#                                      # at random for this run: printed, and kept in $TRAWL_RUN_DIR/api-key
#   HOST=0.0.0.0 npm start             # gateway reachable from the network (set API_KEYS to keys of your own)
#   OPS_HOST=0.0.0.0 npm start         # the services' ops servers (/metrics, readiness) too; loopback by default
#   TRAWL_SIMULATOR=1 npm start        # extractors read the built-in upstream simulator instead of the internet
#   TRAWL_SIMULATOR=1 TRAWL_SIMULATOR_MODE=2026 npm start   # ... playing the 2025-2026 sites (walls, challenges)
#   SSRF_ALLOW_HOSTS=127.0.0.1 npm start   # let /scrape reach pages served on this machine (demos)
#   TRAWL_SKIP_BUILD=1 npm start       # start from the existing dist/ (no build)
#   TRAWL_CACHE=0 npm start            # no result cache (maxAge): no cache Redis on :6380
#   TRAWL_RUN_DIR=tmp/run              # where the logs, Redis' and NATS' data go
#   TRAWL_STOP_GRACE_S=15              # how long the services get to stop after SIGTERM before SIGKILL
#   TRAWL_METRICS_PORT_BASE=9465       # first metrics port of the non-gateway services (one per service, upwards)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bootstrap.sh
# TRAWL_SKIP_BOOTSTRAP=1: trust that Node, node_modules, Redis, NATS and Chromium are there (tests of this script).
if [ "${TRAWL_SKIP_BOOTSTRAP:-0}" = "1" ]; then export NX_DAEMON=false NX_NO_CLOUD=true; else bootstrap; fi

export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
RUN_DIR="${TRAWL_RUN_DIR:-tmp/run}"
mkdir -p "$RUN_DIR"
# No well-known development key: without API_KEYS, a key made at random for this run (printed below, and kept in
# $RUN_DIR/api-key, readable by this user only, for scripts and the README's examples).
if [ -z "${API_KEYS:-}" ]; then
  API_KEYS="dev-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  (umask 077 && printf '%s\n' "$API_KEYS" >"$RUN_DIR/api-key")
else
  rm -f "$RUN_DIR/api-key" # a key of an earlier run would mislead
fi
export API_KEYS
export WEBHOOK_SIGNING_SECRET="${WEBHOOK_SIGNING_SECRET:-whsec_$(printf 'trawl-dev-signing-secret' | base64)}"
export PORT="${PORT:-8080}"
export CHROMIUM_PATH="${CHROMIUM_PATH:-$(chromium_path || true)}"

# Services (stopped first) and infrastructure (Redis, NATS: stopped last) are kept apart so the stop has an order.
services=()
infra=()
# The services' own grace period is TASK_SHUTDOWN_GRACE_MS (10 s by default); a few seconds more for the exit itself.
STOP_GRACE_S="${TRAWL_STOP_GRACE_S:-$(( (${TASK_SHUTDOWN_GRACE_MS:-10000} + 999) / 1000 + 5 ))}"
INFRA_GRACE_S="${TRAWL_INFRA_STOP_GRACE_S:-10}"

alive_of() { local p out=(); for p in "$@"; do kill -0 "$p" 2>/dev/null && out+=("$p"); done; echo "${out[*]:-}"; }
# Sends SIGTERM to the given pids, waits up to $1 seconds for all of them to exit, then SIGKILLs whatever is left.
stop_pids() {
  local grace="$1"; shift
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  local deadline=$((SECONDS + grace)) left
  while left="$(alive_of "$@")"; [ -n "$left" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  if [ -n "$left" ]; then
    log "still running after ${grace}s, killing: $left"
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
  fi
  for p in "$@"; do wait "$p" 2>/dev/null || true; done
}
cleanup() {
  trap - TERM EXIT
  trap '' INT # a second Ctrl-C (npm forwards the first one again) must not cut the ordered stop short
  log "stopping the services (up to ${STOP_GRACE_S}s), then NATS and Redis"
  stop_pids "$STOP_GRACE_S" "${services[@]}"
  stop_pids "$INFRA_GRACE_S" "${infra[@]}"
  log "stopped"
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT
# Starts "$@" in the background in its own session; the pid is left in $started.
spawn() { setsid "$@" & started=$!; }

host_port() { local u="${1#*://}"; u="${u%%/*}"; u="${u%%,*}"; echo "${u%%:*} ${u##*:}"; }
reachable() { read -r h p < <(host_port "$1"); (exec 3<>"/dev/tcp/$h/$p") 2>/dev/null; }

if reachable "$REDIS_URL"; then log "using Redis at $REDIS_URL"; else
  read -r _ rport < <(host_port "$REDIS_URL")
  log "starting redis-server on 127.0.0.1:$rport"
  spawn redis-server --port "$rport" --bind 127.0.0.1 --dir "$RUN_DIR" --save '' --appendonly yes --maxmemory-policy noeviction >"$RUN_DIR/redis.log" 2>&1
  infra+=("$started")
fi
# The gateway's result cache (maxAge): its own small Redis that evicts, never the task Redis (ADR 0016).
if [ "${TRAWL_CACHE:-1}" = "1" ]; then
  export CACHE_REDIS_URL="${CACHE_REDIS_URL:-redis://127.0.0.1:6380}"
  if reachable "$CACHE_REDIS_URL"; then log "using the result cache's Redis at $CACHE_REDIS_URL"; else
    read -r _ cport < <(host_port "$CACHE_REDIS_URL")
    log "starting redis-server for the result cache on 127.0.0.1:$cport (64 MB, allkeys-lru)"
    spawn redis-server --port "$cport" --bind 127.0.0.1 --dir "$RUN_DIR" --save '' --appendonly no --maxmemory 64mb --maxmemory-policy allkeys-lru >"$RUN_DIR/cache-redis.log" 2>&1
    infra+=("$started")
  fi
fi
if reachable "$NATS_URL"; then log "using NATS at $NATS_URL (JetStream must be enabled; max_payload 8MB for large batches)"; else
  read -r _ nport < <(host_port "$NATS_URL")
  log "starting nats-server -js on 127.0.0.1:$nport"
  spawn nats-server -c deploy/nats/nats.conf -a 127.0.0.1 -p "$nport" -js -sd "$RUN_DIR/jetstream" >"$RUN_DIR/nats.log" 2>&1
  infra+=("$started")
fi

if [ "${TRAWL_SKIP_BUILD:-0}" = "1" ]; then log "not building (TRAWL_SKIP_BUILD=1)"; else
  log "building"
  npm run build --silent
fi

if [ "${TRAWL_SIMULATOR:-0}" = "1" ] && [ -f dist/tools/upstream-simulator/src/main.js ]; then
  export SIMULATOR_PORT="${SIMULATOR_PORT:-8090}"
  export SEARCH_BASE_URL="http://127.0.0.1:$SIMULATOR_PORT" MAPS_BASE_URL="http://127.0.0.1:$SIMULATOR_PORT"
  export RETAIL_BASE_URL="http://127.0.0.1:$SIMULATOR_PORT"
  export SSRF_ALLOW_HOSTS="${SSRF_ALLOW_HOSTS:+$SSRF_ALLOW_HOSTS,}127.0.0.1"
  sim_mode="${TRAWL_SIMULATOR_MODE:-${SIMULATOR_MODE:-classic}}"
  log "starting the upstream simulator on 127.0.0.1:$SIMULATOR_PORT (mode $sim_mode)"
  SIMULATOR_MODE="$sim_mode" spawn node dist/tools/upstream-simulator/src/main.js >"$RUN_DIR/simulator.log" 2>&1
  services+=("$started")
fi

metrics_port="${TRAWL_METRICS_PORT_BASE:-9465}"
for main in dist/apps/*/src/main.js; do
  name="$(basename "$(dirname "$(dirname "$main")")")"
  case "$name" in *-e2e) continue ;; esac
  if [ "$name" = gateway ]; then mport="$PORT"; else mport=$metrics_port; metrics_port=$((metrics_port + 1)); fi
  log "starting $name (log: $RUN_DIR/$name.log)"
  METRICS_PORT="$mport" INSTANCE_ID="$name-$(hostname)" spawn node "$main" >"$RUN_DIR/$name.log" 2>&1
  services+=("$started")
done

log "gateway: http://${HOST:-127.0.0.1}:$PORT/api/openapi/v1 (docs: /api/openapi/v1/docs), API key: ${API_KEYS%%,*}"
log "Ctrl-C stops everything started here"
wait -n "${services[@]}" "${infra[@]}" || true
log "a process exited; see $RUN_DIR/*.log"
