#!/bin/sh
# Starts the service named by TRAWL_SERVICE (or the first argument): node dist/apps/<service>/src/main.js.
set -eu
app_dir="${TRAWL_APP_DIR:-/app}"
service="${TRAWL_SERVICE:-${1:-}}"
main="${app_dir}/dist/apps/${service}/src/main.js"
if [ -z "$service" ] || [ ! -f "$main" ]; then
  echo "trawl: set TRAWL_SERVICE to one of: $(ls "${app_dir}/dist/apps" 2>/dev/null | grep -v -- '-e2e$' | tr '\n' ' ')" >&2
  exit 64
fi
exec node "$main"
