// SPDX-License-Identifier: MIT
/* Time DBOS Transact (its TypeScript SDK), the durable-workflow system
 * sked was designed from, on the PostgreSQL server sked is measured on.
 * DBOS keeps every workflow's status and each step's result in its system
 * database, as sked keeps its runs and steps: the comparison is of the
 * same durable work.
 *
 *   workflows  no-op workflows of one step per second, N of them, in its
 *              fastest correct configuration of three: startWorkflow from
 *              64 concurrent callers each awaiting its result; a queue
 *              (everything enqueued, then awaited) with DBOS's defaults;
 *              the same queue polled every 10 ms with a worker
 *              concurrency of 64. Timed from the first start to the last
 *              result.
 *   scheduled  1,000 schedules of the same workflow firing every second
 *              (`* * * * * *`, DBOS's six-field crontab): the scheduled
 *              workflows that began in a window of W seconds, per second
 *              (DBOS's firing rate when 1,000 are due each second: 1,000
 *              when it keeps up), and their lag behind their scheduled
 *              instant (p50, p99). DBOS spreads a schedule's wake-up by
 *              up to a tenth of the time to its next firing (against a
 *              thundering herd): the lag includes it, as a user's would.
 *   latency    from startWorkflow to its first step's start, p50 and p99
 *              over R workflows started one at a time at 100 per second.
 *
 * Usage: node dbos_bench.mjs [POSTGRES_URL]   (or SKED_BENCH_PG_URL)
 * The database's schema "dbos" is dropped first: DBOS makes it again.
 * SKED_BENCH_DBOS_WORKFLOWS sets N (3000), SKED_BENCH_DBOS_WINDOW W (10),
 * SKED_BENCH_DBOS_LATENCY_RUNS R (else SKED_BENCH_LATENCY_RUNS, as sked's
 * bench_latency, else 10000). The SDK comes from
 * bench/peers/dbos/node_modules (scripts/bench.sh installs it on demand).
 *
 * Output: human lines, then the tab-separated lines
 *
 *     bench  dbos_workflows  CONFIG  N  WORKFLOWS_PER_SEC
 *     bench  dbos_scheduled  SCHEDULES  SECONDS  FIRED_PER_SEC  P50_MS  P99_MS
 *     bench  dbos_latency    R  P50_MS  P99_MS */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';

const given = process.argv[2] || process.env.SKED_BENCH_PG_URL;
const nwf = Number(process.env.SKED_BENCH_DBOS_WORKFLOWS || 3000);
const window = Number(process.env.SKED_BENCH_DBOS_WINDOW || 10);
const nlat = Number(process.env.SKED_BENCH_DBOS_LATENCY_RUNS ||
                   process.env.SKED_BENCH_LATENCY_RUNS || 10000);
const SCHEDULES = 1000;
if (!given || !(nwf > 0) || !(window > 0) || !(nlat > 0)) {
    console.error('usage: dbos_bench.mjs POSTGRES_URL (or SKED_BENCH_PG_URL)');
    process.exit(2);
}
/* libpq's URLs may leave the host out (a socket directory in ?host=);
 * DBOS reads its URL with WHATWG's parser, which wants one: the query's
 * host still wins. */
