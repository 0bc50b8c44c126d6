// SPDX-License-Identifier: MIT
/* Time croner on the expression set of bench/bench_cron.c: microseconds
 * per construction (parse) and per chained nextRun, each call starting
 * from the previous occurrence, restarting every CHAIN_LEN calls; the median of REPEATS runs. croner comes
 * from tests/oracle/node_modules (scripts/deps.sh installs it).
 *
 * Output: a table, then per case the tab-separated line
 *
 *     bench  croner  EXPR  ZONE  PARSE_US  NEXT_US
 *
 * EXPR is written as bench_cron.c writes it; croner reads it as is. */
import { Cron } from '../../tests/oracle/node_modules/croner/dist/croner.js';

const REPEATS = 7;
const PARSE_CALLS = 1000;
const NEXT_CALLS = 1000;
const ORIGIN = new Date('2025-01-01T00:00:00Z');
const CHAIN_LEN = 300; /* as in bench_cron.c: restart at ORIGIN */

const EXPRS = ['* * * * *', '*/5 * * * *', '0 9 * * 1-5', '0 0 29 2 *',
               '*/30 * * * * *', '0 0 9 * * *'];
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York'];
const CASES = EXPRS.flatMap(e => ZONES.map(z => [e, z]))
    .concat([['15 10 L * ?', 'UTC'], ['0 12 * * 5#3', 'UTC']]);

function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
}

function microsPerCall(calls, body) {
    const runs = [];
    for (let r = 0; r < REPEATS; r++) {
        const start = process.hrtime.bigint();
        body(calls);
        runs.push(Number(process.hrtime.bigint() - start) / 1000 / calls);
    }
    return median(runs);
}

function timeParse(expr, zone) {
    return microsPerCall(PARSE_CALLS, calls => {
        for (let i = 0; i < calls; i++)
            new Cron(expr, { timezone: zone, paused: true }).stop();
    });
}

function timeNext(expr, zone) {
    const job = new Cron(expr, { timezone: zone, paused: true });
    const us = microsPerCall(NEXT_CALLS, calls => {
        let t = ORIGIN;
        for (let i = 0; i < calls; i++)
            t = (i % CHAIN_LEN === 0 ? null : job.nextRun(t)) ?? job.nextRun(ORIGIN);
    });
    job.stop();
    return us;
}

console.log('expression'.padEnd(18), 'zone'.padEnd(18), 'parse us'.padStart(9),
            'next us'.padStart(9));
const lines = [];
for (const [expr, zone] of CASES) {
    const parse = timeParse(expr, zone);
    const next = timeNext(expr, zone);
    console.log(expr.padEnd(18), zone.padEnd(18), parse.toFixed(2).padStart(9),
                next.toFixed(2).padStart(9));
    lines.push(`bench\tcroner\t${expr}\t${zone}\t${parse.toFixed(3)}\t${next.toFixed(3)}`);
}
console.log(lines.join('\n'));
