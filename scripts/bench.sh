#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run every benchmark of BUILD_DIR/bench and the peer benchmarks of
# bench/peers in one run, then compare: per expression and zone, sked's
# ns per next (chained), croner's and croniter's µs per next, the ratios
# croner/sked and croniter/sked, and sked's parse time, with the targets
# of the cron engine: >= 100x croner, >= 300x croniter, parse < 2 µs.
# bench_daycal: the day calendars' queries, and the next 09:00 business
# day of a 20-rule holiday calendar (bench/holidays.h) against
# python3-dateutil (bench/peers/holiday_dateutil_bench.py).
# bench_schedcal: the next firing of cron schedules in Europe/Paris that
# exclude that calendar, through the scheduler's search, chained, under
# each on_excluded, with the target <= 1 us; its peer,
# bench/peers/schedcal_dateutil_bench.py, times dateutil's rruleset of
# the same schedules (chained after(), target >= 10 us) and gives a digest
# of the occurrences, which must equal sked's: the summary fails when
# they differ. And the JSON of 1,000 cron and RRULE schedules (the RRULE
# words computed for each), in us per schedule.
# bench_store: runs inserted per second through the store and through a
# plain loop on the same engine, batched by 1, 100 and 1000, on SQLite and
# on PostgreSQL, with the target: batched >= 80% of the plain loop.
# bench_fire: the scheduler through the engine — 100,000 and 1,000,000
# schedules loaded (time, peak RSS), occurrences created per second when
# 100,000 fire in the same second, fire lag p50/p99 at 1,000 firings/s,
# and the CPU of an idle engine with 100,000 schedules, on SQLite and on
# PostgreSQL, with the issue's targets (SKED_BENCH_FIRE_MAX caps the
# schedule counts for a quick run).
# graphile-worker (bench/peers/graphile_bench.mjs): no-op jobs per second
# on the same PostgreSQL server, the peer of sked's execution.
# bench_run: no-op runs claimed and recorded per second through the store's
# side of execution, by 1 and 4 executors, batched by 100 and 1000, with
# the targets: >= 10,000/s on SQLite, >= 15,000/s on PostgreSQL (batches
# of 1000, the better of 1 and 4 executors).
# bench_exec: no-op runs per second end to end through the engine (1, 4
# and 16 workers) and the overhead of an exec step, against graphile.
# bench_http.sh: wrk against the API of a real server on loopback
# (GET a schedule, POST a trigger), target >= 20,000 GET/s, p99 <= 5 ms.
# bench_sse.sh: 1,000 idle event streams against a real server, target
# <= 50 MB of extra server RSS.
# bench_heartbeat.sh: pings of a heartbeat schedule over wrk on a real
# server on SQLite, target p99 <= 2 ms with the database on disk (also
# on a tmpfs, and the disk's own synced write, to show the fsync's
# share); the CPU of a server idle with 10,000 heartbeat schedules,
# target < 1% of a core.
# bench_mcp.sh: the MCP server — tools/list and a get_schedule call over
# stdio on SQLite (median and p99 of 1,000 calls, target median <= 2 ms),
# and the server memory of one HTTP MCP session (200 opened on /mcp,
# target <= 1 MB each).
# Ratios matter more than raw times: these machines are shared and noisy.
# The figures of a run are kept in BUILD_DIR/bench.out; --summary prints
# the comparison again from such a file without running anything. The
# summary's awk programs keep to POSIX awk (mawk, Debian's default, and
# gawk): a comparison inside a print's arguments is parenthesised, or
# mawk reads its ">" as a redirection.
# Usage: scripts/bench.sh BUILD_DIR   (make bench runs scripts/bench.sh build)
#        scripts/bench.sh --summary FILE
set -euo pipefail

usage="usage: scripts/bench.sh BUILD_DIR | --summary FILE"
here=$(cd "$(dirname "$0")/.." && pwd)

