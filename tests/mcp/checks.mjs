// SPDX-License-Identifier: MIT
// The checks every transport must pass, written against the MCP
// specification (2025-11-25 and the versions before it) and SPEC 8 of
// sked: the lifecycle and each protocol version, the tools (their
// schemas, one valid and one bad call each, pagination), the resources
// and their subscriptions, the prompts, logging, and the cancellation of
// a long call. Each suite takes a context whose open(options) connects a
// new SDK Client (lib.mjs) and whose fixture() is the fixture of the
// test file (set in its before hook).
import assert from 'node:assert/strict';
import { describe, it, before, after } from 'node:test';

import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import Ajv2020 from 'ajv/dist/2020.js';

import { join } from 'node:path';

import { VERSIONS, TIMEOUT, skedVersion, sked, textOf, waitNote, sleep, readFileSync } from './lib.mjs';
import { writeFileSync } from 'node:fs';

// SPEC 8's sixteen tools, the two of issue 16, the five of calendars, the
// four of one occurrence, and the ping and five notifier tools of issue 19.
export const TOOLS = [
    'ping_schedule', 'list_notifiers', 'get_notifier', 'apply_notifier',
    'delete_notifier', 'list_deliveries',
    'skip_occurrence', 'unskip_occurrence', 'list_skips', 'run_occurrence',
    'put_calendar', 'list_calendars', 'get_calendar', 'calendar_days',
    'delete_calendar',
    'create_schedule', 'list_schedules', 'get_schedule', 'update_schedule',
    'pause_schedule', 'resume_schedule', 'delete_schedule', 'trigger_schedule',
    'backfill_schedule', 'preview_schedule', 'list_runs', 'get_run',
    'cancel_run', 'start_run', 'list_workflows', 'explain_cron',
    'simulate_schedule', 'list_events',
];
const READ_ONLY = new Set([
    'list_notifiers', 'get_notifier', 'list_deliveries',
    'list_skips', 'list_calendars', 'get_calendar', 'calendar_days',
    'list_schedules', 'get_schedule', 'preview_schedule', 'list_runs', 'get_run',
    'list_workflows', 'explain_cron', 'simulate_schedule', 'list_events',
]);
// SPEC 6: the optional fields of POST /api/v1/schedules, and docs/api.md's
// notes; create_schedule takes every one of them.
const SCHEDULE_FIELDS = [
    'name', 'workflow', 'cron', 'every', 'at', 'timezone', 'context', 'catchup',
    'catchup_max', 'catchup_window_secs', 'overlap', 'priority', 'queue',
    'jitter_secs', 'paused', 'automatic_backfill', 'dst', 'start_at', 'end_at',
    'max_runs', 'pause_after_failures', 'description', 'notes',
];

const sdkValidator = new AjvJsonSchemaValidator();
// The dialect MCP 2025-11-25 assumes when a schema names none.
const ajv2020 = new Ajv2020({ strict: false, allErrors: true });

// The name of the argument of TOOL among CANDIDATES (the API's names
// first): the first one its inputSchema has, else the first candidate, so
// that a schema without it fails the check that validates the arguments.
export function key(tool, ...candidates) {
    const props = tool?.inputSchema?.properties ?? {};
    return candidates.find((c) => c in props) ?? candidates[0];
}

const show = (v) => JSON.stringify(v);

// The arguments of an hourly schedule NAME of workflow tidy, "every" as
// create_schedule's schema names it.
function hourly(call, name) {
    const t = call.tool('create_schedule');
    return key(t, 'every', 'every_secs') === 'every'
        ? { name, workflow: 'tidy', every: '1h' }
        : { name, workflow: 'tidy', every_secs: 3600 };
}
const word = (w) => new RegExp(`(^|[^A-Za-z0-9_])${w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}($|[^A-Za-z0-9_])`);

// Tool calls of CLIENT, whose tools (from tools/list) are in TOOLSET.
class Caller {
    constructor(client, toolset) {
        this.client = client;
        this.tools = toolset;
    }
    tool(name) {
        const t = this.tools.get(name);
        assert.ok(t, `tools/list has no ${name}`);
        return t;
    }
    async raw(name, args, options = {}) {
        try {
            return await this.client.callTool({ name, arguments: args }, undefined, {
                timeout: TIMEOUT,
                ...options,
            });
        } catch (e) {
            if (e instanceof McpError) {
                e.message = `${name} ${show(args)}: ${e.message} (JSON-RPC error ${e.code})`;
            }
            throw e;
        }
    }
    // A valid call: ARGS match the tool's inputSchema, the result is no
    // error, and its structuredContent (validated by the SDK against the
    // outputSchema) and text are there. Returns the structuredContent.
    async ok(name, args) {
        const t = this.tool(name);
        const v = sdkValidator.getValidator(t.inputSchema)(args);
        assert.ok(v.valid, `${name} ${show(args)} does not match its own inputSchema: ${v.errorMessage}`);
        const r = await this.raw(name, args);
        assert.ok(!r.isError, `${name} ${show(args)} failed: ${textOf(r)}`);
        assert.equal(typeof r.structuredContent, 'object', `${name}: no structuredContent`);
        assert.ok(textOf(r).length > 0, `${name}: no text content`);
        return r.structuredContent;
    }
    // A bad call: a tool result with isError true (not a JSON-RPC error)
    // whose text names each of WORDS. Returns the text.
    async bad(name, args, words) {
        const r = await this.raw(name, args);
        const text = textOf(r);
        assert.equal(r.isError, true, `${name} ${show(args)}: isError is ${r.isError}, text: ${text}`);
        for (const w of words) {
            assert.match(text, word(w), `${name} ${show(args)}: the error does not name ${show(w)}: ${text}`);
        }
        return text;
    }
}

