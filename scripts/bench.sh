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
# DBOS Transact (bench/peers/dbos/dbos_bench.mjs; its SDK, pinned in
# bench/peers/dbos, is installed there with npm ci on demand): one-step
# workflows per second, workflows fired per second with 1,000 schedules
# due each second, and startWorkflow to the first step's start, against
# sked's runs per second on PostgreSQL (bench_exec), its firing of 1,000
# due at once (bench_fire) and its request-to-first-step latency
# (bench_latency), with the target sked >= 40x on each.
# bench_latency.sh: a run's request to its first step's start on a real
# server at 100 runs/s, targets <= 2 ms / 5 ms (p50 / p99) on SQLite and
# <= 5 ms / 15 ms on PostgreSQL.
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
# Each run also writes its figures as JSON lines, one object per figure
# ({bench, case, zone, peer, value, unit, target}), to
# bench/results/YYYYMMDD-HHMMSS.jsonl; bench/compare.py A B prints the
# ratios between two such files. --only NAME[,NAME] runs a subset: the
# bench_NAME programs and scripts, and their peers (cron: bench_cron with
# croner, croniter and the compiled peers; daycal, schedcal: dateutil;
# exec: graphile-worker; dbos: DBOS Transact alone).
# The compiled cron peers (Go's robfig/cron and gorhill/cronexpr, Quartz,
# systemd-analyze calendar) come from Debian: bench/peers/install.sh
# installs them when missing and root or sudo is at hand; `make test`
# does not need them, and a peer that is not there is skipped with a line.
# Usage: scripts/bench.sh BUILD_DIR [--only NAME[,NAME]]
#                                       (make bench runs scripts/bench.sh build)
#        scripts/bench.sh --summary FILE
#        scripts/bench.sh --json FILE   (the JSON lines of FILE, on stdout)
set -euo pipefail

usage="usage: scripts/bench.sh BUILD_DIR [--only NAME[,NAME]] | --summary FILE | --json FILE"
here=$(cd "$(dirname "$0")/.." && pwd)

