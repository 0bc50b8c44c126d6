// SPDX-License-Identifier: MIT
// "sked mcp --db sqlite:FILE" driven over stdio by the official MCP SDK's
// client (StdioClientTransport): every check of checks.mjs.
import assert from 'node:assert/strict';
import { describe, it, before, after } from 'node:test';

import { makeFixture, stdioClient, stdioSessions, SANITIZER, sleep } from './lib.mjs';
import { initSuite, toolsSuite, resourcesSuite, promptsSuite, cancelSuite, notifySuite } from './checks.mjs';

const ctx = {
    fx: null,
    fixture: () => ctx.fx,
    open: (options) => stdioClient(['--db', ctx.fx.db], options),
};

describe('sked mcp over stdio (--db)', () => {
    before(async () => {
        ctx.fx = await makeFixture();
    });
    after(() => ctx.fx?.cleanup());
    initSuite(ctx);
    toolsSuite(ctx);
    resourcesSuite(ctx);
    promptsSuite(ctx);
    cancelSuite(ctx);
    notifySuite(ctx);

    it('every session ended at the end of its stdin, with exit status 0 and no fault reported', async () => {
        assert.ok(stdioSessions.length > 5, `${stdioSessions.length} sessions`);
        for (const [i, { args, client }] of stdioSessions.entries()) {
            await client.end();
            const end = await Promise.race([client.exited, sleep(5000, undefined, { ref: false }).then(() => 'still running')]);
            await sleep(10); // the last of its stderr
            const methods = client.wire.sent.map((m) => m.params?.name ?? m.method).slice(-4);
            const what = `session ${i} (sked mcp ${args.join(' ')}; last sent: ${methods.join(', ')})`;
            assert.deepEqual(end, { code: 0, signal: null }, `${what}: ${client.stderr().slice(-2000)}`);
            assert.doesNotMatch(client.stderr(), SANITIZER, what);
        }
    });
});
