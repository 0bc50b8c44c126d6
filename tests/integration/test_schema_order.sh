#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The order of the schema migrations. tools/embed_sql.cmake embeds the
# migrations of src/store/schema: numbered 1, 2, 3... in each dialect,
# the same numbers in both. A migration missing (a gap) or a number
# given twice stops the build with a message naming the number expected,
# and nothing is written. And a database of a schema version newer than
# this sked's is refused, naming both versions, and left as it was.
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Ends with "N passed, M failed".
set -u

. "$(dirname "$0")/cli_lib.sh"
schema=$src/src/store/schema
args=()

# embed DIR: run embed_sql.cmake on DIR into $tmp/out.c; its messages in
# $tmp/err, its exit status in rc.
embed() {
    rm -f "$tmp/out.c"
    cmake -DSRC="$1" -DOUT="$tmp/out.c" -P "$src/tools/embed_sql.cmake" \
        >"$tmp/err" 2>&1
    rc=$?
}

name="the migrations of the tree are embedded"
embed "$schema"
if [ $rc -eq 0 ] && [ -s "$tmp/out.c" ]; then pass; else
    args=(embed "$schema"); fail "exit $rc: $(cat "$tmp/err")"; fi

name="both dialects have the same numbers"
nums() { ls "$schema/$1" | sed -n 's/^\([0-9]\{4\}\)_.*\.sql$/\1/p' | tr '\n' ' '; }
[ "$(nums sqlite)" = "$(nums pg)" ] && pass ||
    fail "sqlite: $(nums sqlite); pg: $(nums pg)"

# A copy of the tree with one change.
copy() {
    rm -rf "$tmp/schema"
    cp -r "$schema" "$tmp/schema"
}

name="a missing migration stops the build, naming its number"
copy
last=$(ls "$schema/sqlite" | tail -1)
rm "$tmp/schema/sqlite/0002_"*.sql
embed "$tmp/schema"
if [ $rc -ne 0 ] && grep -q "0003_.*expected migration 2\$" "$tmp/err" &&
    [ ! -e "$tmp/out.c" ]; then pass; else
    fail "exit $rc, out.c $( [ -e "$tmp/out.c" ] && echo written || echo absent): $(cat "$tmp/err")"; fi

name="a gap after the last migration stops the build"
copy
n=$((10#${last%%_*} + 2))
printf -- '-- a migration ahead of its time\nSELECT 1;\n' \
    >"$tmp/schema/pg/$(printf %04d "$n")_ahead.sql"
embed "$tmp/schema"
if [ $rc -ne 0 ] && grep -q "expected migration $((n - 1))\$" "$tmp/err"; then
    pass; else fail "exit $rc: $(cat "$tmp/err")"; fi

name="a number given twice stops the build"
copy
cp "$tmp/schema/sqlite/0001_"*.sql "$tmp/schema/sqlite/0001_again.sql"
embed "$tmp/schema"
if [ $rc -ne 0 ] && grep -q "expected migration 2\$" "$tmp/err"; then
    pass; else fail "exit $rc: $(cat "$tmp/err")"; fi

name="a database newer than this sked is refused and left as it was"
latest=$((10#${last%%_*}))
db=$tmp/new.db
run schedule list --db "sqlite:$db"
[ $rc -eq 0 ] || fail "a new database: exit $rc"
sqlite3 "$db" "UPDATE meta SET value = '$((latest + 1))'
    WHERE key = 'schema_version'"
before=$(sqlite3 "$db" .dump | md5sum)
run schedule list --db "sqlite:$db"
if [ $rc -ne 0 ] &&
    grep -q "schema version $((latest + 1)), newer than this sked's $latest" \
        "$tmp/err" && [ "$(sqlite3 "$db" .dump | md5sum)" = "$before" ]; then
    pass; else fail "exit $rc"; fi

finish