# summary FILE: print every comparison from the bench lines of FILE.
summary() {
    local out=$1 status=0
    echo
    echo "== cron next, chained: sked against its peers (us per next; ratio = peer time / sked time)"
    awk -F'\t' '
    $1 != "bench" { next }
    $2 == "sked" { key = $3 "\t" $4; order[++n] = key; parse[key] = $5
        sked[key] = $6; once[key] = $8; cadence[key] = $9 }
    $2 in is_peer { k = $3 "\t" $4; us[$2, k] = $6; dig[$2, k] = $7; seen[$2] = 1 }
    BEGIN {
        np = split("croner croniter robfig cronexpr quartz systemd", peers, " ")
        for (p = 1; p <= np; p++) is_peer[peers[p]] = 1
        compiled["robfig"] = compiled["cronexpr"] = compiled["quartz"] = compiled["systemd"] = 1
    }
    function ratio(peer_us, sked_ns) {
        return (peer_us == "" || peer_us == "-" || sked_ns <= 0) ? "" : peer_us * 1000 / sked_ns
    }
    # A peer finds the same occurrences when its digest is sked'"'"'s under
    # dst: once or dst: cadence (the rhythm the peers keep through DST).
    function same(p, k) {
        return dig[p, k] == "" || once[k] == "" || dig[p, k] == once[k] || dig[p, k] == cadence[k]
    }
    END {
        if (n == 0) { print "bench_cron: no figures"; exit }
        printf "%-15s %-16s %7s", "expression", "zone", "sked ns"
        for (p = 1; p <= np; p++) printf " %15s", peers[p]
        printf "\n"
        ok_croner = ok_croniter = ok_parse = 1
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, f, "\t")
            printf "%-15s %-16s %7.1f", f[1], f[2], sked[k]
            for (p = 1; p <= np; p++) {
                q = peers[p]; r = ratio(us[q, k], sked[k])
                if (us[q, k] == "-") untimed[q]++
                if (r == "") { printf " %15s", "-"; continue }
                printf " %15s", sprintf("%.2f %5.0fx%s", us[q, k], r, (same(q, k) ? " " : "!"))
                if (q in compiled && (worst[q] == "" || r < worst[q])) { worst[q] = r; at[q] = f[1] " " f[2] }
                if (q in compiled && r < 10) under[q]++
                if (q in compiled) cases[q]++
                if (!same(q, k)) differ[q] = differ[q] (differ[q] == "" ? "" : "; ") f[1] " " f[2]
            }
            printf "\n"
            r = ratio(us["croner", k], sked[k]); if (r == "" || r < 100) ok_croner = 0
            r = ratio(us["croniter", k], sked[k]); if (r == "" || r < 300) ok_croniter = 0
            if (parse[k] >= 2000) ok_parse = 0
        }
        print "(! = other occurrences than sked'"'"'s, under dst: once and dst: cadence alike)"
        for (p = 1; p <= np; p++) {
            q = peers[p]
            if (!(q in seen)) { printf "%-9s not measured\n", q; continue }
            printf "%-9s the same occurrences as sked: %s\n", q,
                (differ[q] == "" ? "yes" : "NO on " differ[q])
        }
        print ""
        printf "target sked >= 100x faster than croner on every expression: %s\n",
            ok_croner ? "met" : "NOT met"
        printf "target sked >= 300x faster than croniter on every expression: %s\n",
            ok_croniter ? "met" : "NOT met"
        printf "target parse < 2 us on every expression: %s\n",
            ok_parse ? "met" : "NOT met"
        for (p = 1; p <= np; p++) {
            q = peers[p]
            if (!(q in compiled)) continue
            if (!(q in seen)) { printf "target sked >= 10x %s on every expression and zone: not measured\n", q; continue }
            if (cases[q] == 0) how = "not measured"
            else if (under[q] == 0) how = sprintf("met (least %.1fx, %s)", worst[q], at[q])
            else how = sprintf("NOT met (%d of %d under, least %.1fx, %s)", under[q], cases[q], worst[q], at[q])
            if (untimed[q] > 0) how = how sprintf(" (%d not timed)", untimed[q])
            printf "target sked >= 10x %s on every expression and zone: %s\n", q, how
        }
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
        if ($4 >= 10000 && (($3 == "sqlite" && $5 < 50000) || ($3 == "postgres" && $5 < 10000))) bad_rate = 1 }
    $2 == "fire_lag" { n++; printf "lag   %-9s %5d firings/s  p50 %.2f ms  p99 %.2f ms\n", $3, $4, $5, $6
        if ($6 > 20) bad_lag = 1 }
    $2 == "fire_idle" { n++; printf "idle  %-9s %8d schedules  %.2f%% of a core\n", $3, $4, $5
        if ($5 >= 1) bad_idle = 1 }
    END {
        if (n == 0) { print "bench_fire: no figures"; exit }
        printf "target 1M schedules loaded in <= 5 s and <= 300 MB: %s\n",
            !seen_load ? "not measured" : bad_load ? "NOT met" : "met"
        printf "target >= 50,000/s on SQLite, >= 10,000/s on PostgreSQL (100,000 due): %s\n",
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
    $2 == "exec_servers" { n++
        printf "runs  %-9s %2d servers of %d workers  %9.0f runs/s\n", $3, $4, $5, $7 }
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
            printf "target PostgreSQL >= 1.5x graphile-worker'"'"'s fastest: sked %.0f/s, graphile %.0f/s (%.2fx): %s\n",
                best_pg, best_peer, best_pg / best_peer, (best_pg >= 1.5 * best_peer ? "met" : "NOT met")
        else
            print "target PostgreSQL >= 1.5x graphile-worker'"'"'s fastest: not measured"
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
    echo "== latency: a run's request to its first step's start (bench_latency: 100 runs/s over HTTP, 4 workers)"
    awk -F'\t' '
    $1 == "bench" && $2 == "graphile_latency" { g = sprintf("peer graphile-worker on the same PostgreSQL, add to start: %d jobs  p50 %.3f ms  p99 %.3f ms  mean %.3f ms", $3, $4, $5, $6) }
    $1 != "bench" || $2 != "latency" { next }
    { n++; printf "%-7s %6d runs  p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms\n", $3, $4, $6, $7, $8
      want50 = ($3 == "sqlite") ? 2 : 5; want99 = ($3 == "sqlite") ? 5 : 15
      printf "target %s p50 <= %d ms, p99 <= %d ms: %s\n", $3, want50, want99,
          (($6 <= want50 && $7 <= want99) ? "met" : "NOT met") }
    END { if (n == 0) print "bench_latency: no figures"; if (g != "") print g }' "$out"

    echo
    echo "== DBOS Transact, the seed system, on the same PostgreSQL (ratio: how many times sked is ahead)"
    awk -F'\t' '
    $1 != "bench" { next }
    $2 == "exec_runs" && $3 == "postgres" { if ($6 > runs) runs = $6 }
    $2 == "fire_rate" && $3 == "postgres" && $4 == 1000 { fire = $5 }
    $2 == "latency" && $3 == "pg" { p50 = $6; p99 = $7 }
    $2 == "dbos_workflows" { seen = 1
        printf "DBOS  %-12s %6d one-step workflows  %7.0f/s\n", $3, $4, $5
        if ($5 > d_runs) { d_runs = $5; d_how = $3 } }
    $2 == "dbos_scheduled" { seen = 1; d_fire = $5
        printf "DBOS  %d schedules due every second: %.0f workflows began/s, lag p50 %d ms, p99 %d ms\n", $3, $5, $6, $7 }
    $2 == "dbos_latency" { seen = 1; d50 = $4; d99 = $5
        printf "DBOS  startWorkflow to its first step, %d at 100/s: p50 %.3f ms, p99 %.3f ms\n", $3, $4, $5 }
    # line(WHAT, SKED, DBOS, RATIO, SKED_UNIT, DBOS_UNIT): one target line.
    function line(what, sk, db, r, sk_unit, db_unit) {
        if (sk == "" || db == "" || sk + 0 <= 0 || db + 0 <= 0) {
            printf "target sked >= 40x DBOS on %s: not measured\n", what; return }
        printf "target sked >= 40x DBOS on %s: sked %s%s, DBOS %s%s: %.1fx, %s\n", what,
            sk, sk_unit, db, db_unit, r, (r >= 40 ? "met" : "NOT met")
    }
    END {
        if (!seen) { print "DBOS Transact: no figures"; exit }
        line("one-step runs per second", runs, d_runs, runs / (d_runs ? d_runs : 1), "/s", "/s (" d_how ")")
        line("firings per second, 1,000 due", fire, d_fire, fire / (d_fire ? d_fire : 1), "/s", "/s")
        line("request to first step, p50", p50, d50, d50 / (p50 ? p50 : 1), " ms (HTTP)", " ms (in process)")
        line("request to first step, p99", p99, d99, d99 / (p99 ? p99 : 1), " ms (HTTP)", " ms (in process)")
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

# results_jsonl FILE: every figure of the bench lines of FILE as a JSON
# object a line: {bench, case, zone, peer, value, unit, target}. The cron
# figures are sked's ns per next and per parse, each peer's us per next
# and its ratio to sked; the other benchmarks' lines name their columns in
# COLS below (a name with ":unit" is a figure, the others make the case).
results_jsonl() {
    awk -F'\t' '
    function q(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
    function emit(b, c, z, p, v, u, t) {
        if (v == "" || v == "-") return
        printf "{\"bench\":%s,\"case\":%s,\"zone\":%s,\"peer\":%s,\"value\":%s,\"unit\":%s,\"target\":%s}\n",
            q(b), q(c), q(z), q(p), v + 0, q(u), (t == "" ? "null" : q(t))
    }
    BEGIN {
        split("croner croniter robfig cronexpr quartz systemd", ps, " ")
        for (i in ps) is_peer[ps[i]] = 1
        target["croner"] = ">= 100x"; target["croniter"] = ">= 300x"
        target["robfig"] = target["cronexpr"] = target["quartz"] = target["systemd"] = ">= 10x"
        COLS["holiday"] = "impl rules next:ns last"
        COLS["schedcal"] = "impl expression on_excluded next:ns"
        COLS["schedjson"] = "kind schedules json:us"
        COLS["store"] = "backend batch plain:rows/s sked:rows/s ratio:x"
        COLS["run"] = "backend batch executors runs:runs/s claim:ms ops:ms"
        COLS["notify"] = "backend outcome notifier runs:runs/s ops:ms ratio:x"
        COLS["fire_load"] = "backend schedules load:s rss:MB"
        COLS["fire_rate"] = "backend due rate:occurrences/s"
        COLS["fire_lag"] = "backend firings_per_s p50:ms p99:ms"
        COLS["fire_idle"] = "backend schedules idle:%core"
        COLS["exec_runs"] = "backend workers runs rate:runs/s"
        COLS["exec_servers"] = "backend servers workers runs rate:runs/s"
        COLS["graphile"] = "config concurrency jobs rate:jobs/s"
        COLS["exec_step"] = "backend steps exec:ms c:ms"
        COLS["http"] = "route rate:requests/s p99:ms"
        COLS["sse"] = "clients rss:MB delivered"
        COLS["hb_fsync"] = "fsync:ms"
        COLS["hb_ping"] = "where connections rate:requests/s p50:ms p99:ms non_2xx"
        COLS["hb_idle"] = "schedules idle:%core listening:s"
        COLS["mcp_stdio"] = "call calls median:ms p99:ms"
        COLS["mcp_session"] = "sessions open per_session:KB"
        COLS["latency"] = "backend runs per_s p50:ms p99:ms max:ms"
        COLS["graphile_latency"] = "jobs p50:ms p99:ms mean:ms"
        COLS["dbos_workflows"] = "config workflows rate:workflows/s"
        COLS["dbos_scheduled"] = "schedules seconds rate:workflows/s lag_p50:ms lag_p99:ms"
        COLS["dbos_latency"] = "runs p50:ms p99:ms"
    }
    $1 != "bench" { next }
    $2 == "sked" { k = $3 "\t" $4; sked[k] = $6
        emit("cron", $3, $4, "sked", $6, "ns/next", "")
        emit("cron_parse", $3, $4, "sked", $5, "ns/parse", "< 2000 ns"); next }
    $2 in is_peer { emit("cron", $3, $4, $2, $6, "us/next", "")
        k = $3 "\t" $4
        if ((k in sked) && sked[k] > 0 && $6 != "" && $6 != "-")
            emit("cron_ratio", $3, $4, $2 "/sked", $6 * 1000 / sked[k], "x", target[$2])
        next }
    {
        n = split(($2 in COLS) ? COLS[$2] : "", col, " "); c = ""; peer = "sked"
        for (i = 3; i <= NF; i++) {
            name = (i - 2 <= n) ? col[i - 2] : "value" (i - 2)
            if (name == "impl") { peer = $i; continue }
            if (index(name, ":") == 0) { c = c (c == "" ? "" : " ") name "=" $i; continue }
            split(name, nu, ":")
            emit($2, c (c == "" ? "" : " ") nu[1], "", ($2 ~ /^graphile/ ? "graphile" : $2 ~ /^dbos_/ ? "dbos" : peer), $i, nu[2], "")
        }
    }' "$1"
}

# compiled_cron_peers: the compiled cron libraries a user would pick, on
# bench_cron's expressions and zones, built in BUILD_DIR/bench-peers.
compiled_cron_peers() {
    local dir jars=() j
    "$here/bench/peers/install.sh"
    mkdir -p "$build/bench-peers"
    dir=$(cd "$build/bench-peers" && pwd)
    if command -v go >/dev/null &&
        [ -d /usr/share/gocode/src/github.com/robfig/cron ] &&
        [ -d /usr/share/gocode/src/github.com/gorhill/cronexpr ] &&
        (cd "$here/bench/peers/gocron" && GO111MODULE=off \
            GOPATH=/usr/share/gocode GOCACHE="$dir/go-cache" \
            go build -o "$dir/gocron" .); then
        echo "== robfig/cron and gorhill/cronexpr ($(go version | cut -d' ' -f3))"
        "$dir/gocron" | tee -a "$out" | grep -v '^bench	'
    else
        echo "== robfig/cron, gorhill/cronexpr: Go or the libraries not installed (bench/peers/install.sh), skipped"
    fi
    for j in quartz2 slf4j-api slf4j-nop; do
        [ -f "/usr/share/java/$j.jar" ] && jars+=("/usr/share/java/$j.jar")
    done
    local cp
    cp=$(IFS=:; echo "${jars[*]}")
    if command -v javac >/dev/null && [ -f /usr/share/java/quartz2.jar ] &&
        javac -d "$dir/java" -cp "$cp" "$here/bench/peers/QuartzBench.java"; then
        echo "== Quartz $(basename "$(readlink -f /usr/share/java/quartz2.jar)" .jar) ($(java -version 2>&1 | head -1))"
        java -cp "$dir/java:$cp" QuartzBench | tee -a "$out" | grep -v '^bench	'
    else
        echo "== Quartz: javac or libquartz2-java not installed (bench/peers/install.sh), skipped"
    fi
    if command -v systemd-analyze >/dev/null &&
        systemd-analyze calendar --base-time=@0 --iterations=1 '*-*-* 00:00:00' >/dev/null 2>&1; then
        echo "== $(systemd-analyze --version | head -1) calendar"
        /usr/bin/python3 "$here/bench/peers/systemd_bench.py" | tee -a "$out" |
            grep -v '^bench	'
    else
        echo "== systemd-analyze calendar --base-time: not available, skipped"
    fi
}

if [ "${1:-}" = --summary ]; then
    summary "${2:?$usage}"
    exit
fi
if [ "${1:-}" = --json ]; then
    results_jsonl "${2:?$usage}"
    exit
fi
build=${1:?$usage}
dbos=$here/bench/peers/dbos
only=
if [ "${2:-}" = --only ]; then
    only=,${3:?$usage},
elif [ $# -gt 1 ]; then
    echo "$usage" >&2
    exit 2
fi
# wanted NAME: whether NAME is in the run (every one without --only).
wanted() { [ -z "$only" ] || [ "${only#*,"$1",}" != "$only" ]; }
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
needs_pg=0
for b in store fire run exec notify latency dbos; do wanted "$b" && needs_pg=1; done
if [ "$needs_pg" = 1 ] && [ -z "${SKED_BENCH_PG_URL:-}" ]; then
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
    name=$(basename "$b")
    wanted "${name#bench_}" || continue
    echo "== $(basename "$b")"
    "$b" | tee -a "$out" | grep -v '^bench	'
done

# The HTTP API and the event streams, against a real server on loopback.
for b in "$here"/bench/bench_*.sh; do
    name=$(basename "$b" .sh)
    wanted "${name#bench_}" || continue
    echo "== $(basename "$b" .sh)"
    "$b" "$build/sked" | tee -a "$out" | grep -v '^bench	'
done

if ! wanted cron; then
    :
elif command -v node >/dev/null &&
    [ -f "$here/tests/oracle/node_modules/croner/package.json" ]; then
    echo "== croner $(node -p "require('$here/tests/oracle/node_modules/croner/package.json').version")"
    node "$here/bench/peers/croner_bench.mjs" | tee -a "$out" | grep -v '^bench	'
else
    echo "== croner: not installed (scripts/deps.sh), skipped"
fi
if ! wanted cron; then
    :
elif /usr/bin/python3 -c 'import croniter' 2>/dev/null; then
    echo "== croniter $(/usr/bin/python3 -c 'from importlib.metadata import version; print(version("croniter"))' 2>/dev/null || echo)"
    /usr/bin/python3 "$here/bench/peers/croniter_bench.py" | tee -a "$out" |
        grep -v '^bench	'
else
    echo "== croniter: not installed (scripts/deps.sh), skipped"
fi
wanted cron && compiled_cron_peers
if ! wanted daycal; then
    :
elif /usr/bin/python3 -c 'import dateutil' 2>/dev/null; then
    echo "== dateutil $(/usr/bin/python3 -c 'import dateutil; print(dateutil.__version__)')"
    /usr/bin/python3 "$here/bench/peers/holiday_dateutil_bench.py" |
        tee -a "$out" | grep -v '^bench	'
else
    echo "== dateutil: not installed (scripts/deps.sh), skipped"
fi
if wanted schedcal && /usr/bin/python3 -c 'import dateutil' 2>/dev/null; then
    echo "== dateutil $(/usr/bin/python3 -c 'import dateutil; print(dateutil.__version__)'), schedules over a calendar"
    /usr/bin/python3 "$here/bench/peers/schedcal_dateutil_bench.py" |
        tee -a "$out" | grep -v '^bench	'
fi
if ! wanted exec; then
    :
elif [ -z "${SKED_BENCH_PG_URL:-}" ]; then
    echo "== graphile-worker: no PostgreSQL, skipped"
elif command -v node >/dev/null &&
    [ -f "$here/bench/peers/node_modules/graphile-worker/package.json" ]; then
    echo "== graphile-worker"
    node "$here/bench/peers/graphile_bench.mjs" | tee -a "$out" | grep -v '^bench	'
else
    echo "== graphile-worker: not installed (scripts/deps.sh), skipped"
fi

if ! wanted dbos; then
    :
elif [ -z "${SKED_BENCH_PG_URL:-}" ]; then
    echo "== DBOS Transact: no PostgreSQL, skipped"
elif ! command -v node >/dev/null; then
    echo "== DBOS Transact: no Node.js (scripts/deps.sh), skipped"
elif [ ! -f "$dbos/node_modules/@dbos-inc/dbos-sdk/package.json" ] &&
    ! npm ci --prefix "$dbos" --no-audit --no-fund --loglevel=error; then
    echo "== DBOS Transact: npm ci in bench/peers/dbos failed, skipped"
else
    echo "== DBOS Transact $(node -p "require('$dbos/node_modules/@dbos-inc/dbos-sdk/package.json').version")"
    # Its pg driver warns of its own overlapping queries: not ours to show.
    node --no-deprecation "$dbos/dbos_bench.mjs" | tee -a "$out" | grep -v '^bench	'
fi

mkdir -p "$here/bench/results"
results=$here/bench/results/$(date -u +%Y%m%d-%H%M%S).jsonl
results_jsonl "$out" >"$results"
status=0
summary "$out" || status=$?
echo
echo "== the figures as JSON lines: $results (bench/compare.py A B compares two runs)"
exit "$status"