// A client and its tools, opened in before and closed in after.
function session(ctx) {
    const s = {};
    before(async () => {
        s.client = await ctx.open();
        const { tools } = await s.client.listTools(undefined, { timeout: TIMEOUT });
        s.list = tools;
        s.call = new Caller(s.client, new Map(tools.map((t) => [t.name, t])));
    });
    after(async () => {
        await (s.client?.end ? s.client.end() : s.client?.close());
    });
    return s;
}

// Expect PROMISE to fail with the JSON-RPC error CODE.
async function rpcError(promise, code, what) {
    await assert.rejects(promise, (e) => {
        assert.ok(e instanceof McpError, `${what}: not a JSON-RPC error: ${e}`);
        assert.equal(e.code, code, `${what}: error ${e.code} (${e.message}), want ${code}`);
        return true;
    });
}

export function initSuite(ctx) {
    describe('initialize', () => {
        const version = skedVersion();
        for (const v of VERSIONS) {
            it(`offered ${v}: answers ${v}, sked's version, the capabilities, and works`, async () => {
                const client = await ctx.open({ version: v });
                try {
                    const res = client.wire.initializeResult;
                    assert.ok(res, 'no initialize result');
                    assert.equal(res.protocolVersion, v);
                    assert.equal(res.serverInfo?.name, 'sked');
                    assert.equal(res.serverInfo?.version, version, 'serverInfo.version is not sked --version');
                    const caps = client.getServerCapabilities();
                    assert.ok(caps.tools, 'no tools capability');
                    assert.equal(caps.resources?.subscribe, true, 'resources.subscribe');
                    assert.equal(caps.resources?.listChanged, true, 'resources.listChanged');
                    assert.ok(caps.logging, 'no logging capability');
                    assert.ok(caps.prompts, 'no prompts capability');
                    await client.ping({ timeout: TIMEOUT });
                    const { tools } = await client.listTools(undefined, { timeout: TIMEOUT });
                    assert.equal(tools.length, TOOLS.length);
                    const r = await client.callTool(
                        { name: 'get_schedule', arguments: { [key(tools.find((t) => t.name === 'get_schedule'), 'name', 'schedule')]: 'tidy' } },
                        undefined,
                        { timeout: TIMEOUT },
                    );
                    assert.ok(!r.isError, textOf(r));
                    assert.match(textOf(r), /tidy/);
                } finally {
                    await client.close();
                }
            });
        }
        it('offered a version it does not know: answers its latest', async () => {
            const client = await ctx.open({ version: '2099-01-01' });
            try {
                assert.equal(client.wire.initializeResult?.protocolVersion, VERSIONS[0]);
            } finally {
                await client.close();
            }
        });
    });
}