const url = given.replace(/^(postgres(?:ql)?:\/\/[^/@]*@)\//, '$1localhost/');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quantile = (sorted, q) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const db = new pg.Client({ connectionString: url });
await db.connect();
await db.query('DROP SCHEMA IF EXISTS dbos CASCADE');
await db.end();

/* The workflows: one no-op step; and one that says when its step began. */
const noop = DBOS.registerStep(async () => 1, { name: 'noop' });
const oneStep = DBOS.registerWorkflow(async (i) => { await noop(); return i; },
                                      { name: 'one_step' });
const began = DBOS.registerStep(async () => performance.now(),
                                { name: 'began' });
const timed = DBOS.registerWorkflow(async () => began(), { name: 'timed' });
const fired = [];
const scheduled = DBOS.registerWorkflow(async (at) => {
    fired.push({ at: at.getTime(), began: Date.now() });
    await noop();
}, { name: 'scheduled' });

DBOS.setConfig({
    name: 'sked-bench',
    systemDatabaseUrl: url,
    systemDatabasePoolSize: 40,
    schedulerPollingIntervalMs: 1000,
    logLevel: 'error',
});
await DBOS.launch();
const defaults = await DBOS.registerQueue('bench_default');
const tuned = await DBOS.registerQueue('bench_tuned',
                                       { workerConcurrency: 64,
                                         minPollingIntervalMs: 10 });

/* N one-step workflows started by START(i), each awaited: per second. */
async function rate(start, lanes) {
    let next = 0;
    const t0 = performance.now();
    async function lane() {
        while (next < nwf) {
            const h = await start(next++);
            await h.getResult();
        }
    }
    await Promise.all(Array.from({ length: lanes }, lane));
    return nwf / ((performance.now() - t0) / 1000);
}

const configs = [
    ['start', () => rate((i) => DBOS.startWorkflow(oneStep)(i), 64)],
    ['queue', () => rate((i) => DBOS.startWorkflow(oneStep,
        { queueName: defaults.name })(i), nwf)],
    ['queue_tuned', () => rate((i) => DBOS.startWorkflow(oneStep,
        { queueName: tuned.name })(i), nwf)],
];
await rate((i) => DBOS.startWorkflow(oneStep)(i), 16); /* warm up */
const lines = [];
for (const [name, run] of configs) {
    const perSec = await run();
    console.log(`workflows ${name.padEnd(12)} ${nwf} one-step workflows: ` +
                `${perSec.toFixed(0)}/s`);
    lines.push(['bench', 'dbos_workflows', name, nwf, perSec.toFixed(0)]);
}

/* 1,000 schedules firing every second, as many as DBOS can start: the
 * workflows that began in a window of W seconds (from three seconds
 * after the schedules were made), per second, and their lag. Then the
 * schedules are deleted and what they had queued is left to finish
 * (until nothing more begins for two seconds, at most a minute). */
const names = Array.from({ length: SCHEDULES }, (_, i) => `s${i}`);
await DBOS.applySchedules(names.map((scheduleName) => ({
    scheduleName, workflowFn: scheduled, schedule: '* * * * * *' })));
const from = Date.now() + 3000;
const to = from + window * 1000;
await sleep(to - Date.now());
const inWindow = fired.filter((f) => f.began >= from && f.began < to);
const lags = inWindow.map((f) => f.began - f.at).sort((a, b) => a - b);
const perSec = inWindow.length / window;
for (const n of names)
    await DBOS.deleteSchedule(n);
for (let seen = -1, t = Date.now(); seen !== fired.length &&
     Date.now() - t < 60000;) {
    seen = fired.length;
    await sleep(2000);
}
console.log(`scheduled ${SCHEDULES} schedules every second, ${window} s: ` +
            `${perSec.toFixed(0)} workflows began/s (due: ${SCHEDULES}/s), ` +
            `lag p50 ${quantile(lags, 0.5)} ms p99 ${quantile(lags, 0.99)} ms`);
lines.push(['bench', 'dbos_scheduled', SCHEDULES, window, perSec.toFixed(0),
            quantile(lags, 0.5), quantile(lags, 0.99)]);

/* One at a time, at 100 per second. */
const lat = [];
for (let i = 0; i < nlat; i++) {
    const t0 = performance.now();
    const h = await DBOS.startWorkflow(timed)();
    lat.push((await h.getResult()) - t0);
    await sleep(Math.max(0, 10 - (performance.now() - t0)));
}
lat.sort((a, b) => a - b);
console.log(`latency startWorkflow to its first step, ${nlat} at 100/s: ` +
            `p50 ${quantile(lat, 0.5).toFixed(2)} ms ` +
            `p99 ${quantile(lat, 0.99).toFixed(2)} ms`);
lines.push(['bench', 'dbos_latency', nlat, quantile(lat, 0.5).toFixed(3),
            quantile(lat, 0.99).toFixed(3)]);

await DBOS.shutdown();
for (const l of lines)
    console.log(l.join('\t'));
