// SPDX-License-Identifier: MIT
// "sked mcp --db sqlite:FILE" driven over stdio by the official MCP SDK's
// client (StdioClientTransport): every check of checks.mjs.
import { describe, before, after } from 'node:test';

import { makeFixture, stdioClient } from './lib.mjs';
import { initSuite, toolsSuite, resourcesSuite, promptsSuite, cancelSuite } from './checks.mjs';

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
});