export function toolsSuite(ctx) {
    describe('tools', () => {
        const s = session(ctx);

        it(`lists the ${TOOLS.length} tools, each with a description`, () => {
            assert.deepEqual(s.list.map((t) => t.name).sort(), [...TOOLS].sort());
            for (const t of s.list) assert.ok(t.description?.length > 20, `${t.name}: no description`);
        });

        it('every inputSchema and outputSchema compiles (the SDK\'s ajv, and as JSON Schema 2020-12)', () => {
            for (const t of s.list) {
                for (const which of ['inputSchema', 'outputSchema']) {
                    const schema = t[which];
                    assert.ok(schema, `${t.name}: no ${which}`);
                    assert.equal(schema.type, 'object', `${t.name}.${which}.type`);
                    assert.doesNotThrow(() => sdkValidator.getValidator(schema), `${t.name}.${which} does not compile`);
                    assert.ok(ajv2020.validateSchema(schema), `${t.name}.${which}: ${ajv2020.errorsText(ajv2020.errors)}`);
                }
                assert.ok(Object.keys(t.outputSchema.properties ?? {}).length > 0, `${t.name}.outputSchema has no properties`);
            }
        });

        it('every argument has a type and a description a model can act on', () => {
            for (const t of s.list) {
                for (const [k, p] of Object.entries(t.inputSchema.properties ?? {})) {
                    assert.ok(p.type || p.enum || p.oneOf || p.anyOf || p.const !== undefined, `${t.name}.${k}: no type`);
                    assert.ok(p.description?.length > 5, `${t.name}.${k}: no description`);
                }
                for (const r of t.inputSchema.required ?? []) {
                    assert.ok(r in (t.inputSchema.properties ?? {}), `${t.name}: required ${r} is not a property`);
                }
            }
        });

        it('create_schedule takes every field of the API; enums and bounds are in the schema', () => {
            const props = s.call.tool('create_schedule').inputSchema.properties;
            // "every" is also read as every_secs, the name of its answer.
            const missing = SCHEDULE_FIELDS.filter((f) => !(f in props) && !(f === 'every' && 'every_secs' in props));
            assert.deepEqual(missing, [], `create_schedule lacks ${missing.join(', ')}`);
            assert.deepEqual([...(props.overlap?.enum ?? [])].sort(), ['allow', 'buffer_all', 'buffer_one', 'cancel_other', 'skip'], 'overlap: enum');
            assert.deepEqual([...(props.catchup?.enum ?? [])].sort(), ['all', 'latest', 'skip'], 'catchup: enum');
            // Every spelling sked_dst_parse takes: once, cadence, and one gap
            // word and/or one fold word in either order.
            const gaps = ['shift', 'skip'], folds = ['first', 'last', 'both'];
            const spellings = ['once', 'cadence', ...gaps, ...folds,
                ...gaps.flatMap((g) => folds.flatMap((f) => [`${g},${f}`, `${f},${g}`]))];
            assert.deepEqual([...(props.dst?.enum ?? [])].sort(), spellings.sort(), 'dst: enum');
            assert.equal(props.catchup_max?.minimum, 1, 'catchup_max: minimum');
            assert.equal(props.catchup_max?.maximum, 1000, 'catchup_max: maximum');
            const req = s.call.tool('create_schedule').inputSchema.required ?? [];
            assert.ok(req.includes('workflow'), 'create_schedule: workflow is not required');
        });

        it('annotations: read-only, destructive and idempotent hints', () => {
            for (const t of s.list) {
                const a = t.annotations;
                assert.ok(a, `${t.name}: no annotations`);
                for (const h of ['readOnlyHint', 'destructiveHint', 'idempotentHint']) {
                    assert.equal(typeof a[h], 'boolean', `${t.name}.annotations.${h}`);
                }
                assert.equal(a.readOnlyHint, READ_ONLY.has(t.name), `${t.name}.readOnlyHint`);
            }
            for (const n of ['delete_schedule', 'cancel_run', 'delete_notifier']) {
                assert.equal(s.call.tool(n).annotations.destructiveHint, true, `${n}.destructiveHint`);
            }
            for (const n of ['get_schedule', 'pause_schedule', 'resume_schedule', 'delete_schedule']) {
                assert.equal(s.call.tool(n).annotations.idempotentHint, true, `${n}.idempotentHint`);
            }
            assert.equal(s.call.tool('trigger_schedule').annotations.idempotentHint, false, 'trigger_schedule.idempotentHint');
            assert.equal(s.call.tool('ping_schedule').annotations.idempotentHint, false, 'ping_schedule.idempotentHint');
            assert.equal(s.call.tool('apply_notifier').annotations.idempotentHint, true, 'apply_notifier.idempotentHint');
        });

        describe('every tool with valid input', () => {
            const st = {};
            const name = 'mcp-report';
            const nm = (tool) => key(s.call.tool(tool), 'name', 'schedule');
            const rid = (tool) => key(s.call.tool(tool), 'id', 'run_id');

            it('list_workflows', async () => {
                const out = await s.call.ok('list_workflows', {});
                const names = out.workflows.map((w) => w.name);
                for (const w of ['tidy', 'flaky', 'slow']) assert.ok(names.includes(w), `no workflow ${w}: ${names}`);
            });
            it('explain_cron', async () => {
                const t = s.call.tool('explain_cron');
                const out = await s.call.ok('explain_cron', {
                    [key(t, 'expression', 'cron', 'expr')]: '0 9 * * 1-5',
                    [key(t, 'timezone', 'tz')]: 'Europe/Paris',
                });
                assert.match(show(out), /At 09:00, Monday through Friday/);
            });
            it('create_schedule (with optional fields), seen by the CLI', async () => {
                const out = await s.call.ok('create_schedule', {
                    name, workflow: 'tidy', cron: '0 9 * * 1-5', timezone: 'Europe/Paris',
                    catchup: 'all', catchup_max: 5, catchup_window_secs: 259200, overlap: 'skip',
                    description: 'made by an MCP client',
                });
                assert.equal(out.name, name);
                assert.equal(out.timezone, 'Europe/Paris');
                assert.equal(out.catchup_max, 5);
                assert.equal(out.overlap, 'skip');
                assert.equal(out.status, 'active');
                assert.equal(out.source, 'api');
                const cli = JSON.parse(sked(['--db', ctx.fixture().db, 'schedule', 'get', name, '--json']));
                assert.equal(cli.catchup_window_secs, 259200);
                assert.equal(cli.description, 'made by an MCP client');
            });
            it('get_schedule', async () => {
                const out = await s.call.ok('get_schedule', { [nm('get_schedule')]: name });
                assert.equal(out.name, name);
                assert.equal(out.cron, '0 9 * * 1-5');
            });
            it('list_schedules', async () => {
                const out = await s.call.ok('list_schedules', {});
                const names = out.schedules.map((x) => x.name);
                assert.ok(names.includes(name) && names.includes('tidy'), `${names}`);
            });
            it('update_schedule', async () => {
                const out = await s.call.ok('update_schedule', { [nm('update_schedule')]: name, cron: '0 10 * * 1-5' });
                assert.equal(out.cron, '0 10 * * 1-5');
                assert.equal(out.timezone, 'Europe/Paris', 'a field not given changed');
            });
            it('preview_schedule', async () => {
                const t = s.call.tool('preview_schedule');
                const out = await s.call.ok('preview_schedule', { [nm('preview_schedule')]: name, [key(t, 'n', 'count', 'limit')]: 3 });
                assert.equal(out.occurrences.length, 3);
                for (const o of out.occurrences) assert.match(o.local, /T10:00:00\+0[12]:00$/);
            });
            it('pause_schedule', async () => {
                const out = await s.call.ok('pause_schedule', { [nm('pause_schedule')]: name });
                assert.equal(out.status, 'paused');
            });
            it('resume_schedule', async () => {
                const out = await s.call.ok('resume_schedule', { [nm('resume_schedule')]: name });
                assert.equal(out.status, 'active');
            });
            it('trigger_schedule', async () => {
                const out = await s.call.ok('trigger_schedule', { [nm('trigger_schedule')]: name });
                assert.equal(typeof out.run_id, 'string');
                st.triggered = out.run_id;
            });
            it('backfill_schedule', async () => {
                const out = await s.call.ok('backfill_schedule', {
                    [nm('backfill_schedule')]: name, start: '2026-11-01T00:00:00Z', end: '2026-11-08T00:00:00Z',
                });
                assert.equal(out.created + out.skipped, 5, show(out)); // Monday to Friday
            });
            it('simulate_schedule', async () => {
                const out = await s.call.ok('simulate_schedule', {
                    [nm('simulate_schedule')]: name, from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z',
                });
                const text = show(out);
                for (const d of ['02', '03', '04', '05', '06']) assert.ok(text.includes(`2026-11-${d}T09:00:00Z`), `no 2026-11-${d}: ${text}`);
                assert.ok(!text.includes('2026-11-07T09:00:00Z'), 'a Saturday fired');
            });
            it('list_runs', async () => {
                const t = s.call.tool('list_runs');
                const out = await s.call.ok('list_runs', { [key(t, 'schedule')]: name });
                const ids = out.runs.map((r) => r.id);
                assert.ok(ids.includes(st.triggered), `${st.triggered} not in ${ids}`);
                assert.equal(ids.length, 6, `the trigger and 5 backfilled: ${ids}`);
                assert.ok('next_cursor' in out, 'no next_cursor');
            });
            it('get_run (a failed run, with its steps)', async () => {
                const out = await s.call.ok('get_run', { [rid('get_run')]: ctx.fixture().failedRun });
                assert.equal(out.status, 'failed');
                assert.equal(out.steps?.[0]?.step, 'fetch');
                assert.match(out.steps[0].stderr, /connection refused/);
            });
            it('start_run', async () => {
                const out = await s.call.ok('start_run', { workflow: 'slow' });
                assert.equal(out.workflow, 'slow');
                assert.ok(['pending', 'running'].includes(out.status), out.status);
                st.slow = out.id;
            });
            it('cancel_run', async () => {
                const out = await s.call.ok('cancel_run', { [rid('cancel_run')]: st.slow });
                assert.equal(out.id, st.slow);
                assert.ok(out.status === 'cancelled' || out.cancel_requested_at, show(out));
            });
            it('list_events', async () => {
                const out = await s.call.ok('list_events', { limit: 5 });
                assert.ok(out.events.length > 0 && out.events.length <= 5, `${out.events.length} events`);
                assert.ok(out.events.every((e) => e.id && e.type && e.at), show(out.events[0]));
                assert.ok(out.next_cursor, 'a page of 5 of many events has a next_cursor');
            });
            it('put_calendar, get_calendar, list_calendars, calendar_days, delete_calendar', async () => {
                const put = await s.call.ok('put_calendar', {
                    name: 'mcp-holidays', dates: ['2030-07-04'], observed: 'nearest_weekday',
                    rules: ['FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25'], weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'],
                });
                assert.equal(put.name, 'mcp-holidays');
                assert.equal(put.observed, 'nearest_weekday');
                const got = await s.call.ok('get_calendar', { name: 'mcp-holidays' });
                assert.deepEqual(got.rules, ['FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25']);
                const list = await s.call.ok('list_calendars', {});
                assert.ok(list.calendars.some((c) => c.name === 'mcp-holidays'), show(list));
                // 2030-12-25 is a Wednesday; 2030-07-04 a Thursday.
                const days = await s.call.ok('calendar_days', { name: 'mcp-holidays', from: '2030-01-01', to: '2030-12-31' });
                assert.deepEqual(days.days.map((d) => d.date), ['2030-07-04', '2030-12-25']);
                const biz = await s.call.ok('calendar_days', { name: 'mcp-holidays', from: '2030-12-23', to: '2030-12-27', business: true });
                assert.deepEqual(biz.days.map((d) => d.date), ['2030-12-23', '2030-12-24', '2030-12-26', '2030-12-27']);
                const del = await s.call.ok('delete_calendar', { name: 'mcp-holidays' });
                assert.equal(del.deleted, true);
                await s.call.bad('get_calendar', { name: 'mcp-holidays' }, ['mcp-holidays']);
            });
            it('put_calendar: a bad date, an unknown include, a rule that cannot be', async () => {
                await s.call.bad('put_calendar', { name: 'mcp-bad', dates: ['2030-02-30'] }, ['dates[0]', 'no day 30']);
                await s.call.bad('put_calendar', { name: 'mcp-bad', include: ['nope'] }, ['include[0]', 'nope']);
                await s.call.bad('put_calendar', { name: 'mcp-bad', rules: ['FREQ=HOURLY'] }, ['rules[0]']);
                await s.call.bad('get_calendar', { name: 'mcp-bad' }, ['mcp-bad']);
            });
            it('delete_schedule, and then it is gone', async () => {
                await s.call.ok('delete_schedule', { [nm('delete_schedule')]: name });
                await s.call.bad('get_schedule', { [nm('get_schedule')]: name }, [name]);
                assert.throws(() => sked(['--db', ctx.fixture().db, 'schedule', 'get', name]));
            });
        });

        describe('every tool with bad input: a tool error naming the field, nothing changed', () => {
            const target = 'bad-target';
            const nm = (tool) => key(s.call.tool(tool), 'name', 'schedule');
            const rid = (tool) => key(s.call.tool(tool), 'id', 'run_id');
            const snapshot = () => {
                const db = ctx.fixture().db;
                const schedules = sked(['--db', db, 'schedule', 'list', '--json']);
                const runs = JSON.parse(sked(['--db', db, 'run', 'list', '--limit', '1000', '--json'])).runs.length;
                return { schedules, runs };
            };
            let before0;
            before(async () => {
                await s.call.ok('create_schedule', { name: target, workflow: 'tidy', cron: '0 9 * * *' });
                before0 = snapshot();
            });
            after(() => {
                assert.deepEqual(snapshot(), before0, 'a bad call changed the database');
            });

            it('create_schedule: an unknown time zone', async () => {
                await s.call.bad('create_schedule',
                    { name: 'on-mars', workflow: 'tidy', cron: '0 9 * * *', timezone: 'Mars/Olympus' },
                    ['timezone', 'Mars/Olympus']);
                await s.call.bad('get_schedule', { [nm('get_schedule')]: 'on-mars' }, ['on-mars']);
            });
            it('create_schedule: a value of the wrong type', async () => {
                await s.call.bad('create_schedule', { name: 'typed', workflow: 'tidy', cron: '0 9 * * *', catchup_max: 'five' }, ['catchup_max']);
            });
            it('create_schedule: an unknown field', async () => {
                await s.call.bad('create_schedule', { name: 'typo', workflow: 'tidy', cron: '0 9 * * *', timezon: 'UTC' }, ['timezon']);
            });
            it('list_schedules: limit out of range', async () => {
                await s.call.bad('list_schedules', { limit: 0 }, ['limit']);
            });
            it('get_schedule: an unknown schedule; a missing name', async () => {
                await s.call.bad('get_schedule', { [nm('get_schedule')]: 'no-such-schedule' }, ['no-such-schedule']);
                await s.call.bad('get_schedule', {}, [nm('get_schedule')]);
            });
            it('update_schedule: an invalid cron expression', async () => {
                await s.call.bad('update_schedule', { [nm('update_schedule')]: target, cron: '61 * * * *' }, ['cron']);
            });
            it('pause_schedule, resume_schedule, trigger_schedule: an unknown schedule', async () => {
                for (const t of ['pause_schedule', 'resume_schedule', 'trigger_schedule']) {
                    await s.call.bad(t, { [nm(t)]: 'no-such-schedule' }, ['no-such-schedule']);
                }
            });
            it('delete_schedule: no name', async () => {
                await s.call.bad('delete_schedule', {}, [nm('delete_schedule')]);
            });
            it('backfill_schedule: a start that is no instant', async () => {
                await s.call.bad('backfill_schedule', { [nm('backfill_schedule')]: target, start: 'yesterday', end: '2026-11-08T00:00:00Z' }, ['start']);
            });
            it('preview_schedule: n out of range', async () => {
                const t = s.call.tool('preview_schedule');
                const n = key(t, 'n', 'count', 'limit');
                await s.call.bad('preview_schedule', { [nm('preview_schedule')]: target, [n]: 0 }, [n]);
            });
            it('simulate_schedule: a from that is no instant', async () => {
                await s.call.bad('simulate_schedule', { [nm('simulate_schedule')]: target, from: 'soon', to: '2026-11-08T00:00:00Z' }, ['from']);
            });
            it('list_runs: an unknown status', async () => {
                await s.call.bad('list_runs', { status: 'exploded' }, ['status']);
            });
            it('get_run: an unknown run', async () => {
                await s.call.bad('get_run', { [rid('get_run')]: 'no-such-run' }, ['no-such-run']);
            });
            it('cancel_run: a run already finished', async () => {
                const text = await s.call.bad('cancel_run', { [rid('cancel_run')]: ctx.fixture().failedRun }, []);
                assert.match(text, /finished|failed|conflict/i);
            });
            it('start_run: no workflow', async () => {
                await s.call.bad('start_run', {}, ['workflow']);
            });
            it('list_workflows: an unknown argument', async () => {
                await s.call.bad('list_workflows', { bogus: true }, ['bogus']);
            });
            it('explain_cron: an invalid expression', async () => {
                const t = s.call.tool('explain_cron');
                await s.call.bad('explain_cron', { [key(t, 'expression', 'cron', 'expr')]: '61 * * * *' }, ['61']);
            });
            it('list_events: limit out of range', async () => {
                await s.call.bad('list_events', { limit: 5000 }, ['limit']);
            });
        });

        it('list_schedules pages 5 schedules 2 at a time', async () => {
            for (let i = 1; i <= 5; i++) {
                await s.call.ok('create_schedule', hourly(s.call, `page-${i}`));
            }
            const t = s.call.tool('list_schedules');
            const byPrefix = 'prefix' in (t.inputSchema.properties ?? {});
            const sizes = [];
            const names = [];
            let cursor;
            for (let page = 0; page < 20; page++) {
                const args = { limit: 2 };
                if (byPrefix) args.prefix = 'page-';
                if (cursor) args[key(t, 'cursor')] = cursor;
                const out = await s.call.ok('list_schedules', args);
                assert.ok(out.schedules.length <= 2, `a page of ${out.schedules.length}`);
                sizes.push(out.schedules.length);
                names.push(...out.schedules.map((x) => x.name).filter((n) => n.startsWith('page-')));
                cursor = out.next_cursor;
                if (!cursor) break;
            }
            assert.deepEqual(names, ['page-1', 'page-2', 'page-3', 'page-4', 'page-5']);
            if (byPrefix) assert.deepEqual(sizes, [2, 2, 1]);
        });

        it('protocol errors: an unknown tool (-32602), an unknown method (-32601)', async () => {
            await rpcError(s.client.callTool({ name: 'no_such_tool', arguments: {} }, undefined, { timeout: TIMEOUT }), -32602, 'unknown tool');
            await rpcError(s.client.request({ method: 'sked/no_such_method', params: {} }, EmptyResultSchema, { timeout: TIMEOUT }), -32601, 'unknown method');
            await s.client.ping({ timeout: TIMEOUT });
        });
    });
}

