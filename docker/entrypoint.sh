#!/bin/sh
# Picks the Mailroom process to run in this container:
#   entrypoint.sh gateway|keys|domains|emails|webhook-dispatcher  an app
#   entrypoint.sh migrate                                         every service's migrations, then exit
#   entrypoint.sh cli ARGS…                                       the admin CLI (e.g. cli keys create --name admin)
# `exec` hands PID 1's signals (from tini) straight to node.
set -eu
cd "$(dirname "$0")/.."

command="${1:-gateway}"
[ "$#" -gt 0 ] && shift

case "$command" in
  gateway | keys | domains | emails | webhook-dispatcher)
    exec node "dist/apps/$command/src/main.js" "$@"
    ;;
  migrate)
    exec node dist/scripts/migrate.js "$@"
    ;;
  cli)
    exec node dist/scripts/cli.js "$@"
    ;;
  *)
    echo "usage: entrypoint.sh gateway|keys|domains|emails|webhook-dispatcher|migrate|cli [args…] (got: $command)" >&2
    exit 64
    ;;
esac
