// SPDX-License-Identifier: MIT
// "sked mcp --server URL" (remote mode, the token in $SKED_TOKEN) against
// "sked mcp --db" on the same database: the same tools, the same answers
// and the same errors, since both ask the same API. A wrong token is
// refused.
import assert from 'node:assert/strict';
import { describe, it, before, after } from 'node:test';

import { makeFixture, startServer, stdioClient, textOf, TIMEOUT } from './lib.mjs';
import { key, TOOLS } from './checks.mjs';

const TOKEN = 'mcp-remote-token-9c2e';

describe('sked mcp --server URL against sked mcp --db', () => {
    let fx, srv, direct, remote, tools;
    // The argument of TOOL named NAME by the API (or the schema's other name).
    const arg = (tool, ...names) => key(tools.find((t) => t.name === tool), ...names);
    const call = async (client, name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT });
    before(async () => {
        fx = await makeFixture();
        srv = await startServer({ db: fx.db, workflows: fx.workflows, token: TOKEN, args: ['--workers', '0'] });
        direct = await stdioClient(['--db', fx.db]);
        remote = await stdioClient(['--server', srv.url], { env: { SKED_TOKEN: TOKEN } });
    });
    after(async () => {
        await direct?.close();
        await remote?.close();
        await srv?.stop();
        fx?.cleanup();
    });

    it('the same initialize answer', () => {
        assert.deepEqual(remote.wire.initializeResult, direct.wire.initializeResult);
    });
    it('the same tools/list', async () => {
        const a = await direct.listTools(undefined, { timeout: TIMEOUT });
        tools = a.tools;
        const b = await remote.listTools(undefined, { timeout: TIMEOUT });
        assert.equal(a.tools.length, TOOLS.length);
        assert.deepEqual(b, a);
    });
    it('the same get_schedule, list_workflows and get_run answers', async () => {
        for (const [name, args] of [
            ['get_schedule', { [arg('get_schedule', 'name', 'schedule')]: 'tidy' }],
            ['list_workflows', {}],
            ['get_run', { [arg('get_run', 'id', 'run_id')]: fx.failedRun }],
        ]) {
            const a = await call(direct, name, args);
            const b = await call(remote, name, args);
            assert.ok(!a.isError, `${name} --db: ${textOf(a)}`);
            assert.deepEqual(b, a, `${name}: --server answers otherwise than --db`);
        }
    });
    it('the same tool error', async () => {
        const args = { name: 'on-mars', workflow: 'tidy', cron: '0 9 * * *', timezone: 'Mars/Olympus' };
        const a = await call(direct, 'create_schedule', args);
        const b = await call(remote, 'create_schedule', args);
        assert.equal(a.isError, true);
        assert.match(textOf(a), /timezone/);
        assert.deepEqual(b, a);
    });
    it('a schedule created remotely is there for --db', async () => {
        const r = await call(remote, 'create_schedule', { name: 'from-afar', workflow: 'tidy', cron: '0 * * * *' });
        assert.ok(!r.isError, textOf(r));
        const a = await call(direct, 'get_schedule', { [arg('get_schedule', 'name', 'schedule')]: 'from-afar' });
        assert.ok(!a.isError, textOf(a));
        assert.equal(a.structuredContent.name, 'from-afar');
    });
    it('ping_schedule remotely: the body goes as its text, the run is the same for --db', async () => {
        const mk = await call(remote, 'create_schedule', {
            name: 'hb-afar', workflow: 'tidy', every_secs: 20, heartbeat: true, deadline_secs: 3600,
        });
        assert.ok(!mk.isError, textOf(mk));
        const body = '{"files": 3}\nline two: "quoted" & 100%';
        const r = await call(remote, 'ping_schedule', { name: 'hb-afar', body });
        assert.ok(!r.isError, textOf(r));
        assert.equal(r.structuredContent.status, 'completed');
        assert.equal(r.structuredContent.output, body);
        const a = await call(direct, 'get_run', { [arg('get_run', 'id', 'run_id')]: r.structuredContent.id });
        assert.equal(a.structuredContent.output, body);
        const bad = { name: 'hb-afar', status: 'later' };
        assert.deepEqual(await call(remote, 'ping_schedule', bad), await call(direct, 'ping_schedule', bad));
    });
    it('the same notifiers and the same refusal of a bad one', async () => {
        const n = { name: 'afar', command: { argv: ['true'] }, events: ['run.failed'] };
        const r = await call(remote, 'apply_notifier', n);
        assert.ok(!r.isError, textOf(r));
        const a = await call(direct, 'list_notifiers', {});
        const b = await call(remote, 'list_notifiers', {});
        assert.deepEqual(b, a);
        assert.deepEqual(a.structuredContent.notifiers.map((x) => x.name), ['afar']);
        const bad = { name: 'afar2', command: { argv: [] }, events: ['run.failed'] };
        const ea = await call(direct, 'apply_notifier', bad);
        assert.equal(ea.isError, true);
        assert.match(textOf(ea), /command\.argv/);
        assert.deepEqual(await call(remote, 'apply_notifier', bad), ea);
    });
    it('a wrong token: refused, at initialize or as a tool error naming it', async () => {
        let client;
        try {
            client = await stdioClient(['--server', srv.url], { env: { SKED_TOKEN: 'wrong' } });
        } catch {
            return; // refused at the start: fine
        }
        try {
            const r = await call(client, 'get_schedule', { [arg('get_schedule', 'name', 'schedule')]: 'tidy' });
            assert.equal(r.isError, true, 'a wrong token read a schedule');
            assert.match(textOf(r), /401|unauthori[sz]ed|token/i);
        } finally {
            await client.close();
        }
    });
});