export function resourcesSuite(ctx) {
    describe('resources', () => {
        const s = session(ctx);
        const nm = (tool) => key(s.call.tool(tool), 'name', 'schedule');
        // The URI of a run or a schedule: the server's template expanded
        // as RFC 6570 says (the SDK's UriTemplate), so a run id's ':' is
        // %3A; without a template, the same by hand.
        let templates = [];
        const uriOf = (kind, v) => {
            const t = templates.find((x) => x.uriTemplate.startsWith(`sked://${kind}/`));
            return t ? new UriTemplate(t.uriTemplate).expand({ name: v, id: v }) : `sked://${kind}/${encodeURIComponent(v)}`;
        };
        before(async () => {
            await s.call.ok('create_schedule', { name: 'watched', workflow: 'tidy', cron: '0 9 * * *' });
            ({ resourceTemplates: templates } = await s.client.listResourceTemplates(undefined, { timeout: TIMEOUT }));
        });

        it('lists the schedules as sked://schedules/NAME, and the templates', async () => {
            const { resources } = await s.client.listResources(undefined, { timeout: TIMEOUT });
            const tidy = resources.find((r) => r.uri === 'sked://schedules/tidy');
            assert.ok(tidy, `no sked://schedules/tidy in ${resources.map((r) => r.uri)}`);
            assert.equal(tidy.mimeType, 'application/json');
            assert.ok(tidy.name);
            const { resourceTemplates } = await s.client.listResourceTemplates(undefined, { timeout: TIMEOUT });
            const uris = resourceTemplates.map((r) => r.uriTemplate);
            assert.ok(uris.includes('sked://schedules/{name}'), `${uris}`);
            assert.ok(uris.includes('sked://runs/{id}'), `${uris}`);
        });
        it('reads sked://schedules/NAME and sked://runs/ID as JSON', async () => {
            const sch = await s.client.readResource({ uri: 'sked://schedules/tidy' }, { timeout: TIMEOUT });
            assert.equal(sch.contents[0].uri, 'sked://schedules/tidy');
            assert.equal(sch.contents[0].mimeType, 'application/json');
            assert.equal(JSON.parse(sch.contents[0].text).name, 'tidy');
            const id = ctx.fixture().failedRun;
            const run = await s.client.readResource({ uri: uriOf('runs', id) }, { timeout: TIMEOUT });
            const body = JSON.parse(run.contents[0].text);
            assert.equal(body.id, id);
            assert.equal(body.status, 'failed');
        });
        it('an unknown resource is -32002', async () => {
            await rpcError(s.client.readResource({ uri: 'sked://schedules/no-such-schedule' }, { timeout: TIMEOUT }), -32002, 'unknown schedule');
        });
        it('subscribed to a schedule: pausing it sends notifications/resources/updated; unsubscribed: nothing', async () => {
            const uri = 'sked://schedules/watched';
            await s.client.subscribeResource({ uri }, { timeout: TIMEOUT });
            s.client.notes.length = 0;
            await s.call.ok('pause_schedule', { [nm('pause_schedule')]: 'watched' });
            const n = await waitNote(s.client, (x) => x.method === 'notifications/resources/updated' && x.params.uri === uri, 5000);
            assert.ok(n, `no update of ${uri} in 5 s; got ${show(s.client.notes)}`);
            await s.client.unsubscribeResource({ uri }, { timeout: TIMEOUT });
            await sleep(1000); // an update already on its way may still come
            s.client.notes.length = 0;
            await s.call.ok('resume_schedule', { [nm('resume_schedule')]: 'watched' });
            await sleep(2000);
            const late = s.client.notes.filter((x) => x.method === 'notifications/resources/updated' && x.params.uri === uri);
            assert.deepEqual(late, [], 'an update after unsubscribing');
        });
        it('subscribed to a run: its cancellation sends notifications/resources/updated', async () => {
            const run = await s.call.ok('start_run', { workflow: 'slow' });
            const uri = uriOf('runs', run.id);
            await s.client.subscribeResource({ uri }, { timeout: TIMEOUT });
            s.client.notes.length = 0;
            await s.call.ok('cancel_run', { [key(s.call.tool('cancel_run'), 'id', 'run_id')]: run.id });
            const n = await waitNote(s.client, (x) => x.method === 'notifications/resources/updated' && x.params.uri === uri, 5000);
            assert.ok(n, `no update of ${uri} in 5 s; got ${show(s.client.notes)}`);
        });
        it('a new schedule sends notifications/resources/list_changed', async () => {
            s.client.notes.length = 0;
            await s.call.ok('create_schedule', hourly(s.call, 'listed-later'));
            const n = await waitNote(s.client, (x) => x.method === 'notifications/resources/list_changed', 5000);
            assert.ok(n, `no list_changed in 5 s; got ${show(s.client.notes)}`);
        });
    });
}

