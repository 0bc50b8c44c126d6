// SPDX-License-Identifier: MIT
// Every page of the dashboard at a desktop width (1280x800) and a phone's
// (390x844), on a server with schedules, a completed and a failed run, and
// a notifier of failed runs:
//
// - each route (#/schedules, #/schedules/NAME, #/runs, #/runs/ID,
//   #/events, #/queues, #/calendars, #/calendars/NAME, #/notifiers,
//   #/notifiers/NAME, #/playground) has one h1 naming the page and shows
//   what it is about (a schedule's name, a run's id, a queue's, a
//   calendar's, a notifier's);
// - at 390 px nothing scrolls sideways: document.scrollingElement's
//   scrollWidth is at most window.innerWidth;
// - the navigation reaches each list page by its link;
// - by the keyboard alone, Tab reaches a schedule's link, each element on
//   the way visibly focused, and Enter opens it;
// - no console error or uncaught exception on any page.
// With SKED_DASHBOARD_SCREENSHOTS=1 it writes docs/img/dashboard-PAGE-WIDTH.png
// (the pictures of docs/dashboard.md).
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish,
  eventually, fitsWidth, shot, newContext,
} from "./lib.mjs";

const pw = await playwright();
const server = await startServer({
  workflows: `
calendars:
  us-holidays:
    description: Christmas and New Year's Day
    rules: ["FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25", "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1"]
    observed: nearest_weekday
notifiers:
  on-call:
    command: {argv: ["true"]}
    events: [run.failed]
queues:
  reports: {concurrency: 2, rate_limit: {limit: 10, period: 1m}}
workflows:
  morning-report:
    queue: reports
    steps:
      - name: extract
        sh: 'echo "extracted 42 rows"'
      - name: publish
        needs: [extract]
        sh: 'echo "published to the team"; echo "1 warning" >&2'
    schedules:
      - name: paris-weekdays
        cron: "0 9 * * 1-5"
        timezone: Europe/Paris
      - name: paris-march-sundays
        cron: "30 2 * 3 0"
        timezone: Europe/Paris
  flaky:
    steps:
      - name: try
        sh: 'echo "connecting"; echo "connection refused" >&2; exit 3'
    schedules:
      - name: every-6h
        every: 6h
`,
});

// A completed and a failed run, finished before the pages are read.
const ok = await server.api("POST", "/api/v1/schedules/paris-weekdays/trigger");
const bad = await server.api("POST", "/api/v1/schedules/every-6h/trigger");
await eventually(async () => {
  const a = await server.api("GET", `/api/v1/runs/${ok.run_id}`);
  const b = await server.api("GET", `/api/v1/runs/${bad.run_id}`);
  return a.status === "completed" && b.status === "failed";
}, 15000, "the two runs finished");

const pages = [
  { name: "schedules", hash: "#/schedules", h1: /schedules/i, shows: "paris-weekdays" },
  { name: "schedule", hash: "#/schedules/paris-march-sundays", h1: /paris-march-sundays/, shows: "Europe/Paris" },
  { name: "runs", hash: "#/runs", h1: /runs/i, shows: ok.run_id },
  { name: "run", hash: `#/runs/${encodeURIComponent(ok.run_id)}`, h1: /run/i, shows: "published to the team" },
  // Each event says who caused it: the runs are the scheduler's.
  { name: "events", hash: "#/events", h1: /events/i, shows: "by scheduler" },
  { name: "queues", hash: "#/queues", h1: /queues/i, shows: "reports" },
  { name: "calendars", hash: "#/calendars", h1: /calendars/i, shows: "us-holidays" },
  { name: "calendar", hash: "#/calendars/us-holidays?year=2027", h1: /us-holidays/, shows: "December 2027" },
  { name: "notifiers", hash: "#/notifiers", h1: /notifiers/i, shows: "on-call" },
  { name: "notifier", hash: "#/notifiers/on-call", h1: /on-call/, shows: "run.failed" },
  { name: "playground", hash: "#/playground", h1: /playground/i, shows: null },
];

const { browser } = await launch(pw);
for (const [width, height] of [[1280, 800], [390, 844]]) {
  const context = await newContext(browser, { width, height });
  const page = await context.newPage();
  const errors = watch(page);
  for (const p of pages) {
    await step(`${p.name} at ${width}px`, async () => {
      await page.goto(`${server.url}/${p.hash}`);
      const h1 = page.getByRole("heading", { level: 1 });
      await h1.first().waitFor();
      await eventually(async () => p.h1.test(await h1.first().textContent()), 5000,
        `an h1 naming the page (${p.h1})`);
      check(`${p.name}: one h1`, (await h1.count()) === 1, String(await h1.count()));
      if (p.shows) await page.locator("main").getByText(p.shows).filter({ visible: true }).first().waitFor();
      if (p.name === "playground") {
        // What it answers is dashboard.playground's to check: here, only
        // a moment for the answer to be drawn before the width is read.
        await page.getByLabel("Expression", { exact: true }).fill("0 9 * * 1-5");
        await page.getByLabel("Time zone", { exact: true }).fill("Europe/Paris");
        await page.getByText("At 09:00").first().waitFor({ timeout: 3000 }).catch(() => {});
      }
      await page.waitForTimeout(150);
      const fit = await fitsWidth(page);
      check(`${p.name} at ${width}px: no sideways scrolling`, fit.scroll <= fit.inner,
        `scrollWidth ${fit.scroll} > innerWidth ${fit.inner}`);
      await shot(page, `dashboard-${p.name}-${width}`);
    });
  }
  await step(`the navigation at ${width}px`, async () => {
    await page.goto(`${server.url}/#/schedules`);
    for (const [link, h1] of [["Runs", /runs/i], ["Events", /events/i], ["Queues", /queues/i],
      ["Calendars", /calendars/i], ["Notifiers", /notifiers/i], ["Playground", /playground/i], ["Schedules", /schedules/i]]) {
      const nav = page.getByRole("navigation").getByRole("link", { name: link, exact: true });
      // A phone's navigation may sit behind a menu button.
      if (!(await nav.isVisible())) {
        const menu = page.getByRole("button", { name: /menu/i });
        if (await menu.count()) await menu.first().click();
      }
      await nav.click();
      await eventually(async () => h1.test(await page.getByRole("heading", { level: 1 }).first().textContent()),
        5000, `the ${link} page`);
    }
  });
  if (width === 1280) {
    await step("the keyboard", async () => {
      await page.goto(`${server.url}/#/schedules`);
      await page.getByRole("row").filter({ hasText: "paris-weekdays" }).first().waitFor();
      await page.locator("body").focus();
      // Tab by Tab to the first schedule's link: each focused element is
      // outlined (a visible focus), and Enter opens the schedule.
      let unseen = null;
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press("Tab");
        const f = await page.evaluate(() => {
          const e = document.activeElement;
          const cs = getComputedStyle(e);
          return { text: e.textContent.trim(), tag: e.tagName,
            seen: (cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== "none" };
        });
        if (!f.seen && !unseen) unseen = `${f.tag} "${f.text.slice(0, 30)}"`;
        if (f.text === "every-6h") break;
      }
      check("every focused element is visibly focused", !unseen, unseen);
      await page.keyboard.press("Enter");
      await page.waitForURL(/#\/schedules\/every-6h$/);
    });
  }
  noErrors(`${width}px`, errors);
  await context.close();
}

await finish();
