// SPDX-License-Identifier: MIT
// The dashboard's files as a browser receives them, from a real server
// (no browser needed):
//
// - the page (/) is text/html, never cached for good (no-cache or
//   no-store), and names every script and style it loads under a path
//   with the files' content hash (/dashboard/HASH/NAME);
// - each file of src/http/dashboard under that path has the content type
//   of its kind, "Cache-Control: ... max-age=31536000, immutable" (a year
//   or more), and the bytes of the source file; under a stale hash it is
//   not cached for good;
// - every answer of the dashboard has a Content-Security-Policy that
//   allows scripts from the server alone ('self', no 'unsafe-inline', no
//   'unsafe-eval'), names no other origin (no scheme, host or '*') in any
//   directive, and forbids framing;
// - the embedded files add up to 150 KB (153,600 bytes) at most.
import { readdirSync, statSync, readFileSync } from "node:fs";
import { join, extname } from "node:path";
import { startServer, check, step, finish, sourceDir } from "./lib.mjs";

const assetDir = join(sourceDir, "src", "http", "dashboard");
const types = {
  ".html": /^text\/html(;\s*charset=utf-8)?$/i,
  ".js": /^(text|application)\/javascript(;\s*charset=utf-8)?$/i,
  ".mjs": /^(text|application)\/javascript(;\s*charset=utf-8)?$/i,
  ".css": /^text\/css(;\s*charset=utf-8)?$/i,
  ".svg": /^image\/svg\+xml/i,
  ".png": /^image\/png$/i,
  ".ico": /^image\/(x-icon|vnd\.microsoft\.icon)$/i,
  ".json": /^application\/(manifest\+)?json/i,
  ".webmanifest": /^application\/manifest\+json/i,
};

// The CSP's directives as {name: [sources]}.
function parseCsp(text) {
  const out = {};
  for (const part of (text || "").split(";")) {
    const [name, ...srcs] = part.trim().split(/\s+/);
    if (name) out[name.toLowerCase()] = srcs;
  }
  return out;
}

function checkCsp(what, headers) {
  const text = headers.get("content-security-policy");
  if (!check(`${what}: has a Content-Security-Policy`, !!text)) return;
  const csp = parseCsp(text);
  const script = csp["script-src"] || csp["default-src"] || [];
  check(`${what}: scripts from 'self' only`, script.length > 0 &&
    script.every((s) => s === "'self'" || s === "'none'"), text);
  check(`${what}: no 'unsafe-inline' or 'unsafe-eval' script`,
    !/'unsafe-(inline|eval)'/.test(script.join(" ")), text);
  check(`${what}: a default-src`, !!csp["default-src"], text);
  const foreign = Object.entries(csp).flatMap(([, srcs]) =>
    srcs.filter((s) => s === "*" || /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ||
      /^(https?|wss?|ftp):$/i.test(s) || /^\*?\.?[a-z0-9-]+\.[a-z]/i.test(s)));
  check(`${what}: no other origin in any directive`, foreign.length === 0, foreign.join(" "));
  check(`${what}: cannot be framed`, (csp["frame-ancestors"] || []).join(" ") === "'none'" ||
    /deny/i.test(headers.get("x-frame-options") || ""), text);
}

const files = readdirSync(assetDir).filter((f) => statSync(join(assetDir, f)).isFile());
const server = await startServer({});

let hash = null;
await step("the page", async () => {
  const r = await fetch(server.url + "/");
  const html = await r.text();
  check("/: 200", r.status === 200, String(r.status));
  check("/: text/html", types[".html"].test(r.headers.get("content-type") || ""),
    r.headers.get("content-type"));
  check("/: not cached for good", /no-cache|no-store/.test(r.headers.get("cache-control") || ""),
    r.headers.get("cache-control"));
  checkCsp("/", r.headers);
  check("/: no inline script", !/<script(?![^>]*\ssrc=)[^>]*>\s*\S/i.test(html));
  check("/: no inline event handler", !/\son[a-z]+\s*=/i.test(html));
  // What the page loads from the server (a data: URL loads nothing).
  const refs = [...html.matchAll(/<(?:script|link)\b[^>]*\s(?:src|href)="([^"]+)"/gi)]
    .map((m) => m[1]).filter((u) => !u.startsWith("data:"));
  check("/: loads scripts and styles", refs.length >= 2, refs.join(" "));
  for (const ref of refs) {
    const m = /^\/dashboard\/([0-9a-f]{8,})\/[^/]+$/.exec(ref);
    check(`/: ${ref} is named under a content hash`, !!m);
    if (m) hash = hash || m[1];
  }
  check("/: no other origin referenced", !/(src|href)="(https?:)?\/\//i.test(html));
});

await step("each embedded file under the hash", async () => {
  if (!check("a content hash found in the page", !!hash)) return;
  for (const f of files) {
    if (f === "index.html") continue;
    const r = await fetch(`${server.url}/dashboard/${hash}/${f}`);
    const body = Buffer.from(await r.arrayBuffer());
    const type = r.headers.get("content-type") || "";
    const cache = r.headers.get("cache-control") || "";
    check(`${f}: 200`, r.status === 200, String(r.status));
    const want = types[extname(f)];
    check(`${f}: content type of its kind`, want ? want.test(type) : type !== "", type);
    const age = +((/max-age=(\d+)/.exec(cache) || [])[1] || 0);
    check(`${f}: cached for good under its hash`, age >= 31536000 && /immutable/.test(cache), cache);
    check(`${f}: the source file's bytes`, body.equals(readFileSync(join(assetDir, f))));
    check(`${f}: nosniff`, /nosniff/i.test(r.headers.get("x-content-type-options") || ""));
    checkCsp(f, r.headers);
    const stale = await fetch(`${server.url}/dashboard/0000000000000000/${f}`);
    await stale.arrayBuffer();
    check(`${f}: under a stale hash, not cached for good`,
      stale.status !== 200 || !/immutable/.test(stale.headers.get("cache-control") || ""),
      stale.headers.get("cache-control"));
  }
  const missing = await fetch(`${server.url}/dashboard/${hash}/no-such-file.js`);
  await missing.arrayBuffer();
  check("a file that does not exist: 404", missing.status === 404, String(missing.status));
});

await step("the total size", async () => {
  const total = files.reduce((n, f) => n + statSync(join(assetDir, f)).size, 0);
  console.log(`embedded assets: ${files.length} files, ${total} bytes (${(total / 1024).toFixed(1)} KB)`);
  check("embedded assets <= 150 KB", total <= 150 * 1024, `${total} bytes`);
});

await finish();
