// SPDX-License-Identifier: MIT
// Deadlines, heartbeats and notifiers in the dashboard, on a real server
// whose heartbeat misses its deadlines while the browser watches:
//
// - a heartbeat schedule (every 10s, deadline 2s, never pinged) and a
//   workflow's schedule (every 10s, deadline 30s, start_deadline 20s); a
//   command notifier writing the events it gets (schedule.deadline_missed)
//   to a file, and a webhook notifier signed with a secret from the
//   server's environment, with a header whose value is secret too;
// - the heartbeat's page shows its deadline as the dashboard's duration,
//   "heartbeat: expects a ping" with `sked ping beat` and its ping URL,
//   and, as they grow, the API's count of missed deadlines and the last
//   one as a <time> of the API's instant; the other schedule's page shows
//   both its durations and no miss;
// - a missed run's page says "deadline missed (completion)" beside its
//   status and shows its deadline's instant (its occurrence + 2 s); the
//   runs list and the schedule's runs say "deadline missed" in its row;
//   the other schedule's completed run met both its deadlines;
// - #/notifiers (reached by the navigation) lists both notifiers with
//   their kind, target (argv[0], the URL's host), events and schedules;
//   the command's page lists the deliveries the API has, delivered, at
//   the API's instants, and the file got their events; the webhook's page
//   says a secret is set, and neither the secret nor the header's value
//   is anywhere in any page's HTML;
// - an unknown notifier's page says so;
// - at 390 px nothing scrolls sideways; no console error anywhere.
// Times are never written here: each expected text is the dashboard's own
// formatting (its ui.js, imported in the page) of the API's values.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  playwright, startServer, launch, newContext, watch, noErrors, check, step, finish,
  eventually, fitsWidth, tmp,
} from "./lib.mjs";

const SECRET = "sked-secret-" + randomBytes(8).toString("hex");
const HEADER = "sked-header-" + randomBytes(8).toString("hex");
const sink = join(tmp, "pager.jsonl");
const pw = await playwright();
const server = await startServer({
  env: { SKED_DASH_HOOK_SECRET: SECRET },
  workflows: `
notifiers:
  pager:
    command: {argv: ["sh", "-c", "cat >> '${sink}'; echo >> '${sink}'"]}
    events: [schedule.deadline_missed]
  hook:
    webhook:
      url: "http://127.0.0.1:9/sked"
      secret_env: SKED_DASH_HOOK_SECRET
      headers: {X-Token: "${HEADER}"}
    events: [schedule.disabled]
    schedules: ["beat*", steady]
workflows:
  quick:
    steps:
      - name: go
        run: ["true"]
    schedules:
      - name: steady
        every: 10s
        deadline: 30s
        start_deadline: 20s
schedules:
  - name: beat
    heartbeat: true
    every: 10s
    deadline: 2s
`,
});
const api = (path) => server.api("GET", path);
const enc = encodeURIComponent;

const { browser, context } = await launch(pw);
const page = await context.newPage();
const errors = watch(page, /status of 404.*\/api\/v1\/notifiers\/nope/);
const htmls = [];

// NAME(...ARGS) of the dashboard's ui.js, as the page has it.
async function ui(p, name, ...args) {
  return p.evaluate(async ([name, args]) => {
    const href = document.querySelector('link[rel="modulepreload"][href$="/ui.js"]').href;
    const m = await import(href);
    return m[name](...args);
  }, [name, args]);
}

// The <dd> of the term LABEL under ROOT.
const dd = (root, label) => root.locator("dl > div").filter({
  has: page.locator("dt").getByText(label, { exact: true }),
}).locator("dd");

async function open(hash, h1) {
  await page.goto(`${server.url}/${hash}`);
  await page.getByRole("heading", { level: 1, name: h1 }).waitFor();
}

async function keepHtml() {
  htmls.push(await page.content());
}

// The heartbeat has missed a deadline, the pager has delivered it.
const missedRun = await eventually(async () => {
  const r = await api("/api/v1/runs?schedule=beat");
  return r.runs.find((x) => x.deadline_missed && x.status === "failed");
}, 40000, "a heartbeat run that missed its deadline");

