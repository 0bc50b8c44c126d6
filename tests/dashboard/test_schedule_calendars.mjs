// SPDX-License-Identifier: MIT
// Schedules over calendars in the dashboard (Chromium in
// America/Los_Angeles, the schedules in Europe/Paris), everything made
// through the CLI against the server. The dates are the machine's coming
// ones, computed here day by day from the platform's zone data:
//
// - "hol" holds the next 25th of a month at least a day away (D25) and
//   the day three days from now in Paris (E); "office" includes hol.
// - "monthly-25th": "0 9 25 * *" in Paris, --exclude hol --on-excluded
//   next_business_day: its D25 09:00 fires on the first weekday after
//   D25 not in hol (T), at 09:00.
// - "daily-skip": "0 9 * * *" in Paris, --exclude hol (skip): E is dropped.
// - "office-only": "0 12 * * 1-5" in Paris, --only office.
// - "moved-back": a daily RRULE from 20 s from now plus a day, excluding
//   "tomorrow-off" (that day; every weekday a business day) with
//   --on-excluded previous_business_day: it fires 20 s from now, the run's
//   occurrence a day later than its scheduled_for.
//
// 1. monthly-25th's page says its calendars near its time spec (hol as a
//    link to its page, "on an excluded day: the next business day"), and
//    its first next occurrence is T 09:00 "moved from" D25 09:00, a <time>
//    of that instant.
// 2. daily-skip's page: E 09:00 struck through and said "excluded" in
//    words; the other days not.
// 3. hol's page lists the schedules that use it, each a link:
//    monthly-25th and daily-skip (exclude), office-only (only, through
//    office); not moved-back.
// 4. The simulation of monthly-25th from D25 to after T, with an outage
//    over T 09:00: its decision scheduled for T 09:00, moved off an
//    excluded day, and a catch-up.
// 5. moved-back's run, once fired: its page says "for the occurrence of"
//    the day after, "moved off an excluded day"; the runs list marks it
//    moved.
// 6. At a phone's width (390 px) the schedule's and the calendar's pages
//    fit without scrolling sideways.
// No console error or uncaught exception on any page.
import { execFileSync } from "node:child_process";
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish, eventually,
  bin, civil, wall, pad, shot, newContext, fitsWidth,
} from "./lib.mjs";

