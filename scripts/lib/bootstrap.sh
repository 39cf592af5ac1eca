# Sourced by scripts/start.sh and scripts/test.sh: makes sure what Trawl needs is on the machine.
# - npm dependencies (npm ci when node_modules is missing or older than package-lock.json)
# - redis-server, nats-server and Chromium (apt-get on Debian/Ubuntu, as root or through sudo), and the EasyList files
#   blockAds loads (Debian's webext-ublock-origin-chromium, ADR 0030)

log() { printf '\033[1;34m[trawl]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[trawl]\033[0m %s\n' "$*" >&2; exit 1; }

ensure_node() {
  command -v node >/dev/null || die "Node.js 20.19+ is required"
  local major minor
  major=$(node -p 'process.versions.node.split(".")[0]')
  minor=$(node -p 'process.versions.node.split(".")[1]')
  if [ "$major" -lt 20 ] || { [ "$major" -eq 20 ] && [ "$minor" -lt 19 ]; }; then
    die "Node.js 20.19+ is required (found $(node -v)): Nest 12 is ES modules only and needs require(esm)"
  fi
}

ensure_node_modules() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "installing npm dependencies (npm ci)"
    # A registry mirror may lack some platform-specific optional binaries (other OSes' @swc/core builds, say), so the
    # lock file has no entry for them and `npm ci` refuses it as out of sync. `npm install` honours the same lock and
    # skips optional packages it cannot fetch, so it is the fallback.
    if ! npm ci --no-audit --no-fund; then
      log "npm ci refused the lock file; installing with npm install (same lock, optional binaries may be skipped)"
      npm install --no-audit --no-fund
    fi
  fi
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $* (install redis-server, nats-server and chromium yourself, or run as root)"
  fi
}

chromium_path() {
  for c in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  return 1
}

ensure_system_packages() {
  local missing=()
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v nats-server >/dev/null || missing+=(nats-server)
  chromium_path >/dev/null || missing+=(chromium)
  # blockAds' filter lists (BLOCK_ADS_LISTS' default): EasyList as uBlock Origin's Debian package ships it.
  [ -f /usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt ] ||
    missing+=(webext-ublock-origin-chromium)
  if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
    log "installing ${missing[*]} with apt-get"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  # Stock packages start their own daemons; Trawl starts the ones it needs on its own ports, so none are required.
}

# What only the tests use: runc and the container runtimes' default seccomp profile, for the test that starts Chromium
# in a container with the manifests' security context (tools/deploy/test/chromium-sandbox-container.spec.ts). Best
# effort: without them that test says it is skipped and why.
ensure_test_packages() {
  local missing=()
  command -v runc >/dev/null || missing+=(runc)
  [ -f /usr/share/containers/seccomp.json ] || missing+=(golang-github-containers-common)
  if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
    log "installing ${missing[*]} with apt-get (for the container sandbox test)"
    { as_root apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } ||
      log "could not install ${missing[*]}: the container sandbox test will be skipped"
  fi
}

bootstrap() {
  ensure_node
  ensure_system_packages
  if [ "${1:-}" = test ]; then ensure_test_packages; fi
  ensure_node_modules
  export NX_DAEMON=false NX_NO_CLOUD=true
}