await step("the heartbeat's page: its deadline, its ping, its misses", async () => {
  await open("#/schedules/beat", /beat/);
  const region = page.getByRole("region", { name: "Deadlines" });
  await region.waitFor();
  const two = await ui(page, "duration", 2);
  const text = await dd(region, "Deadline").textContent();
  check("the deadline as the dashboard's duration", text.startsWith(two + " "), text);
  check("no start deadline", (await dd(region, "Start deadline").textContent()) === "none");
  await region.getByText("heartbeat: expects a ping").waitFor();
  check("the sked ping hint", await region.locator("code", { hasText: /^sked ping beat$/ }).count() === 1);
  const url = `${server.url}/api/v1/schedules/beat/ping`;
  const codes = await region.locator("code").allTextContents();
  check("the ping URL", codes.some((c) => c.includes(url)), codes.join(" | "));
  // The count and the last miss as the API says them, as they grow.
  await eventually(async () => {
    const s = await api("/api/v1/schedules/beat");
    const count = (await dd(region, "Deadlines missed").textContent()).trim();
    const t = dd(region, "Last missed").locator("time");
    if (count !== String(s.deadlines_missed) || !(await t.count())) return false;
    const want = await ui(page, "inZone", s.last_deadline_missed_at, s.timezone || "UTC");
    return (await t.getAttribute("datetime")) === s.last_deadline_missed_at &&
      (await t.textContent()) === want.text && s.deadlines_missed >= 1;
  }, 20000, "the API's count of missed deadlines and the last one on the page");
  // Its runs: the missed one says so.
  const row = page.getByRole("region", { name: "Runs" }).getByRole("row").filter({ hasText: missedRun.id });
  await eventually(async () => /deadline missed/.test(await row.locator('[data-label="Deadline"]').textContent()),
    10000, "the schedule's runs mark the missed run");
  await keepHtml();
});

await step("a workflow's schedule: both deadlines, no miss", async () => {
  await open("#/schedules/steady", /steady/);
  const region = page.getByRole("region", { name: "Deadlines" });
  await region.waitFor();
  for (const [label, secs] of [["Deadline", 30], ["Start deadline", 20]]) {
    const want = await ui(page, "duration", secs);
    const text = await dd(region, label).textContent();
    check(`${label}: ${want}`, text.startsWith(want + " "), text);
  }
  check("no heartbeat", await region.getByText("heartbeat: expects a ping").count() === 0);
  check("no miss", (await dd(region, "Deadlines missed").textContent()).trim() === "0");
  check("never missed", (await dd(region, "Last missed").textContent()).trim() === "never");
  await keepHtml();
});

await step("the missed run's page says deadline missed", async () => {
  await open(`#/runs/${enc(missedRun.id)}`, new RegExp(missedRun.id));
  const sum = page.getByRole("region", { name: "Summary" });
  const words = "deadline missed (" + missedRun.deadline_missed.split(",").join(" and ") + ")";
  await dd(sum, "Status").getByText(words, { exact: true }).waitFor();
  const deadline = dd(sum, "Deadline");
  await deadline.getByText("deadline missed", { exact: true }).waitFor();
  const iso = await deadline.locator("time").getAttribute("datetime");
  check("its deadline: its occurrence + 2 s", Date.parse(iso) === Date.parse(missedRun.scheduled_for) + 2000,
    `${iso} for ${missedRun.scheduled_for}`);
  const want = await ui(page, "inZone", iso, "UTC");
  check("its deadline as the dashboard writes it", (await deadline.locator("time").textContent()) === want.text);
  await keepHtml();
});

await step("the runs list marks the missed run", async () => {
  await open("#/runs?schedule=beat", /runs/i);
  const cell = page.getByRole("row").filter({ hasText: missedRun.id }).locator('[data-label="Deadline"]');
  await cell.waitFor();
  check("deadline missed in its row", /deadline missed \(completion\)/.test(await cell.textContent()),
    await cell.textContent());
});

await step("a run that met its deadlines", async () => {
  const run = await eventually(async () => {
    const r = await api("/api/v1/runs?schedule=steady");
    return r.runs.find((x) => x.status === "completed" && x.trigger === "cron");
  }, 20000, "a completed run of steady");
  await open(`#/runs/${enc(run.id)}`, new RegExp(run.id));
  const sum = page.getByRole("region", { name: "Summary" });
  for (const [label, secs] of [["Start deadline", 20], ["Deadline", 30]]) {
    const d = dd(sum, label);
    await d.getByText("met", { exact: true }).waitFor();
    const iso = await d.locator("time").getAttribute("datetime");
    check(`${label}: its occurrence + ${secs} s`, Date.parse(iso) === Date.parse(run.scheduled_for) + secs * 1000, iso);
  }
  check("no miss on its page", await sum.getByText("deadline missed").count() === 0);
});