# summary FILE: print every comparison from the bench lines of FILE.
summary() {
    local out=$1 status=0
    echo
    echo "== sked against its peers (chained next; ratio = peer time / sked time)"
    awk -F'\t' '
    $1 != "bench" { next }
    $2 == "sked"     { key = $3 "\t" $4; order[++n] = key; parse[key] = $5; sked[key] = $6 }
    $2 == "croner"   { croner[$3 "\t" $4] = $6 }
    $2 == "croniter" { croniter[$3 "\t" $4] = $6 }
    function ratio(peer_us, sked_ns) {
        return (peer_us == "" || sked_ns <= 0) ? "" : peer_us * 1000 / sked_ns
    }
    function show(v, f) { return v == "" ? "-" : sprintf(f, v) }
    END {
        printf "%-16s %-17s %8s %9s %10s %9s %10s %9s\n", "expression", "zone",
            "sked ns", "croner us", "croner/sk", "citer us", "citer/sk", "parse ns"
        ok_croner = ok_croniter = ok_parse = 1
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, f, "\t")
            rc = ratio(croner[k], sked[k]); ri = ratio(croniter[k], sked[k])
            if (rc == "" || rc < 100) ok_croner = 0
            if (ri == "" || ri < 300) ok_croniter = 0
            if (parse[k] >= 2000) ok_parse = 0
            printf "%-16s %-17s %8.1f %9s %10s %9s %10s %9.1f\n", f[1], f[2],
                sked[k], show(croner[k], "%.2f"), show(rc, "%.0fx"),
                show(croniter[k], "%.2f"), show(ri, "%.0fx"), parse[k]
        }
        print ""
        printf "target sked >= 100x faster than croner on every expression: %s\n",
            ok_croner ? "met" : "NOT met"
        printf "target sked >= 300x faster than croniter on every expression: %s\n",
            ok_croniter ? "met" : "NOT met"
        printf "target parse < 2 us on every expression: %s\n",
            ok_parse ? "met" : "NOT met"
    }' "$out"

    echo
    echo "== a holiday calendar: the next 09:00 business day, chained (ratio = dateutil / sked)"
    awk -F'\t' '
    $1 != "bench" || $2 != "holiday" { next }
    $3 == "sked" { sk = $5; sk_last = $6 }
    $3 == "dateutil" { du = $5; du_last = $6 }
    END {
        if (sk == "") { print "bench_daycal: no figures"; exit }
        printf "sked %.1f ns   dateutil %s us   %s\n", sk,
            (du == "" ? "-" : sprintf("%.2f", du)),
            (du == "" ? "-" : sprintf("%.0fx", du * 1000 / sk))
        if (du != "")
            printf "the same occurrences (the last of the chain: %s, %s): %s\n",
                sk_last, du_last, (sk_last == du_last ? "yes" : "NO")
        printf "target sked <= 1 us with 20 rules: %s\n", (sk <= 1000 ? "met" : "NOT met")
        if (du != "")
            printf "target dateutil >= 10 us on the same rules: %s\n",
                (du >= 10 ? "met" : "NOT met")
    }' "$out"

    echo
    echo "== schedules over a 20-rule holiday calendar: the next firing in Europe/Paris, chained 2026-2029 (ratio = dateutil / sked)"
    if ! awk -F'\t' '
    $1 != "bench" || $2 != "schedcal" { next }
    $3 == "sked" { k = $4 "\t" $5; order[++n] = k; sk[k] = $6
        if ($5 == "skip") { cnt[$4] = $7; dig[$4] = $8; last[$4] = $9 } }
    $3 == "dateutil" { du[$4] = $6; du_cnt[$4] = $7; du_dig[$4] = $8
        du_last[$4] = $9; du_how[$4] = $10; du_it[$4] = $11; nd++ }
    END {
        if (n == 0) { print "bench_schedcal: no figures"; exit }
        printf "%-12s %-22s %8s %11s %7s %-13s %9s %6s\n", "expression",
            "on_excluded", "sked ns", "dateutil us", "du/sk", "(fastest)",
            "iter us", "it/sk"
        ok_sk = ok_du = same = 1
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, f, "\t")
            if (sk[k] > 1000) { ok_sk = 0; miss = miss sprintf("%s%s %s %.0f ns", (miss == "" ? "" : ", "), f[1], f[2], sk[k]) }
            peer = (f[2] == "skip" && (f[1] in du))
            if (peer)
                printf "%-12s %-22s %8.1f %11.2f %6.0fx %-13s %9.2f %5.0fx\n",
                    f[1], f[2], sk[k], du[f[1]], du[f[1]] * 1000 / sk[k],
                    du_how[f[1]], du_it[f[1]], du_it[f[1]] * 1000 / sk[k]
            else
                printf "%-12s %-22s %8.1f %11s %7s\n", f[1], f[2], sk[k], "-", "-"
        }
        for (e in du) {
            if (du[e] < 10) ok_du = 0
            if (!(e in cnt) || cnt[e] != du_cnt[e] || dig[e] != du_dig[e] ||
                last[e] != du_last[e]) {
                same = 0
                printf "%s: sked %s firings (digest %s, last %s), dateutil %s (digest %s, last %s)\n",
                    e, cnt[e], dig[e], last[e], du_cnt[e], du_dig[e], du_last[e]
            }
        }
        print ""
        if (nd > 0)
            printf "the same occurrences as dateutil in skip mode, 2026-2029: %s\n",
                same ? "yes" : "NO (bench_schedcal --list and schedcal_dateutil_bench.py --list give both)"
        printf "target sked next <= 1 us with a 20-rule calendar on every schedule: %s\n",
            ok_sk ? "met" : "NOT met (" miss ")"
        if (nd > 0)
            printf "target dateutil >= 10 us on the same rule: %s\n",
                ok_du ? "met" : "NOT met"
        if (!same) exit 1
    }' "$out"; then
        status=1
    fi

    echo
    echo "== listing schedules: the API JSON of 1,000 schedules (rrule_words computed for each)"
    awk -F'\t' '
    $1 != "bench" || $2 != "schedjson" { next }
    { n++; us[$3] = $5
      printf "%-18s %12.2f us per schedule (%d measured)", $3, $5, $4
      if ($3 != "cron" && ("cron" in us) && $3 != "rrule_words_only")
          printf ", %.1fx cron", $5 / us["cron"]
      print "" }
    END { if (n == 0) print "bench_schedcal: no figures" }' "$out"

    echo
    echo "== run inserts: sked against a plain prepared-INSERT loop (ratio = sked / plain)"
    awk -F'\t' '
    $1 != "bench" || $2 != "store" { next }
    {
        n++
        printf "%-9s batch %5d  plain %9.0f/s  sked %9.0f/s  %5.2f\n", $3, $4, $5, $6, $7
        if ($4 > 1 && $7 < 0.8) bad = 1
    }
    END {
        if (n == 0) { print "bench_store: no figures"; exit }
        printf "target batched inserts >= 80%% of the plain loop: %s\n",
            bad ? "NOT met" : "met"
    }' "$out"

    echo
    echo "== execution: no-op runs claimed and recorded (bench_run)"
    awk -F'\t' '
    $1 != "bench" || $2 != "run" { next }
    {
        n++
        printf "%-9s batch %5d  executors %2d  %9.0f runs/s  claim %7.2f ms  ops %7.2f ms\n", $3, $4, $5, $6, $7, $8
        if ($4 == 1000 && $6 > best[$3]) best[$3] = $6
    }
    END {
        if (n == 0) { print "bench_run: no figures"; exit }
        printf "target >= 10,000 runs/s on SQLite: %s\n",
            (best["sqlite"] >= 10000 ? "met" : "NOT met")
        if ("postgres" in best)
            printf "target >= 15,000 runs/s on PostgreSQL: %s\n",
                (best["postgres"] >= 15000 ? "met" : "NOT met")
    }' "$out"

    echo
    echo "== notifications: the outbox's cost to the runs it follows (bench_notify)"
    awk -F'\t' '
    $1 != "bench" || $2 != "notify" { next }
    {
        n++
        printf "%-9s %-9s notifier %-3s %9.0f runs/s  ops %7.3f ms  %5.2fx\n", $3, $4, $5, $6, $7, $8
        if ($5 == "yes") ratio[$3 "\t" $4] = $8
    }
    END {
        if (n == 0) { print "bench_notify: no figures"; exit }
        f = ratio["sqlite\tfailed"]; c = ratio["sqlite\tcompleted"]
        printf "target a notified run recorded <= 1.10x without a notifier on SQLite: %s (%.2fx)\n",
            (f <= 1.10 ? "met" : "NOT met"), f
        printf "target a run not notified <= 1.10x with a notifier on SQLite: %s (%.2fx)\n",
            (c <= 1.10 ? "met" : "NOT met"), c
        if ("postgres\tfailed" in ratio) {
            f = ratio["postgres\tfailed"]
            printf "target a notified run recorded <= 1.10x without a notifier on PostgreSQL: %s (%.2fx)\n",
                (f <= 1.10 ? "met" : "NOT met"), f
        }
    }' "$out"

    echo
    echo "== the scheduler (bench_fire)"
    awk -F'\t' '
    $1 != "bench" { next }
    $2 == "fire_load" { n++; printf "load  %-9s %8d schedules  %6.2f s  %6.1f MB\n", $3, $4, $5, $6
        if ($4 >= 1000000 && ($5 > 5 || $6 > 300)) bad_load = 1
        if ($4 >= 1000000) seen_load = 1 }
    $2 == "fire_rate" { n++; printf "rate  %-9s %8d due at once  %9.0f occurrences/s\n", $3, $4, $5
        if (($3 == "sqlite" && $5 < 50000) || ($3 == "postgres" && $5 < 10000)) bad_rate = 1 }
    $2 == "fire_lag" { n++; printf "lag   %-9s %5d firings/s  p50 %.2f ms  p99 %.2f ms\n", $3, $4, $5, $6
        if ($6 > 20) bad_lag = 1 }
    $2 == "fire_idle" { n++; printf "idle  %-9s %8d schedules  %.2f%% of a core\n", $3, $4, $5
        if ($5 >= 1) bad_idle = 1 }
    END {
        if (n == 0) { print "bench_fire: no figures"; exit }
        printf "target 1M schedules loaded in <= 5 s and <= 300 MB: %s\n",
            !seen_load ? "not measured" : bad_load ? "NOT met" : "met"
        printf "target >= 50,000/s on SQLite, >= 10,000/s on PostgreSQL: %s\n",
            bad_rate ? "NOT met" : "met"
        printf "target fire lag p99 <= 20 ms at 1,000/s: %s\n", bad_lag ? "NOT met" : "met"
        printf "target idle < 1%% of a core: %s\n", bad_idle ? "NOT met" : "met"
    }' "$out"

    echo
    echo "== execution (bench_exec; the peer: graphile-worker on the same PostgreSQL)"
    awk -F'\t' '
    $1 != "bench" { next }
    $2 == "exec_runs" { n++; rate[$3 "\t" $4] = $6
        printf "runs  %-9s %2d workers  %9.0f runs/s\n", $3, $4, $6
        if ($3 == "sqlite" && $6 > best_sqlite) best_sqlite = $6
        if ($3 == "postgres" && $6 > best_pg) best_pg = $6 }
    $2 == "graphile" { g++
        printf "peer  graphile  %-11s %2d concurrency  %9.0f jobs/s\n", $3, $4, $6
        if ($6 > best_peer) best_peer = $6 }
    $2 == "exec_step" { n++; step = $5
        printf "step  %-9s exec %.3f ms, C %.3f ms per step\n", $3, $5, $6
        if ($5 - $6 > 2) bad_step = 1 }
    END {
        if (n == 0) { print "bench_exec: no figures"; exit }
        printf "target SQLite >= 10,000 runs/s: %s\n",
            (best_sqlite >= 10000 ? "met" : "NOT met")
        if (best_pg > 0 && best_peer > 0)
            printf "target PostgreSQL ahead of graphile-worker: sked %.0f/s, graphile %.0f/s (%.2fx): %s\n",
                best_pg, best_peer, best_pg / best_peer, (best_pg > best_peer ? "met" : "NOT met")
        else
            print "target PostgreSQL ahead of graphile-worker: not measured"
        printf "target exec step overhead <= 2 ms: %s\n", bad_step ? "NOT met" : "met"
    }' "$out"

    echo
    echo "== the HTTP API (bench_http: wrk, 2 threads, 64 connections, loopback)"
    awk -F'\t' '
    $1 != "bench" || $2 != "http" { next }
    { n++; printf "%-40s %9.0f requests/s  p99 %6.2f ms\n", $3, $4, $5
      if ($3 ~ /^GET/) { get = 1; if ($4 < 20000 || $5 > 5) bad_get = 1 } }
    END {
        if (n == 0) { print "bench_http: no figures"; exit }
        printf "target GET schedule >= 20,000 requests/s with p99 <= 5 ms: %s\n",
            !get ? "not measured" : bad_get ? "NOT met" : "met"
    }' "$out"

    echo "== the event streams (bench_sse: idle SSE clients, loopback)"
    awk -F'\t' '
    $1 == "bench" && $2 == "sse" { n++; printf "%d clients: extra server RSS %.1f MB, one event delivered to %d\n", $3, $4, $5
      if ($3 < 1000 || $4 > 50 || $5 < $3) bad = 1 }
    END {
        if (n == 0) { print "bench_sse: no figures"; exit }
        printf "target 1,000 idle streams <= 50 MB of RSS, each gets the event: %s\n",
            bad ? "NOT met" : "met"
    }' "$out"

    echo
    echo "== heartbeats (bench_heartbeat: pings over wrk on loopback, SQLite synchronous=FULL; an idle server)"
    awk -F'\t' '
    $1 != "bench" { next }
    $2 == "hb_fsync" {
        printf "fsync  a synced 4 KiB write on the database disk: %.2f ms\n", $3 }
    $2 == "hb_ping" { n++
        printf "ping   %-6s %2d connections  %8.0f requests/s  p50 %6.3f ms  p99 %6.3f ms  non-2xx %d\n",
            $3, $4, $5, $6, $7, $8
        if ($3 == "disk") { disk = 1; if ($7 > 2 || $8 > 0) bad_ping = 1 } }
    $2 == "hb_idle" { n++; idle = 1
        printf "idle   %d heartbeat schedules  %.2f%% of a core (listening after %.2f s)\n", $3, $4, $5
        if ($3 < 10000 || $4 >= 1) bad_idle = 1 }
    END {
        if (n == 0) { print "bench_heartbeat: no figures"; exit }
        printf "target ping p99 <= 2 ms on SQLite on disk: %s\n",
            !disk ? "not measured" : bad_ping ? "NOT met" : "met"
        printf "target idle with 10,000 heartbeat schedules < 1%% of a core: %s\n",
            !idle ? "not measured" : bad_idle ? "NOT met" : "met"
    }' "$out"

    echo
    echo "== the MCP server (bench_mcp: stdio on SQLite, sessions on /mcp)"
    awk -F'\t' '
    $1 != "bench" { next }
    $2 == "mcp_stdio" { n++; stdio++
        printf "stdio %-13s %5d calls  median %.3f ms  p99 %.3f ms\n", $3, $4, $5, $6
        if ($5 > 2) bad_stdio = 1 }
    $2 == "mcp_session" { n++; http++
        printf "http  %d sessions (%d open)  %.1f KB per session\n", $3, $4, $5
        if ($5 > 1024 || $4 < $3) bad_session = 1 }
    END {
        if (n == 0) { print "bench_mcp: no figures"; exit }
        printf "target tools/list and get_schedule median <= 2 ms over stdio: %s\n",
            !stdio ? "not measured" : bad_stdio ? "NOT met" : "met"
        printf "target one HTTP MCP session <= 1 MB of server memory: %s\n",
            !http ? "not measured" : bad_session ? "NOT met" : "met"
    }' "$out"
    return "$status"
}