export function promptsSuite(ctx) {
    describe('prompts and logging', () => {
        const s = session(ctx);
        let prompts;
        // The arguments of prompt P: each required one filled with RUN
        // (an argument about a run) or SCHEDULE.
        const argsFor = (p, run, schedule) => {
            const a = {};
            for (const arg of p.arguments ?? []) {
                if (!arg.required) continue;
                a[arg.name] = /run|id/.test(arg.name) ? run : schedule;
            }
            return a;
        };
        const textOfPrompt = (r) => r.messages.map((m) => (m.content.type === 'text' ? m.content.text : m.content.resource?.text ?? '')).join('\n');

        it('lists diagnose_run and why_not_fired with their arguments', async () => {
            ({ prompts } = await s.client.listPrompts(undefined, { timeout: TIMEOUT }));
            const names = prompts.map((p) => p.name);
            for (const n of ['diagnose_run', 'why_not_fired']) {
                const p = prompts.find((x) => x.name === n);
                assert.ok(p, `no prompt ${n} in ${names}`);
                assert.ok(p.description, `${n}: no description`);
                assert.ok((p.arguments ?? []).some((a) => a.required), `${n}: no required argument`);
            }
        });
        it('diagnose_run on a failed run: its step, error and stderr', async () => {
            const p = prompts.find((x) => x.name === 'diagnose_run');
            const r = await s.client.getPrompt({ name: 'diagnose_run', arguments: argsFor(p, ctx.fixture().failedRun, 'tidy') }, { timeout: TIMEOUT });
            assert.ok(r.messages.length > 0);
            const text = textOfPrompt(r);
            for (const w of ['fetch', 'exit status 3', 'connection refused', ctx.fixture().failedRun]) {
                assert.ok(text.includes(w), `diagnose_run does not say ${show(w)}: ${text}`);
            }
        });
        it('why_not_fired on a schedule: its name and next occurrence', async () => {
            const p = prompts.find((x) => x.name === 'why_not_fired');
            const r = await s.client.getPrompt({ name: 'why_not_fired', arguments: argsFor(p, ctx.fixture().failedRun, 'tidy') }, { timeout: TIMEOUT });
            assert.ok(r.messages.length > 0);
            const text = textOfPrompt(r);
            assert.ok(text.includes('tidy'), text);
            assert.match(text, /T0[78]:00:00Z|09:00/, 'no occurrence of "0 9 * * *" in Paris');
        });
        it('a prompt without its argument, an unknown prompt: -32602', async () => {
            await rpcError(s.client.getPrompt({ name: 'diagnose_run', arguments: {} }, { timeout: TIMEOUT }), -32602, 'missing argument');
            await rpcError(s.client.getPrompt({ name: 'no_such_prompt', arguments: {} }, { timeout: TIMEOUT }), -32602, 'unknown prompt');
        });
        it('logging/setLevel is accepted', async () => {
            await s.client.setLoggingLevel('debug', { timeout: TIMEOUT });
            await s.client.setLoggingLevel('warning', { timeout: TIMEOUT });
            await rpcError(s.client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema, { timeout: TIMEOUT }), -32602, 'bad level');
        });
    });
}