await step("the notifiers list, reached by the navigation", async () => {
  await open("#/schedules", /schedules/i);
  await page.getByRole("navigation").getByRole("link", { name: "Notifiers", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Notifiers" }).waitFor();
  const cells = async (name) => {
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
    await row.waitFor();
    const out = {};
    for (const c of ["Kind", "Target", "Events", "Schedules"])
      out[c] = (await row.locator(`[data-label="${c}"]`).innerText()).trim().replace(/\s+/g, " ");
    return out;
  };
  const pager = await cells("pager");
  check("pager: command to sh", pager.Kind === "command" && pager.Target === "sh", JSON.stringify(pager));
  check("pager: its events, every schedule", pager.Events === "schedule.deadline_missed" &&
    pager.Schedules === "every schedule", JSON.stringify(pager));
  const hook = await cells("hook");
  check("hook: webhook to the URL's host", hook.Kind === "webhook" && hook.Target === "127.0.0.1:9", JSON.stringify(hook));
  check("hook: its schedules", hook.Events === "schedule.disabled" && hook.Schedules === "beat* steady", JSON.stringify(hook));
  await keepHtml();
});

await step("the command notifier's page and its deliveries", async () => {
  await open("#/notifiers/pager", /pager/);
  const def = page.getByRole("region", { name: "Definition" });
  check("its program and arguments", (await dd(def, "Program and arguments").innerText()).includes(`cat >> '${sink}'`));
  const region = page.getByRole("region", { name: "Deliveries" });
  // Every delivery the API has is on the page, delivered at its instant.
  await eventually(async () => {
    const list = await api("/api/v1/notifiers/pager/deliveries");
    if (!list.length || list.some((d) => d.state !== "delivered")) return false;
    for (const d of list) {
      const row = region.getByRole("row").filter({ hasText: d.delivery });
      if ((await row.count()) !== 1) return false;
      const state = (await row.locator('[data-label="State"]').textContent()).trim();
      const at = await row.locator('[data-label="Delivered at"] time').getAttribute("datetime");
      const ev = await row.locator('[data-label="Event"]').textContent();
      if (state !== "delivered" || at !== d.delivered_at || !ev.includes("schedule.deadline_missed")) return false;
    }
    return true;
  }, 20000, "the API's deliveries, delivered, on the page");
  const got = existsSync(sink) ? readFileSync(sink, "utf8") : "";
  check("the command got the event", got.includes('"type":"schedule.deadline_missed"') && got.includes('"schedule":"beat"'),
    got.slice(0, 300));
  await keepHtml();
});

await step("the webhook's page: a secret set, never shown", async () => {
  await open("#/notifiers/hook", /hook/);
  const def = page.getByRole("region", { name: "Definition" });
  const secret = await dd(def, "Secret").innerText();
  check("a secret is set, from the environment", /^set/.test(secret) && secret.includes("SKED_DASH_HOOK_SECRET"), secret);
  check("the header's name", (await dd(def, "Headers").innerText()).includes("X-Token"));
  await page.getByRole("region", { name: "Deliveries" }).getByText("No delivery yet").waitFor();
  await keepHtml();
  check("the secret is in no page", htmls.every((x) => !x.includes(SECRET)));
  check("the header's value is in no page", htmls.every((x) => !x.includes(HEADER)));
});

await step("an unknown notifier", async () => {
  await open("#/notifiers/nope", /nope/);
  await page.getByText('No notifier "nope".').waitFor();
});

await step("at 390 px nothing scrolls sideways", async () => {
  const phone = await newContext(browser, { width: 390, height: 844 });
  const p = await phone.newPage();
  const errs = watch(p);
  for (const hash of ["#/schedules/beat", `#/runs/${enc(missedRun.id)}`, "#/runs", "#/notifiers",
    "#/notifiers/pager", "#/notifiers/hook"]) {
    await p.goto(`${server.url}/${hash}`);
    await p.getByRole("heading", { level: 1 }).waitFor();
    await p.locator("main table, main dl").first().waitFor();
    await p.waitForTimeout(300);
    const fit = await fitsWidth(p);
    check(`${hash} at 390 px`, fit.scroll <= fit.inner, `scrollWidth ${fit.scroll} > innerWidth ${fit.inner}`);
    check(`${hash} at 390 px: no secret`, !(await p.content()).includes(SECRET));
  }
  noErrors("390 px", errs);
  await phone.close();
});

noErrors("1280 px", errors);
await finish();
