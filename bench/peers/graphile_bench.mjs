// SPDX-License-Identifier: MIT
/* Time graphile-worker, the PostgreSQL job queue sked's execution is
 * compared against, running no-op jobs: per configuration, N jobs are
 * queued first in bulk (addJobs, not timed), then a worker with a no-op
 * task is started, and the clock runs from the first job's start to the
 * moment the database holds none of them (completed jobs are deleted).
 *
 * Configurations: graphile-worker's defaults at concurrency 1, 4 and 16
 * (sked's worker counts; the pool as its docs advise, the larger of 10 and
 * concurrency + 2), and its fastest documented setup ("Performance" in
 * its docs): concurrency 24, a pool of 25 connections, a local queue of
 * 500 jobs fetched at once, completions and failures batched. Each runs
 * in a schema of its own, dropped afterwards. The worker runs in this
 * process: Node's start-up, which graphile-worker's CLI timed from a shell
 * would add, is not counted.
 *
 * Usage: node graphile_bench.mjs [POSTGRES_URL]   (or SKED_BENCH_PG_URL)
 * SKED_BENCH_EXEC_JOBS sets N (default 20000). graphile-worker comes from
 * bench/peers/node_modules (scripts/deps.sh installs it); 0.18 asks for
 * Node 22.18, but what this script uses runs on Debian's Node 20.
 *
 * Output: human lines, then per configuration the tab-separated line
 *
 *     bench  graphile  CONFIG  CONCURRENCY  JOBS  JOBS_PER_SEC
 *
 * CONFIG is `default` or `local_queue`. Then its latency from addJob to the
 * task's start (graphile-worker's own "add to start" figure, 4.2 ms on
 * average in its documentation), R jobs added one at a time at 100 per
 * second to a worker of its defaults at concurrency 4 (sked's server in
 * bench_latency has 4 workers), R from SKED_BENCH_LATENCY_RUNS (10000):
 *
 *     bench  graphile_latency  R  P50_MS  P99_MS  MEAN_MS */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { Logger, makeWorkerUtils, run } from 'graphile-worker';

const url = process.argv[2] || process.env.SKED_BENCH_PG_URL;
const jobs = Number(process.env.SKED_BENCH_EXEC_JOBS || 20000);
if (!url || !(jobs > 0)) {
    console.error('usage: graphile_bench.mjs POSTGRES_URL (or SKED_BENCH_PG_URL);'
                  + ' SKED_BENCH_EXEC_JOBS > 0');
    process.exit(2);
}

const FASTEST = {
    maxPoolSize: 25,
    preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0,
                        failJobBatchDelay: 0 } },
};
const DEFAULT = c => ({ maxPoolSize: Math.max(10, c + 2) });
const CONFIGS = [
    { config: 'default', concurrency: 1, options: DEFAULT(1) },
    { config: 'default', concurrency: 4, options: DEFAULT(4) },
    { config: 'default', concurrency: 16, options: DEFAULT(16) },
    { config: 'local_queue', concurrency: 24, options: FASTEST },
];
const BULK = 5000; /* jobs per addJobs call */

/* Errors only: the worker's info lines would drown the figures. */
const logger = new Logger(() => (level, message) => {
    if (level === 'error') console.error(`graphile-worker: ${message}`);
});

async function remaining(utils, schema) {
    return utils.withPgClient(async client => Number((await client.query(
        `select count(*) from ${schema}.jobs`)).rows[0].count));
}

/* Jobs per second of one configuration, in schema SCHEMA. */
async function measure(schema, { concurrency, options }) {
    const common = { connectionString: url, schema, logger };
    const utils = await makeWorkerUtils(common);
    try {
        await utils.withPgClient(c => c.query(`drop schema if exists ${schema} cascade`));
        await utils.migrate();
        for (let i = 0; i < jobs; i += BULK) {
            const n = Math.min(BULK, jobs - i);
            await utils.addJobs(Array.from({ length: n },
                () => ({ identifier: 'noop', payload: {} })));
        }

        let start = null, done = 0, allSeen;
        const seen = new Promise(resolve => { allSeen = resolve; });
        const events = new EventEmitter();
        events.on('job:start', () => { start ??= process.hrtime.bigint(); });
        events.on('job:complete', () => { if (++done === jobs) allSeen(); });
        const runner = await run({
            ...common, ...options, concurrency, events, noHandleSignals: true,
            taskList: { noop: async () => {} },
        });
        await Promise.race([seen, runner.promise.then(() => {
            throw new Error('the worker stopped before the jobs were done');
        })]);
        while (await remaining(utils, schema) > 0)
            await new Promise(resolve => setTimeout(resolve, 2));
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        await runner.stop();
        return jobs / seconds;
    } finally {
        await utils.withPgClient(c => c.query(`drop schema if exists ${schema} cascade`));
        await utils.release();
    }
}

const pkg = JSON.parse(readFileSync(new URL(
    './node_modules/graphile-worker/package.json', import.meta.url)));
console.log(`graphile-worker ${pkg.version}, node ${process.version}, ${jobs} no-op jobs`);
console.log('config'.padEnd(12), 'concurrency'.padStart(11), 'jobs/s'.padStart(9));
for (const [i, c] of CONFIGS.entries()) {
    const rate = await measure(`graphile_worker_bench_${i}`, c);
    console.log(c.config.padEnd(12), String(c.concurrency).padStart(11),
                rate.toFixed(0).padStart(9));
    console.log(['bench', 'graphile', c.config, c.concurrency, jobs,
                 rate.toFixed(1)].join('\t'));
}

/* Add to start, in schema SCHEMA: R jobs at 100 per second, each added
 * with the instant before its addJob; the task takes the difference. */
async function latency(schema, runs) {
    const common = { connectionString: url, schema, logger };
    const utils = await makeWorkerUtils(common);
    const lat = [];
    try {
        await utils.withPgClient(c => c.query(`drop schema if exists ${schema} cascade`));
        await utils.migrate();
        const runner = await run({
            ...common, ...DEFAULT(4), concurrency: 4, noHandleSignals: true,
            taskList: { mark: async ({ t }) => { lat.push(performance.now() - t); } },
        });
        const start = performance.now();
        for (let i = 0; i < runs; i++) {
            const wait = start + i * 10 - performance.now();
            if (wait > 0)
                await new Promise(resolve => setTimeout(resolve, wait));
            await utils.addJob('mark', { t: performance.now() });
        }
        for (const deadline = Date.now() + 60000;
             lat.length < runs && Date.now() < deadline;)
            await new Promise(resolve => setTimeout(resolve, 10));
        await runner.stop();
    } finally {
        await utils.withPgClient(c => c.query(`drop schema if exists ${schema} cascade`));
        await utils.release();
    }
    return lat.sort((a, b) => a - b);
}

const runs = Number(process.env.SKED_BENCH_LATENCY_RUNS || 10000);
const lat = await latency('graphile_worker_bench_latency', runs);
const at = q => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))];
const mean = lat.reduce((a, b) => a + b, 0) / lat.length;
console.log(`add to start, ${lat.length} of ${runs} jobs at 100/s: p50 ${at(0.5).toFixed(2)} ms, ` +
            `p99 ${at(0.99).toFixed(2)} ms, mean ${mean.toFixed(2)} ms`);
console.log(['bench', 'graphile_latency', lat.length, at(0.5).toFixed(3),
             at(0.99).toFixed(3), mean.toFixed(3)].join('\t'));
