// SPDX-License-Identifier: MIT
// Shared by the MCP tests: the fixture (a SQLite file with registered
// workflows, a few schedules and a failed run), real "sked server"
// processes, and MCP clients of the official SDK connected to "sked mcp"
// over stdio or to a server's /mcp over Streamable HTTP. A client can
// offer any protocol version at initialize (the SDK's Client always offers
// its latest, so a thin transport in between rewrites the offer) and keeps
// the version the server answered.
//
// Env: SKED_BIN (the sked binary), SKED_SOURCE_DIR.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    LoggingMessageNotificationSchema,
    ResourceUpdatedNotificationSchema,
    ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const here = dirname(fileURLToPath(import.meta.url));
export const source = process.env.SKED_SOURCE_DIR ?? join(here, '..', '..');
export const bin = process.env.SKED_BIN ?? join(source, 'build', 'sked');

// The protocol versions sked speaks, latest first.
export const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

// How long one request may take before a check fails (ms).
export const TIMEOUT = 15000;

// sked's own version: "sked 0.1.0" -> "0.1.0".
export function skedVersion() {
    return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim().replace(/^sked\s+/, '');
}

// Run the CLI; its stdout. Throws with its stderr when it fails.
export function sked(args, env = {}) {
    try {
        return execFileSync(bin, args, {
            encoding: 'utf8',
            env: { ...process.env, ...env },
            stdio: ['ignore', 'pipe', 'pipe'],
        });
    } catch (e) {
        throw new Error(`sked ${args.join(' ')}: ${e.stderr || e.message}`);
    }
}

// The workflows of the fixture: "tidy" (one step that works, with a
// schedule of its own), "flaky" (one step that fails with exit status 3
// and says why on stderr) and "slow" (a step of an hour, to cancel).
const WORKFLOWS = `workflows:
  tidy:
    steps:
      - name: sweep
        sh: 'echo swept'
    schedules:
      - cron: "0 9 * * *"
        timezone: Europe/Paris
  flaky:
    steps:
      - name: fetch
        sh: 'echo fetching; echo "fetch: connection refused" >&2; exit 3'
  slow:
    steps:
      - name: wait
        sleep: 1h
`;

// A fresh fixture in a temporary directory: the workflows file applied
// ("sked apply"), a run of "flaky" started and run to its failure by a
// server that ran just for it (which registered the three workflows).
// Returns {dir, db, workflows, failedRun, cleanup()}.
export async function makeFixture() {
    const dir = mkdtempSync(join(tmpdir(), 'sked-mcp-'));
    const db = `sqlite:${join(dir, 'sked.db')}`;
    const workflows = join(dir, 'workflows.yaml');
    writeFileSync(workflows, WORKFLOWS);
    sked(['--db', db, 'apply', workflows]);
    const failedRun = sked(['--db', db, 'run', 'start', 'flaky']).trim();
    const srv = await startServer({ db, workflows, listen: false });
    try {
        const deadline = Date.now() + 20000;
        for (;;) {
            const run = JSON.parse(sked(['--db', db, 'run', 'get', failedRun, '--json']));
            if (run.status === 'failed') break;
            if (Date.now() > deadline) throw new Error(`run ${failedRun} is still ${run.status}`);
            await sleep(100);
        }
    } finally {
        await srv.stop();
    }
    return {
        dir,
        db,
        workflows,
        failedRun,
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
}

const servers = new Set();
process.on('exit', () => {
    for (const p of servers) p.kill('SIGKILL');
});

// Start "sked server" on DB with the workflows file, one worker, on a
// free loopback port (listen false: no HTTP), with TOKEN in $SKED_TOKEN
// when given; resolves once it listens. Returns {url, proc, log(),
// stop()}.
export async function startServer({ db, workflows, token, listen = true, args = [] }) {
    const argv = ['server', '--db', db, '--workers', '1', '--tick', '1s'];
    if (workflows) argv.push('--workflows', workflows);
    argv.push('--listen', listen ? '127.0.0.1:0' : 'off', ...args);
    const env = { ...process.env };
    delete env.SKED_TOKEN;
    if (token) env.SKED_TOKEN = token;
    const proc = spawn(bin, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    servers.add(proc);
    let log = '';
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d) => (log += d));
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    // Stop it (SIGTERM); how it exited: {code, signal}.
    const stop = async () => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        await exited;
        servers.delete(proc);
        return { code: proc.exitCode, signal: proc.signalCode };
    };
    const want = listen ? /msg="http listening".*url=(\S+)/ : /msg="server started"/;
    const deadline = Date.now() + 20000;
    for (;;) {
        const m = log.match(want);
        if (m) return { url: listen ? m[1] : null, proc, log: () => log, stop };
        if (proc.exitCode !== null) throw new Error(`sked server exited ${proc.exitCode}: ${log}`);
        if (Date.now() > deadline) {
            await stop();
            throw new Error(`sked server did not listen in 20 s: ${log}`);
        }
        await sleep(50);
    }
}