export function cancelSuite(ctx) {
    describe('cancellation', () => {
        const s = session(ctx);
        it('a long simulate_schedule cancelled after 50 ms: notifications/cancelled, no answer, the session goes on', async () => {
            const nm = key(s.call.tool('simulate_schedule'), 'name', 'schedule');
            await s.call.ok('create_schedule', { name: 'every-second', workflow: 'tidy', cron: '* * * * * *' });
            const ac = new AbortController();
            const t0 = Date.now();
            // Ten days of an occurrence a second: 864,000 occurrences.
            const p = s.client.callTool(
                { name: 'simulate_schedule', arguments: { [nm]: 'every-second', from: '2026-01-01T00:00:00Z', to: '2026-01-11T00:00:00Z' } },
                undefined,
                { signal: ac.signal, timeout: 60000 },
            );
            let settled = null;
            p.then(() => (settled = 'answered'), () => (settled = 'rejected'));
            await sleep(50);
            assert.equal(settled, null, `simulate_schedule ${settled} in ${Date.now() - t0} ms, before it could be cancelled`);
            ac.abort('the test gives up');
            await assert.rejects(p);
            const call = s.client.wire.sent.find((m) => m.method === 'tools/call' && m.params.name === 'simulate_schedule');
            const cancel = s.client.wire.sent.find((m) => m.method === 'notifications/cancelled');
            assert.ok(cancel, 'the SDK sent no notifications/cancelled');
            assert.equal(cancel.params.requestId, call.id);
            const t1 = Date.now();
            await s.client.ping({ timeout: 5000 });
            const out = await s.call.ok('get_schedule', { [key(s.call.tool('get_schedule'), 'name', 'schedule')]: 'every-second' });
            assert.equal(out.name, 'every-second');
            assert.ok(Date.now() - t1 < 3000, `ping and a call took ${Date.now() - t1} ms after the cancellation`);
            await sleep(3000);
            const answer = s.client.wire.received.find((m) => m.id === call.id);
            assert.equal(answer, undefined, `the cancelled call was answered: ${show(answer)?.slice(0, 200)}`);
        });
    });
}

