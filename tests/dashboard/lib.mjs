// SPDX-License-Identifier: MIT
// Shared by the dashboard's browser tests (imported, not run): a real
// "sked server" on a free loopback port with a workflows file and a SQLite
// file in a scratch directory, Debian's chromium driven by playwright-core
// (headless, in a time zone other than the schedules'), the page's console
// watched for errors, checks counted and the closing line printed, and the
// expected instants of a zone computed here with the platform's own zone
// data, apart from sked's engine.
//
// A test exits 77 (skipped) when chromium or playwright-core is missing,
// 0 when every check passed, 1 otherwise.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, readFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
export const sourceDir = process.env.SKED_SOURCE_DIR || join(here, "..", "..");
export const bin = resolve(process.env.SKED_BIN || join(sourceDir, "build", "sked"));
export const chromiumPath = process.env.SKED_CHROMIUM || "/usr/bin/chromium";
export const viewerZone = "America/Los_Angeles";
export const screenshots = process.env.SKED_DASHBOARD_SCREENSHOTS === "1";

let passed = 0;
let failed = 0;
const servers = [];
const browsers = [];
export const tmp = mkdtempSync(join(tmpdir(), "sked-dash-"));

function cleanup() {
  for (const s of servers) {
    try { s.proc.kill("SIGKILL"); } catch { /* already gone */ }
  }
  rmSync(tmp, { recursive: true, force: true });
}
process.on("exit", cleanup);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(1));

export function skip(why) {
  console.log(`SKIP: ${why}`);
  process.exit(77);
}

// check NAME OK DETAIL: count one check; print the failures with DETAIL.
export function check(name, ok, detail = "") {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${name}${detail ? ": " + detail : ""}`);
  }
  return ok;
}

// step NAME FN: run one scenario; an exception (a timeout waiting for
// what a person should see) fails it and the test goes on with the next.
export async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${String(e.message || e).split("\n").slice(0, 6).join("\n    ")}`);
  }
}

// finish: close the browsers, stop the servers, print the closing line
// and exit with the outcome.
export async function finish() {
  for (const b of browsers) await b.close().catch(() => {});
  for (const s of servers) {
    const code = await s.stop();
    // A clean stop, and nothing the sanitizers found (in a sanitizer build).
    const bad = /ERROR: \w+Sanitizer|runtime error:/.exec(s.log());
    check(`${s.name}: stopped cleanly`, code === 0 && !bad,
      `exit ${code}${bad ? ", " + s.log().slice(bad.index, bad.index + 400) : ""}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// playwright-core and chromium, or skip.
export async function playwright() {
  try {
    execFileSync(chromiumPath, ["--version"], { stdio: "ignore" });
  } catch {
    skip(`no chromium at ${chromiumPath} (scripts/deps.sh installs it)`);
  }
  try {
    return await import(join(here, "node_modules", "playwright-core", "index.mjs"));
  } catch {
    skip("no playwright-core in tests/dashboard/node_modules (scripts/deps.sh installs it)");
  }
}

// startServer({workflows, token, args}): a "sked server" on a free port
// of 127.0.0.1 with its own SQLite file, the workflows file WORKFLOWS
// (YAML text) and the token TOKEN when given. Resolves to {url, db,
// stop(), log(), api()} once it listens.
// DB and LISTEN reuse a database and an address (a restart); ENV adds
// variables to the server's environment.
export async function startServer({ name = "server", workflows, token, args = [], db, listen, env: extra = {} } = {}) {
  const dir = join(tmp, name);
  mkdirSync(dir);
  db = db || `sqlite:${join(dir, "sked.db")}`;
  const argv = ["server", "--db", db, "--listen", listen || "127.0.0.1:0", ...args];
  if (workflows) {
    writeFileSync(join(dir, "workflows.yaml"), workflows);
    argv.push("--workflows", join(dir, "workflows.yaml"));
  }
  if (token) {
    writeFileSync(join(dir, "token"), token + "\n");
    argv.push("--token-file", join(dir, "token"));
  }
  const env = { ...process.env, ...extra };
  delete env.SKED_TOKEN;
  const proc = spawn(bin, argv, { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not listen:\n${log}`)), 20000);
    proc.stderr.on("data", (d) => {
      log += d;
      const m = /msg="http listening".* url=(\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ""));
      }
    });
    proc.on("error", (e) => reject(new Error(`cannot start ${bin}: ${e.message}`)));
    proc.on("exit", (code) => reject(new Error(`server exited ${code}:\n${log}`)));
  });
  const s = {
    url, db, proc, token,
    log: () => log,
    name,
    // stop(): SIGTERM (SIGKILL after 10 s); resolves to the exit status.
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
      proc.on("exit", (code) => resolve(code));
      proc.kill("SIGTERM");
      setTimeout(() => proc.kill("SIGKILL"), 10000).unref();
    }),
    // api(METHOD, PATH, BODY): one request of the API, its JSON answer.
    async api(method, path, body) {
      const headers = { "Content-Type": "application/json" };
      if (token) headers.Authorization = `Bearer ${token}`;
      const r = await fetch(url + path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },
  };
  servers.push(s);
  return s;
}

// launch(pw): a headless chromium (the system's) and a context in the
// viewer's zone, 1280x800 unless told.
export async function launch(pw, { width = 1280, height = 800 } = {}) {
  const browser = await pw.chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  browsers.push(browser);
  return { browser, context: await newContext(browser, { width, height }) };
}