const PARIS = "Europe/Paris";
const DAY = 86400000;
const pw = await playwright();
const server = await startServer({
  workflows: `
workflows:
  report:
    steps:
      - name: hello
        sh: 'echo hello'
`,
});
const sked = (...args) => execFileSync(bin, [...args, "--server", server.url],
  { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

// Calendar days as "YYYY-MM-DD" from a UTC midnight, and back.
const iso = (ms) => new Date(ms).toISOString().slice(0, 10);
const midnight = (w) => Date.UTC(w.y, w.mo - 1, w.d);
const at9 = (day) => {
  const [y, mo, d] = day.split("-").map(Number);
  return civil(y, mo, d, 9, 0, PARIS).ms;
};

const today = midnight(wall(Date.now(), PARIS));
const E = iso(today + 3 * DAY);
let d25 = new Date(today);
if (d25.getUTCDate() >= 24) d25 = new Date(Date.UTC(d25.getUTCFullYear(), d25.getUTCMonth() + 1, 25));
else d25 = new Date(Date.UTC(d25.getUTCFullYear(), d25.getUTCMonth(), 25));
const D25 = iso(d25.getTime());
const hol = new Set([D25, E]);
let t = d25.getTime() + DAY;
while ([0, 6].includes(new Date(t).getUTCDay()) || hol.has(iso(t))) t += DAY;
const T = iso(t);

sked("calendar", "create", "hol", "--date", D25, "--date", E);
sked("calendar", "create", "office", "--include", "hol");
sked("schedule", "create", "report", "0 9 25 * *", "--name", "monthly-25th", "--timezone", PARIS,
  "--exclude", "hol", "--on-excluded", "next_business_day");
sked("schedule", "create", "report", "0 9 * * *", "--name", "daily-skip", "--timezone", PARIS,
  "--exclude", "hol");
sked("schedule", "create", "report", "0 12 * * 1-5", "--name", "office-only", "--timezone", PARIS,
  "--only", "office");
// 20 s from now, to the second: a daily RRULE (seconds and all) whose
// first occurrence, a day later, is excluded and moved back a day.
const fire = Math.ceil((Date.now() + 20000) / 1000) * 1000;
const occ = fire + DAY;
const stamp = new Date(occ).toISOString().replace(/[-:]|\.000Z$/g, "");
sked("calendar", "create", "tomorrow-off", "--date", iso(occ), "--weekdays", "mon-sun");
sked("schedule", "create", "report", "--rrule", `DTSTART;TZID=UTC:${stamp}\nRRULE:FREQ=DAILY;COUNT=2`,
  "--name", "moved-back", "--timezone", "UTC", "--exclude", "tomorrow-off",
  "--on-excluded", "previous_business_day");

const { browser, context } = await launch(pw);
const page = await context.newPage();
const errors = watch(page);
const flat = (s) => (s || "").replace(/\s+/g, " ").trim();

// The rows of the next occurrences: the text, the <time>s' instants and
// whether the fire time is struck through.
async function nextRows() {
  const box = page.getByRole("region", { name: "Next occurrences" });
  return box.evaluate((root) => [...root.querySelectorAll("tbody tr")].map((tr) => ({
    text: tr.textContent.replace(/\s+/g, " ").trim(),
    times: [...tr.querySelectorAll("time[datetime]")].map((x) => Date.parse(x.getAttribute("datetime"))),
    struck: !!tr.querySelector("s time"),
  })));
}

await step(`monthly-25th: its calendars and ${T} moved from ${D25}`, async () => {
  await page.goto(`${server.url}/#/schedules/monthly-25th`);
  await page.getByRole("heading", { level: 1, name: /monthly-25th/ }).waitFor();
  const cal = page.locator("main p.calendars");
  await cal.waitFor();
  const text = flat(await cal.textContent());
  check("the calendars in words", text.includes("not on the days of hol") &&
    text.includes("on an excluded day: the next business day"), text);
  const link = cal.getByRole("link", { name: "hol", exact: true });
  check("hol as a link to its page", (await link.getAttribute("href")) === "#/calendars/hol");
  // Near the time spec: right under the words.
  check("under the time spec", await cal.evaluate((el) => el.parentElement.previousElementSibling.classList.contains("lead")));
  const rows = await eventually(async () => { const r = await nextRows(); return r.length === 10 && r; },
    5000, "10 next occurrences");
  const first = rows[0];
  check(`the first fires ${T} 09:00`, first.text.includes(`${T} 09:00`) && first.times.includes(at9(T)), first.text);
  check(`moved from ${D25} 09:00, in words`, new RegExp(`moved from \\w+ ${D25} 09:00 \\+0[12]:00`).test(first.text), first.text);
  check("the occurrence as a <time> of its instant", first.times.includes(at9(D25)), JSON.stringify(first.times));
  check("the others not moved", rows.slice(1).every((r) => !/moved|excluded/.test(r.text)), rows[1].text);
  check(`not struck through`, !first.struck);
  await shot(page, "dashboard-schedule-calendars-1280");
});

await step(`daily-skip: ${E} excluded`, async () => {
  await page.goto(`${server.url}/#/schedules/daily-skip`);
  await page.getByRole("heading", { level: 1, name: /daily-skip/ }).waitFor();
  const text = flat(await page.locator("main p.calendars").textContent());
  check("skip in words", text.includes("on an excluded day: skipped"), text);
  const rows = await eventually(async () => { const r = await nextRows(); return r.length === 10 && r; },
    5000, "10 next occurrences");
  const ex = rows.find((r) => r.times.includes(at9(E)));
  check(`${E} 09:00 listed`, !!ex, rows.map((r) => r.text).join(" | "));
  if (ex) {
    check(`${E}: struck through`, ex.struck, ex.text);
    check(`${E}: "excluded" in words`, /\bexcluded\b/.test(ex.text), ex.text);
  }
  const others = rows.filter((r) => !r.times.includes(at9(E)) && !r.times.includes(at9(D25)));
  check("the other days neither struck nor marked", others.length >= 8 &&
    others.every((r) => !r.struck && !/excluded|moved/.test(r.text)), others.map((r) => r.text).join(" | "));
});

await step("hol's page lists the schedules using it", async () => {
  await page.goto(`${server.url}/#/schedules/monthly-25th`);
  await page.locator("main p.calendars").getByRole("link", { name: "hol", exact: true }).click();
  await page.waitForURL(/#\/calendars\/hol$/);
  await page.getByRole("heading", { level: 1, name: /hol/ }).waitFor();
  const tbl = page.getByRole("table", { name: "Schedules using this calendar" });
  await eventually(async () => (await tbl.getByRole("link").count()) === 3, 5000, "three schedules");
  const names = await tbl.getByRole("link").allTextContents();
  check("monthly-25th, daily-skip and office-only", names.slice().sort().join(" ") ===
    "daily-skip monthly-25th office-only", names.join(" "));
  const row = async (n) => flat(await tbl.getByRole("row").filter({ has: page.getByRole("link", { name: n, exact: true }) }).textContent());
  const m = await row("monthly-25th");
  check("monthly-25th: exclude, the next business day", /\bexclude\b/.test(m) && m.includes("the next business day"), m);
  const o = await row("office-only");
  check("office-only: only, through office", o.includes("only (through office)"), o);
  check("a link to the schedule's page", (await tbl.getByRole("link", { name: "daily-skip", exact: true })
    .getAttribute("href")) === "#/schedules/daily-skip");
  await tbl.scrollIntoViewIfNeeded();
  await shot(page, "dashboard-calendar-schedules-1280");
});

await step("the simulation: moved and a catch-up", async () => {
  await page.goto(`${server.url}/#/schedules/monthly-25th`);
  await page.getByRole("heading", { level: 1, name: /monthly-25th/ }).waitFor();
  const sim = page.getByRole("region", { name: /simulat/i });
  const Z = (ms) => new Date(ms).toISOString().replace(/\.000Z$/, "Z");
  await sim.getByLabel("From").fill(Z(at9(D25) - DAY));
  await sim.getByLabel("To").fill(Z(at9(T) + DAY));
  await sim.getByLabel("Outages").fill(`${Z(at9(T) - 3600000)}..${Z(at9(T) + 3600000)}`);
  await sim.getByRole("button", { name: "Simulate", exact: true }).click();
  const tbl = sim.getByRole("table", { name: "Decisions" });
  await tbl.waitFor();
  const rows = await tbl.evaluate((root) => [...root.querySelectorAll("tbody tr")].map((tr) => ({
    text: tr.textContent.replace(/\s+/g, " ").trim(),
    times: [...tr.querySelectorAll("time[datetime]")].map((x) => Date.parse(x.getAttribute("datetime"))),
  })));
  const d = rows.find((r) => r.times.includes(at9(D25)));
  check(`a decision for the occurrence ${D25} 09:00`, !!d, rows.map((r) => r.text).join(" | "));
  if (d) {
    check(`scheduled for ${T} 09:00, moved`, d.times.includes(at9(T)) && d.text.includes("moved off an excluded day"), d.text);
    check("a catch-up after the outage", d.text.includes("catch-up"), d.text);
  }
});

await step("moved-back's run: its occurrence", async () => {
  const run = await eventually(async () => {
    const r = await server.api("GET", "/api/v1/runs?schedule=moved-back");
    return r.runs[0];
  }, 60000, "moved-back's run");
  check("the API: fired a day before its occurrence", Date.parse(run.scheduled_for) === fire &&
    Date.parse(run.occurrence) === occ, `${run.scheduled_for} ${run.occurrence}`);
  await page.goto(`${server.url}/#/runs/${encodeURIComponent(run.id)}`);
  await page.getByRole("heading", { level: 1 }).waitFor();
  const sum = page.getByRole("region", { name: "Summary" });
  const occText = sum.locator(".occurrence");
  await occText.waitFor();
  const text = flat(await occText.textContent());
  const u = new Date(occ);
  // Seconds are shown only when they are not zero (the dashboard's rule).
  const sec = u.getUTCSeconds() ? `:${pad(u.getUTCSeconds())}` : "";
  const want = `for the occurrence of ${iso(occ)} ${pad(u.getUTCHours())}:${pad(u.getUTCMinutes())}${sec} +00:00, moved off an excluded day`;
  check("for the occurrence of the day after, moved", text.replace(/of \w+ /, "of ") === want, `${text} (want ${want})`);
  check("the occurrence as a <time>", (await occText.locator("time").getAttribute("datetime")) === run.occurrence);
  await page.goto(`${server.url}/#/runs`);
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: run.id, exact: true }) });
  await row.waitFor();
  check("the runs list marks it moved", /\bmoved\b/.test(flat(await row.textContent())));
});

await step("at 390 px: nothing to scroll sideways", async () => {
  const phone = await (await newContext(browser, { width: 390, height: 844 })).newPage();
  const perr = watch(phone);
  for (const [path, what] of [["#/schedules/monthly-25th", "Next occurrences"], ["#/calendars/hol", "Schedules"]]) {
    await phone.goto(`${server.url}/${path}`);
    await phone.getByRole("region", { name: what, exact: true }).getByRole("table").first().waitFor();
    const w = await fitsWidth(phone);
    check(`${path}: fits 390 px`, w.scroll <= w.inner, `${w.scroll} > ${w.inner}`);
  }
  noErrors("at 390 px", perr);
});

noErrors("schedule calendars", errors);
await finish();
