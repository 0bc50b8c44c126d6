#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A throwaway PostgreSQL cluster for sked's tests and benchmarks, from the
# distribution's server packages (scripts/deps.sh installs them).
#
#   scripts/pg.sh start        initdb + start (idempotent); prints the URL
#   scripts/pg.sh stop         stop and delete everything (always succeeds)
#   scripts/pg.sh url          print the libpq URL of database sked_test
#   scripts/pg.sh db NAME      (re)create database NAME, print its URL
#   scripts/pg.sh status       exit 0 when running, 3 when not
#   scripts/pg.sh restart      a fast restart (pg_ctl restart -m fast):
#                              every connection is cut, the data stays
#
# The state lives in $SKED_PG_DIR (default: $TMPDIR/sked-pg-$USER): the
# cluster, a private unix socket directory (no TCP), the port, the log and
# a file `url`. Run as root, the server runs as the `postgres` user, which
# owns the cluster (initdb refuses root). When the postgres user cannot
# reach $SKED_PG_DIR, or its path is too long for a socket, the cluster
# goes to a private directory under /tmp, recorded in $SKED_PG_DIR/cluster.
# SKED_PG_DURABLE=1 keeps fsync and synchronous_commit on (benchmarks);
# by default they are off, since the cluster is thrown away.
set -euo pipefail

state=${SKED_PG_DIR:-${TMPDIR:-/tmp}/sked-pg-$(id -un)}
# The server reads paths relative to its data directory: make ours absolute.
case $state in
/*) ;;
*) state=$PWD/$state ;;
esac
dbname=sked_test
export PGOPTIONS="-c client_min_messages=warning"

die() {
    echo "pg.sh: $*" >&2
    exit 1
}

find_bindir() {
    local d v
    if command -v pg_config >/dev/null &&
        d=$(pg_config --bindir 2>/dev/null) && [ -x "$d/initdb" ]; then
        echo "$d"
        return
    fi
    # Debian puts the server binaries under /usr/lib/postgresql/VERSION.
    for v in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
        if [ -x "/usr/lib/postgresql/$v/bin/initdb" ]; then
            echo "/usr/lib/postgresql/$v/bin"
            return
        fi
    done
    command -v initdb >/dev/null && dirname "$(command -v initdb)" && return
    die "no PostgreSQL server found (initdb); run scripts/deps.sh"
}

# Run a command as the cluster's owner: postgres when we are root.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        if command -v runuser >/dev/null; then
            runuser -u postgres -- "$@"
        else
            su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
        fi
    else
        "$@"
    fi
}

cluster_dir() {
    if [ -f "$state/cluster" ]; then
        cat "$state/cluster"
    else
        echo "$state/cluster.d"
    fi
}

is_running() {
    local c
    c=$(cluster_dir)
    [ -f "$c/data/postmaster.pid" ] || return 1
    as_owner "$bindir/pg_ctl" -D "$c/data" status >/dev/null 2>&1
}

print_url() {
    local c db=${1:-$dbname}
    c=$(cluster_dir)
    echo "postgresql://postgres@/$db?host=$c/sock&port=$(cat "$state/port")"
}

# Pick a port nobody listens on (TCP is off, but the number names the
# socket file, and a free one keeps psql -p habits from colliding).
pick_port() {
    local p i
    for i in $(seq 1 50); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        if ! command -v ss >/dev/null ||
            [ -z "$(ss -Hltn "sport = :$p" 2>/dev/null)" ]; then
            echo "$p"
            return
        fi
    done
    die "no free port found"
}

# Choose where the cluster lives (see the header) and make it ours.
prepare_dirs() {
    local c="$state/cluster.d"
    mkdir -p "$state"
    rm -f "$state/cluster"
    if [ ${#c} -gt 80 ] ||
        { [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$state"; }; then
        c=$(mktemp -d /tmp/sked-pg.XXXXXX)
        echo "$c" >"$state/cluster"
    fi
    rm -rf "$c"
    mkdir -p "$c/sock"
    chmod 711 "$c"
    [ "$(id -u)" -eq 0 ] && chown -R postgres: "$c"
    return 0
}

start() {
    local c port fsync=off
    if is_running; then
        print_url
        return
    fi
    stop_quiet
    prepare_dirs
    c=$(cluster_dir)
    port=$(pick_port)
    echo "$port" >"$state/port"
    as_owner "$bindir/initdb" -D "$c/data" -U postgres --auth=trust \
        -E UTF8 --locale=C.UTF-8 --no-sync >"$state/initdb.log" 2>&1 ||
        {
            cat "$state/initdb.log" >&2
            stop_quiet
            die "initdb failed"
        }
    [ "${SKED_PG_DURABLE:-0}" = 1 ] && fsync=on
    cat >>"$c/data/postgresql.conf" <<EOF
# sked: a throwaway cluster on a private socket.
listen_addresses = ''
port = $port
unix_socket_directories = '$c/sock'
max_connections = 200
shared_buffers = 64MB
fsync = $fsync
synchronous_commit = $fsync
full_page_writes = $fsync
logging_collector = off
EOF
    if ! as_owner "$bindir/pg_ctl" -D "$c/data" -l "$c/server.log" -w \
        -t 60 start >/dev/null; then
        cat "$c/server.log" >&2 || true
        stop_quiet
        die "the server did not start (log above)"
    fi
    as_owner "$bindir/createdb" -h "$c/sock" -p "$port" -U postgres "$dbname"
    print_url >"$state/url"
    cat "$state/url"
}

# Stop the server if it runs and delete the cluster; never fails.
stop_quiet() {
    local c pid
    c=$(cluster_dir)
    if [ -f "$c/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$c/data" -m immediate -w -t 30 \
            stop >/dev/null 2>&1 || true
        # Still there: the postmaster we started gets SIGKILL.
        pid=$(head -n 1 "$c/data/postmaster.pid" 2>/dev/null || true)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -rf "$c"
    rm -f "$state/cluster" "$state/port" "$state/url" "$state/initdb.log"
    rmdir "$state" 2>/dev/null || true
}

recreate_db() {
    local c port name=$1
    [[ "$name" =~ ^[a-z_][a-z0-9_]*$ ]] || die "bad database name: $name"
    is_running || die "not running (scripts/pg.sh start)"
    c=$(cluster_dir)
    port=$(cat "$state/port")
    as_owner "$bindir/dropdb" -h "$c/sock" -p "$port" -U postgres \
        --if-exists "$name"
    as_owner "$bindir/createdb" -h "$c/sock" -p "$port" -U postgres "$name"
    print_url "$name"
}

# A fast restart, as an operator's `pg_ctl restart -m fast`: connections are
# terminated, the server shuts down cleanly and starts again at once.
restart() {
    local c
    is_running || die "not running (scripts/pg.sh start)"
    c=$(cluster_dir)
    as_owner "$bindir/pg_ctl" -D "$c/data" -l "$c/server.log" -m fast -w \
        -t 60 restart >/dev/null || die "the restart failed (see $c/server.log)"
}

bindir=$(find_bindir)
case "${1:-}" in
start) start ;;
stop) stop_quiet ;;
url)
    is_running || die "not running (scripts/pg.sh start)"
    print_url
    ;;
db)
    [ $# -eq 2 ] || die "usage: pg.sh db NAME"
    recreate_db "$2"
    ;;
restart) restart ;;
status)
    if is_running; then
        echo "running: $(print_url)"
    else
        echo "stopped"
        exit 3
    fi
    ;;
*)
    echo "usage: scripts/pg.sh start|stop|url|db NAME|status|restart" >&2
    exit 2
    ;;
esac
