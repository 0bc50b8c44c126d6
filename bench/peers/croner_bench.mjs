// SPDX-License-Identifier: MIT
/* Time croner on the expression set of bench/bench_cron.c: microseconds
 * per construction (parse) and per chained nextRun, each call starting
 * from the previous occurrence, restarting every CHAIN_LEN calls; the
 * median of REPEATS runs after a warm-up (the JIT's). croner comes from
 * tests/oracle/node_modules (scripts/deps.sh installs it).
 *
 * croner's fastest correct configuration per zone: in UTC no timezone
 * option, in a process whose local zone is UTC (set below), which keeps
 * croner off Intl (about ten times faster); in any other zone the
 * timezone option, croner's only way to compute in that zone. The UTC
 * fast path is checked against croner's own `timezone: 'UTC'` path: the
 * two must give the same occurrences, or the bench stops.
 *
 * Output: a table, then per case the tab-separated line
 *
 *     bench  croner  EXPR  ZONE  PARSE_US  NEXT_US  DIGEST  CONFIG
 *
 * DIGEST is COUNT:SUM of the occurrences (seconds since the epoch) of
 * DIGEST_LEN chained calls from each of DIGEST_ORIGINS, as bench_cron.c
 * computes it, and CONFIG names the configuration timed. EXPR is written
 * as bench_cron.c writes it; croner reads it as is. */
process.env.TZ = 'UTC';
const { Cron } = await import('../../tests/oracle/node_modules/croner/dist/croner.js');

const REPEATS = 7;
const PARSE_CALLS = 1000;
const NEXT_CALLS = 3000;
const WARMUP_CALLS = 20000;
const ORIGIN = new Date('2025-01-01T00:00:00Z');
const CHAIN_LEN = 300; /* as in bench_cron.c: restart at ORIGIN */
const DIGEST_LEN = 20;
const DIGEST_ORIGINS = ['2025-01-01T00:00:00Z', '2025-03-09T06:55:00Z',
                        '2025-03-30T00:55:00Z', '2025-10-26T00:55:00Z',
                        '2025-11-02T05:55:00Z'].map(s => new Date(s));

const EXPRS = ['* * * * *', '*/5 * * * *', '0 9 * * 1-5', '0 0 29 2 *',
               '*/30 * * * * *', '0 0 9 * * *'];
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York'];
const CASES = EXPRS.flatMap(e => ZONES.map(z => [e, z]))
    .concat([['15 10 L * ?', 'UTC'], ['0 12 * * 5#3', 'UTC']]);

if (new Date(0).getTimezoneOffset() !== 0)
    throw new Error('croner_bench: the process zone is not UTC');

function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
}

function microsPerCall(calls, body) {
    body(WARMUP_CALLS);
    const runs = [];
    for (let r = 0; r < REPEATS; r++) {
        const start = process.hrtime.bigint();
        body(calls);
        runs.push(Number(process.hrtime.bigint() - start) / 1000 / calls);
    }
    return median(runs);
}

function options(zone, fast) {
    return fast && zone === 'UTC' ? { paused: true } : { timezone: zone, paused: true };
}

function timeParse(expr, opts) {
    return microsPerCall(PARSE_CALLS, calls => {
        for (let i = 0; i < calls; i++)
            new Cron(expr, opts).stop();
    });
}

function timeNext(expr, opts) {
    const job = new Cron(expr, opts);
    const us = microsPerCall(NEXT_CALLS, calls => {
        let t = ORIGIN;
        for (let i = 0; i < calls; i++)
            t = (i % CHAIN_LEN === 0 ? null : job.nextRun(t)) ?? job.nextRun(ORIGIN);
    });
    job.stop();
    return us;
}

function digest(expr, opts) {
    const job = new Cron(expr, opts);
    let count = 0, sum = 0;
    for (const origin of DIGEST_ORIGINS) {
        let t = origin;
        for (let i = 0; i < DIGEST_LEN; i++) {
            t = job.nextRun(t);
            if (!t) break;
            sum += Math.floor(t.getTime() / 1000);
            count++;
        }
    }
    job.stop();
    return `${count}:${sum}`;
}

console.log('expression'.padEnd(18), 'zone'.padEnd(18), 'parse us'.padStart(9),
            'next us'.padStart(9), ' configuration');
const lines = [];
for (const [expr, zone] of CASES) {
    const opts = options(zone, true);
    const config = opts.timezone ? 'timezone option' : 'no timezone option';
    const dig = digest(expr, opts);
    if (dig !== digest(expr, options(zone, false)))
        throw new Error(`croner_bench: ${expr} ${zone}: the fast path differs`);
    const parse = timeParse(expr, opts);
    const next = timeNext(expr, opts);
    console.log(expr.padEnd(18), zone.padEnd(18), parse.toFixed(2).padStart(9),
                next.toFixed(2).padStart(9), '', config);
    lines.push(`bench\tcroner\t${expr}\t${zone}\t${parse.toFixed(3)}\t${next.toFixed(3)}\t${dig}\t${config}`);
}
console.log(lines.join('\n'));