// A transport between the SDK's Client and the real one: it offers
// VERSION in the initialize request and records the server's answer
// (initializeResult), so that every version can be negotiated with the
// SDK's own Client. Every message in either direction is kept in sent
// and received, for the checks on the wire (a cancellation sent, no
// answer after it).
export class Wire {
    constructor(inner, version) {
        this.inner = inner;
        this.version = version;
        this.sent = [];
        this.received = [];
        this.initializeResult = null;
        inner.onmessage = (msg, extra) => {
            this.received.push(msg);
            if (this.initId !== undefined && msg.id === this.initId && msg.result) {
                this.initializeResult = msg.result;
            }
            this.onmessage?.(msg, extra);
        };
        inner.onclose = () => this.onclose?.();
        inner.onerror = (e) => this.onerror?.(e);
    }
    start() {
        return this.inner.start();
    }
    send(msg, options) {
        if (msg.method === 'initialize' && this.version) {
            msg = { ...msg, params: { ...msg.params, protocolVersion: this.version } };
            this.initId = msg.id;
        } else if (msg.method === 'initialize') {
            this.initId = msg.id;
        }
        this.sent.push(msg);
        return this.inner.send(msg, options);
    }
    close() {
        return this.inner.close();
    }
    get sessionId() {
        return this.inner.sessionId;
    }
    setProtocolVersion(v) {
        this.inner.setProtocolVersion?.(v);
    }
    terminateSession() {
        return this.inner.terminateSession();
    }
}

// Connect a Client through WIRE; collects the server's notifications
// (resources updated, list changed, log messages) in client.notes.
async function connect(wire) {
    const client = new Client({ name: 'sked-tests', version: '1.0.0' }, { capabilities: {} });
    client.notes = [];
    const keep = (n) => client.notes.push(n);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, keep);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, keep);
    client.setNotificationHandler(LoggingMessageNotificationSchema, keep);
    client.wire = wire;
    await client.connect(wire, { timeout: TIMEOUT });
    return client;
}

// Every stdio client opened, for the check that each process ended well.
export const stdioSessions = [];

// What a sanitizer build prints when it finds a fault.
export const SANITIZER = /AddressSanitizer|LeakSanitizer|runtime error:|ThreadSanitizer/;

// A client of "sked mcp ARGS" over stdio (its stderr kept in
// client.stderr()), offering VERSION (default: the SDK's latest).
export async function stdioClient(args, { version, env = {} } = {}) {
    const inner = new StdioClientTransport({
        command: bin,
        args: ['mcp', ...args],
        env: { ...env },
        stderr: 'pipe',
    });
    let err = '';
    inner.stderr?.setEncoding('utf8');
    inner.stderr?.on('data', (d) => (err += d));
    let client;
    try {
        client = await connect(new Wire(inner, version));
    } catch (e) {
        await sleep(100); // the rest of its stderr
        e.message += `; sked mcp ${args.join(' ')} said: ${err.trim().slice(-2000)}`;
        throw e;
    }
    client.stderr = () => err;
    // How the process ended, once the client closed it (its stdin ended).
    const proc = inner._process;
    client.exited = new Promise((resolve) => {
        if (!proc || proc.exitCode !== null) resolve({ code: proc?.exitCode ?? null, signal: null });
        else proc.once('exit', (code, signal) => resolve({ code, signal }));
    });
    // End the session as a client should: close its stdin, give it MS to
    // finish what it still runs (the SDK's close() kills it after 4 s),
    // then close the client.
    client.end = async (ms = 20000) => {
        try {
            proc?.stdin?.end();
        } catch {
            // already closed
        }
        await Promise.race([client.exited, sleep(ms, undefined, { ref: false })]);
        await client.close();
    };
    stdioSessions.push({ args, client });
    return client;
}

// A client of URL/mcp over Streamable HTTP with the bearer TOKEN and any
// other HEADERS, offering VERSION.
export async function httpClient(url, token, { version, headers = {} } = {}) {
    const h = { ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    const inner = new StreamableHTTPClientTransport(new URL('/mcp', url), {
        requestInit: { headers: h },
    });
    const client = await connect(new Wire(inner, version));
    client.stderr = () => '';
    return client;
}

// Wait until PRED(client.notes) holds, at most MS; the note found.
export async function waitNote(client, pred, ms) {
    const deadline = Date.now() + ms;
    for (;;) {
        const n = client.notes.find(pred);
        if (n) return n;
        if (Date.now() > deadline) return null;
        await sleep(50);
    }
}

// The text of a CallToolResult's content blocks, joined.
export function textOf(result) {
    return (result.content ?? [])
        .filter((c) => c.type === 'text')
        .map((c) => c.text)
        .join('\n');
}

export { readFileSync, sleep };
