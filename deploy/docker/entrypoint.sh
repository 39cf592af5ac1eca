#!/bin/sh
# Starts the service named by TRAWL_SERVICE (or the first argument): node dist/apps/<service>/src/main.js.
set -eu
service="${TRAWL_SERVICE:-${1:-}}"
main="/app/dist/apps/${service}/src/main.js"
if [ -z "$service" ] || [ ! -f "$main" ]; then
  echo "trawl: set TRAWL_SERVICE to one of: $(ls /app/dist/apps | grep -v -- '-e2e$' | tr '\n' ' ')" >&2
  exit 64
fi
exec node "$main"
