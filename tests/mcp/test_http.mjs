// SPDX-License-Identifier: MIT
// /mcp on a real "sked server" (SQLite, a bearer token, loopback) driven by
// the official MCP SDK's client over Streamable HTTP: every check of
// checks.mjs, then what the transport itself owes (MCP 2025-11-25,
// "Transports"): the token (401), Origin against DNS rebinding (403, and
// --mcp-allow-origin), sessions (Mcp-Session-Id: 400 without it, 404 once
// deleted) and the MCP-Protocol-Version header (400 when unsupported).
import assert from 'node:assert/strict';
import { describe, it, before, after } from 'node:test';

import { makeFixture, startServer, httpClient, TIMEOUT, VERSIONS, SANITIZER } from './lib.mjs';
import { initSuite, toolsSuite, resourcesSuite, promptsSuite, cancelSuite, notifySuite } from './checks.mjs';

const TOKEN = 'mcp-test-token-5b1f';
const ctx = {
    fx: null,
    srv: null,
    delivers: true, // the server's delivery thread
    fixture: () => ctx.fx,
    open: (options) => httpClient(ctx.srv.url, TOKEN, options),
};

// POST one JSON-RPC message to URL/mcp with HEADERS; {status, headers, text}.
async function post(url, headers, message) {
    const r = await fetch(new URL('/mcp', url), {
        method: 'POST',
        headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            ...headers,
        },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(TIMEOUT),
    });
    return { status: r.status, headers: r.headers, text: await r.text() };
}

const initialize = (id = 1) => ({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: VERSIONS[0], capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

// Expect CONNECT (a promise of a client) to fail with HTTP status CODE.
async function refused(connect, code) {
    await assert.rejects(connect, (e) => {
        assert.equal(e.code, code, `${e}`);
        return true;
    });
}

describe('sked server /mcp over Streamable HTTP', () => {
    before(async () => {
        ctx.fx = await makeFixture();
        ctx.srv = await startServer({ db: ctx.fx.db, workflows: ctx.fx.workflows, token: TOKEN });
    });
    after(async () => {
        await ctx.srv?.stop();
        ctx.fx?.cleanup();
    });
    initSuite(ctx);
    toolsSuite(ctx);
    resourcesSuite(ctx);
    promptsSuite(ctx);
    cancelSuite(ctx);
    notifySuite(ctx);

    it('the server, its sessions served, stops with exit status 0 and no fault reported', async () => {
        const end = await ctx.srv.stop();
        assert.deepEqual(end, { code: 0, signal: null }, ctx.srv.log().slice(-2000));
        assert.doesNotMatch(ctx.srv.log(), SANITIZER);
    });
});

describe('the HTTP transport of /mcp', () => {
    before(async () => {
        ctx.fx = await makeFixture();
        ctx.srv = await startServer({ db: ctx.fx.db, workflows: ctx.fx.workflows, token: TOKEN, args: ['--workers', '0'] });
    });
    after(async () => {
        await ctx.srv?.stop();
        ctx.fx?.cleanup();
    });
    describe('the transport', () => {
        it('a wrong token, or none: the SDK reports 401', async () => {
            await refused(httpClient(ctx.srv.url, 'not-the-token'), 401);
            await refused(httpClient(ctx.srv.url, null), 401);
        });
        it('an Origin of another site: 403; the server\'s own: accepted', async () => {
            await refused(httpClient(ctx.srv.url, TOKEN, { headers: { Origin: 'http://evil.example' } }), 403);
            const own = new URL(ctx.srv.url).origin;
            const c = await httpClient(ctx.srv.url, TOKEN, { headers: { Origin: own } });
            await c.ping({ timeout: TIMEOUT });
            await c.close();
        });
        it('--mcp-allow-origin lets that origin in, and no other', async () => {
            const srv = await startServer({
                db: ctx.fx.db, token: TOKEN, args: ['--workers', '0', '--mcp-allow-origin', 'http://app.example'],
            });
            try {
                const c = await httpClient(srv.url, TOKEN, { headers: { Origin: 'http://app.example' } });
                await c.ping({ timeout: TIMEOUT });
                await c.close();
                await refused(httpClient(srv.url, TOKEN, { headers: { Origin: 'http://evil.example' } }), 403);
            } finally {
                await srv.stop();
            }
        });
        it('sessions: an Mcp-Session-Id at initialize; 400 without it; 404 once deleted', async () => {
            const auth = { Authorization: `Bearer ${TOKEN}` };
            const init = await post(ctx.srv.url, auth, initialize());
            assert.equal(init.status, 200, init.text);
            const sid = init.headers.get('mcp-session-id');
            assert.match(sid ?? '', /^[\x21-\x7e]+$/, 'the session id is visible ASCII');
            const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
            const v = { 'MCP-Protocol-Version': VERSIONS[0] };
            const without = await post(ctx.srv.url, { ...auth, ...v }, list);
            assert.equal(without.status, 400, `tools/list without a session: ${without.status} ${without.text}`);
            const c = await httpClient(ctx.srv.url, TOKEN);
            const id = c.wire.sessionId;
            assert.ok(id, 'the SDK has no session id');
            await c.wire.terminateSession();
            const gone = await post(ctx.srv.url, { ...auth, ...v, 'Mcp-Session-Id': id }, list);
            assert.equal(gone.status, 404, `a deleted session: ${gone.status} ${gone.text}`);
            await c.close();
        });
        it('an unsupported MCP-Protocol-Version: 400', async () => {
            const c = await httpClient(ctx.srv.url, TOKEN);
            const r = await post(ctx.srv.url, {
                Authorization: `Bearer ${TOKEN}`, 'Mcp-Session-Id': c.wire.sessionId, 'MCP-Protocol-Version': '1999-01-01',
            }, { jsonrpc: '2.0', id: 3, method: 'ping' });
            assert.equal(r.status, 400, `${r.status} ${r.text}`);
            await c.close();
        });
    });
});
