#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make run`: start sked server on a SQLite file with the example
# workflows (examples/workflows.yaml: one every 10 s, one in a daylight
# saving zone, one with retries, a timeout and a compensation, one with
# overlap skip), the API, metrics and dashboard on loopback, in the
# foreground until Ctrl-C. The database stays between runs, so stopping
# and starting again shows catch-up at work.
# Usage: scripts/run.sh path/to/sked [DIR]    (env: SKED_LISTEN)
set -euo pipefail

bin=${1:?usage: run.sh path/to/sked [DIR]}
dir=${2:-$(dirname "$bin")/demo}
here=$(cd "$(dirname "$0")/.." && pwd)
listen=${SKED_LISTEN:-127.0.0.1:8080}
url=http://$listen

mkdir -p "$dir"
db=sqlite:$(cd "$dir" && pwd)/sked.db

bold() { printf '\033[1m%s\033[0m\n' "$*"; }
[ -t 1 ] || bold() { printf '%s\n' "$*"; }

bold "sked $("$bin" --version | sed 's/^sked //'): a server with the example workflows"
echo "  database   $db"
echo "  workflows  examples/workflows.yaml"
echo "  dashboard  $url/"
echo
bold "Try, in another terminal:"
echo "  $bin --server $url schedule list"
echo "  $bin --server $url run list"
echo "  $bin --server $url events --follow"
echo "  (or: curl -s $url/api/v1/schedules | python3 -m json.tool)"
echo
echo "Ctrl-C stops the server. Logs follow."
echo
exec "$bin" server --db "$db" --workflows "$here/examples/workflows.yaml" \
    --listen "$listen"