// Issue 19 through the tools: pings of heartbeat schedules and the
// notifiers with their notify log. CTX.delivers: a server runs beside the
// session and delivers (the command notifier's file is then written).
export function notifySuite(ctx) {
    describe('heartbeat pings and notifiers', () => {
        const s = session(ctx);
        const SECRET = 'hook-secret-7f3a9c51';
        const texts = []; // every answer of this suite, for the secret check
        const ok = async (name, args) => {
            const out = await s.call.ok(name, args);
            texts.push(show(out));
            return out;
        };
        const bad = async (name, args, words) => {
            const text = await s.call.bad(name, args, words);
            texts.push(text);
            return text;
        };
        const db = () => ctx.fixture().db;
        const cliList = () => JSON.parse(sked(['--db', db(), 'notify', 'list', '--json'])).map((n) => n.name).sort();
        const st = {};
        // A heartbeat schedule NAME: its first occurrence 20 s after now, at
        // most a minute ahead, so one ping awaits it.
        const heartbeat = (name) => ok('create_schedule', {
            name, workflow: 'tidy', every_secs: 20, heartbeat: true, deadline_secs: 3600,
        });
        before(() => {
            st.notes = join(ctx.fixture().dir, 'notes.jsonl');
            st.secretFile = join(ctx.fixture().dir, 'hook.secret');
            writeFileSync(st.secretFile, `${SECRET}\n`);
        });

        it('ping_schedule: success completes the run, the body its output', async () => {
            await heartbeat('mcp-hb-ok');
            const run = await ok('ping_schedule', { name: 'mcp-hb-ok', body: 'backed up 3 files' });
            assert.equal(run.status, 'completed');
            assert.equal(run.trigger, 'heartbeat');
            assert.equal(run.schedule, 'mcp-hb-ok');
            assert.equal(run.output, 'backed up 3 files');
            const got = await ok('get_run', { [key(s.call.tool('get_run'), 'id', 'run_id')]: run.id });
            assert.equal(got.status, 'completed');
            st.okRun = run.id;
        });
        it('ping_schedule: bad status, unknown schedule, not a heartbeat: errors naming them, no run written', async () => {
            await bad('ping_schedule', { name: 'mcp-hb-ok', status: 'later' }, ['status', 'later']);
            await bad('ping_schedule', { name: 'no-such-heartbeat' }, ['no-such-heartbeat']);
            await bad('ping_schedule', { name: 'tidy', status: 'fail' }, ['heartbeat']);
            await bad('ping_schedule', { name: 'mcp-hb-ok', body: 42 }, ['body']);
            await bad('ping_schedule', { name: 'mcp-hb-ok', body: 'x'.repeat(65537) }, ['body']);
            await bad('ping_schedule', { status: 'success' }, ['name']);
            const runs = await ok('list_runs', { schedule: 'mcp-hb-ok' });
            assert.deepEqual(runs.runs.map((r) => [r.id, r.status]), [[st.okRun, 'completed']]);
            const tidy = await ok('list_runs', { schedule: 'tidy' });
            assert.ok(tidy.runs.every((r) => r.trigger !== 'heartbeat'), show(tidy.runs));
        });
        it('apply_notifier creates, get_notifier and list_notifiers read, the CLI sees them', async () => {
            const pager = await ok('apply_notifier', {
                name: 'mcp-pager',
                command: { argv: ['/bin/sh', '-c', `cat >> '${st.notes}'; echo >> '${st.notes}'`] },
                events: ['run.failed'],
                schedules: ['mcp-hb-*'],
            });
            assert.equal(pager.kind, 'command');
            assert.equal(pager.source, 'api');
            assert.deepEqual(pager.events, ['run.failed']);
            const hook = await ok('apply_notifier', {
                name: 'mcp-hook',
                webhook: { url: 'http://127.0.0.1:9/hook', secret_file: st.secretFile },
                events: ['schedule.deadline_missed'],
                retry_for: '1h',
            });
            assert.equal(hook.kind, 'webhook');
            assert.equal(hook.webhook.secret_file, st.secretFile);
            const got = await ok('get_notifier', { name: 'mcp-hook' });
            assert.equal(got.webhook.url, 'http://127.0.0.1:9/hook');
            assert.equal(got.retry_for, '1h');
            const list = await ok('list_notifiers', {});
            assert.deepEqual(list.notifiers.map((n) => n.name).sort(), ['mcp-hook', 'mcp-pager']);
            assert.deepEqual(cliList(), ['mcp-hook', 'mcp-pager']);
        });
        it('apply_notifier again replaces it', async () => {
            const out = await ok('apply_notifier', {
                name: 'mcp-hook',
                webhook: { url: 'http://127.0.0.1:9/other', secret_file: st.secretFile },
                events: ['schedule.deadline_missed', 'schedule.paused'],
            });
            assert.equal(out.webhook.url, 'http://127.0.0.1:9/other');
            assert.deepEqual(out.events, ['schedule.deadline_missed', 'schedule.paused']);
            assert.equal(out.retry_for, '1d', 'retry_for not given: back to its default');
            const cli = JSON.parse(sked(['--db', db(), 'notify', 'get', 'mcp-hook']));
            assert.equal(cli.webhook.url, 'http://127.0.0.1:9/other');
        });
        it('apply_notifier: bad input is refused naming the field, and nothing is written', async () => {
            const before0 = JSON.parse(sked(['--db', db(), 'notify', 'list', '--json']));
            await bad('apply_notifier', { name: 'mcp-bad', command: { argv: ['true'] }, events: ['run.exploded'] }, ['events[0]', 'run.exploded']);
            await bad('apply_notifier', { name: 'mcp-bad', webhook: { url: 'ftp://example.com/x' }, events: ['run.failed'] }, ['webhook.url']);
            await bad('apply_notifier', { name: 'mcp-bad', webhook: { urll: 'http://example.com/' }, events: ['run.failed'] }, ['webhook.urll']);
            await bad('apply_notifier', { name: 'mcp-bad', command: { argv: ['true'] }, evnts: ['run.failed'] }, ['evnts']);
            await bad('apply_notifier', { name: 'mcp-hook', webhook: { url: 'ftp://example.com/x' }, events: ['run.failed'] }, ['webhook.url']);
            await bad('apply_notifier', { name: 'mcp-bad', command: { argv: ['true'] }, events: ['run.failed'], retry_for: 'forever' }, ['retry_for']);
            await bad('get_notifier', { name: 'mcp-bad' }, ['mcp-bad']);
            assert.deepEqual(JSON.parse(sked(['--db', db(), 'notify', 'list', '--json'])), before0);
        });
        it('ping_schedule with status fail fails the run; list_deliveries shows its run.failed for the notifier', async () => {
            await heartbeat('mcp-hb-fail');
            const run = await ok('ping_schedule', { name: 'mcp-hb-fail', status: 'fail', body: 'disk full' });
            assert.equal(run.status, 'failed');
            assert.equal(run.error_code, 'ping_failed');
            assert.equal(run.output, 'disk full');
            const mine = (out) => out.deliveries.filter((d) => d.event?.type === 'run.failed' && d.event?.subject === run.id);
            let page = await ok('list_deliveries', { notifier: 'mcp-pager' });
            assert.equal(mine(page).length, 1, show(page));
            const d = mine(page)[0];
            assert.equal(d.notifier, 'mcp-pager');
            assert.equal(d.delivery, `${d.event_id}-mcp-pager`);
            assert.equal(d.event.schedule, 'mcp-hb-fail');
            const all = await ok('list_deliveries', {});
            assert.equal(mine(all).length, 1, 'list_deliveries without a notifier');
            const none = await ok('list_deliveries', { notifier: 'mcp-pager', before: d.id });
            assert.equal(mine(none).length, 0, 'before: only older deliveries');
            if (ctx.delivers) {
                const deadline = Date.now() + 15000;
                while (mine(page)[0].state !== 'delivered' && Date.now() < deadline) {
                    await sleep(200);
                    page = await ok('list_deliveries', { notifier: 'mcp-pager' });
                }
                assert.equal(mine(page)[0].state, 'delivered', show(mine(page)[0]));
                const sent = readFileSync(st.notes, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
                assert.ok(sent.some((e) => e.type === 'run.failed' && e.subject === run.id), show(sent));
            } else {
                assert.equal(d.state, 'pending', 'no server runs to deliver it');
            }
            await bad('list_deliveries', { notifier: 'no-such-notifier' }, ['no-such-notifier']);
            await bad('list_deliveries', { limit: 0 }, ['limit']);
        });
        it('delete_notifier deletes it; deleting it again is an error naming it', async () => {
            const del = await ok('delete_notifier', { name: 'mcp-hook' });
            assert.deepEqual(del, { name: 'mcp-hook', deleted: true });
            await bad('get_notifier', { name: 'mcp-hook' }, ['mcp-hook']);
            await bad('delete_notifier', { name: 'mcp-hook' }, ['mcp-hook']);
            assert.deepEqual(cliList(), ['mcp-pager']);
        });
        it('no answer holds the secret, only where the server reads it', () => {
            assert.ok(texts.length > 20, `${texts.length} answers`);
            for (const t of texts) assert.ok(!t.includes(SECRET), `an answer holds the secret: ${t.slice(0, 300)}`);
        });
    });
}