// newContext(browser): a fresh context (no storage) in the viewer's zone.
export async function newContext(browser, { width = 1280, height = 800 } = {}) {
  const context = await browser.newContext({
    timezoneId: viewerZone,
    locale: "en-US",
    viewport: { width, height },
  });
  context.setDefaultTimeout(20000);
  return context;
}

// watch(page, allow): every console error and uncaught exception of PAGE
// is a failure, unless its text and URL ("TEXT URL") match the regex
// ALLOW (the browser's own line about an answer the test asked for).
// Returns the list
// the test checks at its end with noErrors.
export function watch(page, allow = null) {
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !(allow && allow.test(`${m.text()} ${m.location().url}`))) {
      errors.push(`console: ${m.text()} (${m.location().url})`);
    }
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  return errors;
}

export function noErrors(name, errors) {
  check(`${name}: no console or page error`, errors.length === 0, errors.slice(0, 5).join("; "));
}

// The page fits the width of its window: nothing to scroll sideways.
export async function fitsWidth(page) {
  return page.evaluate(() => ({
    scroll: document.scrollingElement.scrollWidth,
    inner: window.innerWidth,
  }));
}

// shot(page, NAME): docs/img/NAME.png, only with SKED_DASHBOARD_SCREENSHOTS=1.
export async function shot(page, name) {
  if (!screenshots) return;
  mkdirSync(join(sourceDir, "docs", "img"), { recursive: true });
  // The heading focused after a navigation is outlined: not in a picture.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.screenshot({ path: join(sourceDir, "docs", "img", `${name}.png`) });
}

// eventually(FN, MS, WHAT): poll FN until it returns a truthy value, for
// MS (10 s at least: a test that passes never waits that long, and one
// on a loaded machine, under the sanitizers, still passes).
export async function eventually(fn, ms, what) {
  ms = Math.max(ms, 10000);
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e.message;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// --- A zone's wall clock, from the platform's zone data (not sked's) ---

// The wall-clock fields of instant MS (ms since the epoch) in ZONE.
export function wall(ms, zone) {
  const f = new Intl.DateTimeFormat("en-US", {
    timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit",
    day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
    weekday: "short",
  });
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const utc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return {
    y: +p.year, mo: +p.month, d: +p.day, h: +p.hour, mi: +p.minute,
    wd: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(p.weekday),
    offsetMin: Math.round((utc - ms) / 60000),
  };
}

// The instant of the local time Y-MO-D H:MI in ZONE: {ms, mark} with mark
// "shifted" (moved to the end of a gap, SPEC 2.2) or "first_pass" (a
// time that happens twice: its first pass), else null.
export function civil(y, mo, d, h, mi, zone) {
  const naive = Date.UTC(y, mo - 1, d, h, mi);
  const hits = [];
  // The offsets in force within a day of it: the only ones it can have.
  const offs = new Set([-1, 0, 1].map((k) => wall(naive + k * 86400000, zone).offsetMin));
  for (const off of offs) {
    const ms = naive - off * 60000;
    const w = wall(ms, zone);
    if (w.offsetMin === off && w.y === y && w.mo === mo && w.d === d && w.h === h && w.mi === mi) hits.push(ms);
  }
  hits.sort((a, b) => a - b);
  if (hits.length === 1) return { ms: hits[0], mark: null };
  if (hits.length > 1) return { ms: hits[0], mark: "first_pass" };
  // In a gap: the first instant after the naive time read with the offset
  // before the gap, i.e. the gap's end.
  const before = wall(naive - 86400000 / 2, zone).offsetMin;
  let lo = naive - before * 60000 - 3 * 3600000;
  let hi = naive - before * 60000 + 3 * 3600000;
  const localOf = (ms) => { const w = wall(ms, zone); return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi); };
  while (hi - lo > 60000) {
    const mid = Math.floor((lo + hi) / 2 / 60000) * 60000;
    if (localOf(mid) < naive) lo = mid; else hi = mid;
  }
  return { ms: hi, mark: "shifted" };
}

// The next N occurrences after NOW (ms) of "MI H * MONTHS WEEKDAYS" in ZONE
// where months and weekdays are sets (null: any): what a simple daily
// cron at a fixed time gives, computed day by day.
export function dailyAt(h, mi, zone, { now = Date.now(), n = 1, months = null, weekdays = null } = {}) {
  const out = [];
  let day = wall(now, zone);
  let t = Date.UTC(day.y, day.mo - 1, day.d);
  for (let i = 0; out.length < n && i < 366 * 40; i++, t += 86400000) {
    const dt = new Date(t);
    const y = dt.getUTCFullYear(), mo = dt.getUTCMonth() + 1, d = dt.getUTCDate();
    if (months && !months.includes(mo)) continue;
    if (weekdays && !weekdays.includes(dt.getUTCDay())) continue;
    const c = civil(y, mo, d, h, mi, zone);
    if (c.ms > now) out.push(c);
  }
  return out;
}

// "+01:00" for an offset in minutes.
export function offsetText(min) {
  const s = min < 0 ? "-" : "+";
  const a = Math.abs(min);
  return `${s}${String(Math.floor(a / 60)).padStart(2, "0")}:${String(a % 60).padStart(2, "0")}`;
}

export const pad = (n) => String(n).padStart(2, "0");

export { readFileSync };