if [ "${1:-}" = --summary ]; then
    summary "${2:?$usage}"
    exit
fi
build=${1:?$usage}
out=$build/bench.out
: >"$out"
pg_started=0
cleanup() {
    if [ "$pg_started" = 1 ]; then
        SKED_PG_DIR="$build/pg-bench" "$here/scripts/pg.sh" stop
    fi
}
trap cleanup EXIT

# bench_store measures PostgreSQL on SKED_BENCH_PG_URL; without one, on a
# throwaway server (scripts/pg.sh) that is durable like a real one (fsync
# and synchronous_commit on), stopped at exit.
if [ -z "${SKED_BENCH_PG_URL:-}" ]; then
    if url=$(SKED_PG_DIR="$build/pg-bench" SKED_PG_DURABLE=1 \
        "$here/scripts/pg.sh" start); then
        pg_started=1
        export SKED_BENCH_PG_URL=$url
    else
        echo "== PostgreSQL did not start: bench_store measures SQLite only"
    fi
fi

shopt -s nullglob
benches=("$build"/bench/bench_*)
[ ${#benches[@]} -gt 0 ] || { echo "bench: no bench_* in $build/bench" >&2; exit 1; }
for b in "${benches[@]}"; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b" | tee -a "$out" | grep -v '^bench	'
done

# The HTTP API and the event streams, against a real server on loopback.
for b in "$here"/bench/bench_*.sh; do
    echo "== $(basename "$b" .sh)"
    "$b" "$build/sked" | tee -a "$out" | grep -v '^bench	'
done

if command -v node >/dev/null &&
    [ -f "$here/tests/oracle/node_modules/croner/package.json" ]; then
    echo "== croner $(node -p "require('$here/tests/oracle/node_modules/croner/package.json').version")"
    node "$here/bench/peers/croner_bench.mjs" | tee -a "$out" | grep -v '^bench	'
else
    echo "== croner: not installed (scripts/deps.sh), skipped"
fi
if /usr/bin/python3 -c 'import croniter' 2>/dev/null; then
    echo "== croniter $(/usr/bin/python3 -c 'import croniter; print(croniter.__version__)' 2>/dev/null || echo)"
    /usr/bin/python3 "$here/bench/peers/croniter_bench.py" | tee -a "$out" |
        grep -v '^bench	'
else
    echo "== croniter: not installed (scripts/deps.sh), skipped"
fi
if /usr/bin/python3 -c 'import dateutil' 2>/dev/null; then
    echo "== dateutil $(/usr/bin/python3 -c 'import dateutil; print(dateutil.__version__)')"
    /usr/bin/python3 "$here/bench/peers/holiday_dateutil_bench.py" |
        tee -a "$out" | grep -v '^bench	'
else
    echo "== dateutil: not installed (scripts/deps.sh), skipped"
fi
if /usr/bin/python3 -c 'import dateutil' 2>/dev/null; then
    echo "== dateutil $(/usr/bin/python3 -c 'import dateutil; print(dateutil.__version__)'), schedules over a calendar"
    /usr/bin/python3 "$here/bench/peers/schedcal_dateutil_bench.py" |
        tee -a "$out" | grep -v '^bench	'
fi
if [ -z "${SKED_BENCH_PG_URL:-}" ]; then
    echo "== graphile-worker: no PostgreSQL, skipped"
elif command -v node >/dev/null &&
    [ -f "$here/bench/peers/node_modules/graphile-worker/package.json" ]; then
    echo "== graphile-worker"
    node "$here/bench/peers/graphile_bench.mjs" | tee -a "$out" | grep -v '^bench	'
else
    echo "== graphile-worker: not installed (scripts/deps.sh), skipped"
fi

summary "$out"
