#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run a command against a fresh database of the throwaway PostgreSQL
# cluster that the pg.start test started (scripts/pg.sh, SKED_PG_DIR):
#   with_pg.sh DBNAME COMMAND [ARGS...]
# The database DBNAME is (re)created, so tests running side by side never
# share one, and its URL reaches COMMAND as SKED_TEST_DB_URL and
# SKED_TEST_PG_URL. When SKED_TEST_PG_URL is already set, that server is
# used as is (an existing PostgreSQL instead of the throwaway one).
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: with_pg.sh DBNAME COMMAND..." >&2; exit 2; }
db=$1
shift
here=$(cd "$(dirname "$0")/../.." && pwd)

if [ -z "${SKED_TEST_PG_URL:-}" ]; then
    SKED_TEST_PG_URL=$("$here/scripts/pg.sh" db "$db")
fi
export SKED_TEST_PG_URL
export SKED_TEST_DB_URL=$SKED_TEST_PG_URL
exec "$@"
