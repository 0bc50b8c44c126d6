// SPDX-License-Identifier: MIT
// A schedule's actions on its page (#/schedules/NAME), by their buttons:
//
// 1. "Pause" makes it paused (on the page and in the API), "Resume"
//    active again.
// 2. "Backfill" of the last 3 hours of an hourly schedule: "Preview" tells
//    what it will create (3 runs) before anything is created; the API
//    still has no run then; confirming creates them, and a second
//    preview of the same period says they would be skipped.
// 3. "Skip" on the second of the next occurrences skips it (in the API,
//    and the row says skipped); "Unskip" undoes it. "Run it" of one past
//    occurrence creates its run with the firing's id; of one that has
//    its run, says it exists and creates none.
// 4. "Simulate" over its default period shows a timeline of what fired.
// 5. "Delete" asks for a confirmation; dismissed, nothing changes;
//    accepted, the schedule is gone from the API and from the list.
// 6. Deleted through the API while its page is open, the page says so.
// No console error or uncaught exception.
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish, eventually,
} from "./lib.mjs";

const pw = await playwright();
const server = await startServer({
  workflows: `
workflows:
  hourly:
    steps:
      - name: a
        run: ["true"]
`,
});
// An API schedule (the workflows file's own cannot be deleted from the
// dashboard: they come back from the file).
await server.api("POST", "/api/v1/schedules", {
  name: "hourly-paris", workflow: "hourly", cron: "0 * * * *", timezone: "Europe/Paris",
});
const { context } = await launch(pw);
const page = await context.newPage();
const errors = watch(page);
let answer = true; // what the next confirmation answers
page.on("dialog", (d) => (answer ? d.accept() : d.dismiss()));
const main = page.locator("main");
const text = async () => (await main.textContent()).replace(/\s+/g, " ");
const button = (name) => page.getByRole("button", { name, exact: true });
const status = async () => (await server.api("GET", "/api/v1/schedules/hourly-paris")).status;

// Fill the input labelled LABEL in REGION with the instant ISO, whatever
// its type.
async function fillTime(region, label, iso) {
  const el = region.getByLabel(label, { exact: true });
  const type = await el.getAttribute("type");
  if (type === "datetime-local") await el.fill(iso.slice(0, 16));
  else await el.fill(iso);
}

// The page's confirmation: the browser's (answered by the dialog handler)
// or a dialog element of the page's own, answered by its buttons.
async function confirmWith(yes) {
  const dlg = page.getByRole("dialog");
  try {
    await dlg.first().waitFor({ timeout: 5000 });
  } catch {
    return; // a browser dialog, already answered
  }
  await dlg.getByRole("button", { name: yes ? /confirm|delete|yes/i : /keep|cancel|no/i }).first().click();
}

await step("pause and resume", async () => {
  await page.goto(`${server.url}/#/schedules/hourly-paris`);
  await page.getByRole("heading", { level: 1, name: /hourly-paris/ }).waitFor();
  await button("Pause").click();
  await eventually(async () => (await status()) === "paused", 5000, "paused in the API");
  await eventually(async () => /paused/.test(await text()), 5000, "paused on the page");
  await button("Resume").click();
  await eventually(async () => (await status()) === "active", 5000, "active in the API");
  await button("Pause").waitFor();
});

await step("backfill with a preview", async () => {
  const hour = 3600000;
  const now = Math.floor(Date.now() / hour) * hour;
  // Strictly between: the occurrences at now-2h, now-1h and now (the last
  // top of the hour, past).
  const start = new Date(now - 3 * hour).toISOString();
  const end = new Date(now + 1000).toISOString();
  const region = page.getByRole("region", { name: "Backfill" });
  // The form may sit behind its button.
  if (!(await region.getByLabel("Start", { exact: true }).isVisible())) await button("Backfill").click();
  await fillTime(region, "Start", start);
  await fillTime(region, "End", end);
  await region.getByRole("button", { name: "Preview", exact: true }).click();
  await eventually(async () => /creat\w*\s+3\b|\b3\s+(runs?\s+)?(to\s+)?(be\s+)?creat/i.test(await text()),
    5000, "the preview: 3 runs to create").catch(async (e) => {
    throw new Error(`${e.message}; the page says: ${(await region.textContent()).slice(0, 300)}`);
  });
  const before = (await server.api("GET", "/api/v1/runs?schedule=hourly-paris")).runs.length;
  check("the preview created nothing", before === 0, `${before} runs`);
  await region.getByRole("button", { name: "Backfill", exact: true }).click();
  await confirmWith(true);
  await eventually(async () =>
    (await server.api("GET", "/api/v1/runs?schedule=hourly-paris")).runs.length === 3,
  5000, "3 runs created");
  await region.getByRole("button", { name: "Preview", exact: true }).click();
  await eventually(async () => /skip\w*\s+3\b|\b3\s+(runs?\s+)?(to\s+)?(be\s+)?skip/i.test(await text()),
    5000, "a second preview: 3 to skip");
});

await step("skip, unskip and run one occurrence", async () => {
  const skips = async () => (await server.api("GET", "/api/v1/schedules/hourly-paris/skips")).skips;
  await page.goto(`${server.url}/#/schedules/hourly-paris`);
  const next = page.getByRole("region", { name: "Next occurrences" });
  await next.getByRole("button", { name: "Skip", exact: true }).nth(1).click();
  await eventually(async () => (await skips()).length === 1, 5000, "one skip in the API");
  await eventually(async () => /skipped/.test(await next.textContent()), 5000, "the row says skipped");
  await next.getByRole("button", { name: "Unskip", exact: true }).first().click();
  await eventually(async () => (await skips()).length === 0, 5000, "no skip left");
  const hour = 3600000;
  const past = new Date(Math.floor(Date.now() / hour) * hour - 5 * hour).toISOString().replace(/\.\d{3}Z$/, "Z");
  const one = page.getByRole("region", { name: "Run one occurrence" });
  await one.getByLabel("Occurrence", { exact: true }).fill(past);
  await one.getByRole("button", { name: "Run it", exact: true }).click();
  await eventually(async () =>
    (await server.api("GET", "/api/v1/runs?schedule=hourly-paris")).runs.some((r) => r.id === `sched-hourly-paris-${past}`),
  5000, "the occurrence's run, with the firing's id");
  await one.getByRole("button", { name: "Run it", exact: true }).click();
  await eventually(async () => /exists/.test(await one.textContent()), 5000, "the second says it exists");
  check("one run of it", (await server.api("GET", "/api/v1/runs?schedule=hourly-paris")).runs.length === 4);
});

await step("simulate", async () => {
  await page.goto(`${server.url}/#/schedules/hourly-paris`);
  await page.getByRole("heading", { level: 1, name: /hourly-paris/ }).waitFor();
  const sim = page.getByRole("region", { name: /simulat/i });
  await sim.getByRole("button", { name: "Simulate", exact: true }).click();
  // The timeline, as a picture with its words (what fired, what dropped).
  const tl = sim.getByRole("img", { name: /timeline/i });
  await tl.first().waitFor({ timeout: 15000 }).catch(async () => {
    throw new Error(`no timeline; the section says: ${(await sim.textContent()).slice(0, 300)}`);
  });
  const label = await tl.first().getAttribute("aria-label");
  check("the timeline tells what fired", /\d+ fired/.test(label || ""), label);
});

await step("delete with a confirmation", async () => {
  answer = false;
  await button("Delete").click();
  await confirmWith(false);
  await page.waitForTimeout(300);
  check("dismissed: still there", (await status()) === "active");
  answer = true;
  await button("Delete").click();
  await confirmWith(true);
  await eventually(async () => {
    const r = await fetch(`${server.url}/api/v1/schedules/hourly-paris`);
    await r.text();
    return r.status === 404;
  }, 5000, "the schedule deleted");
  await page.goto(`${server.url}/#/schedules`);
  await page.getByRole("heading", { level: 1, name: /schedules/i }).waitFor();
  await page.waitForTimeout(500);
  check("gone from the list", (await page.getByText("hourly-paris").count()) === 0);
});

// Deleted elsewhere while its page is open: the page says so and reads
// nothing more of it (a read would answer 404, a console error).
await step("deleted elsewhere", async () => {
  await server.api("POST", "/api/v1/schedules", {
    name: "hourly-tokyo", workflow: "hourly", cron: "0 * * * *", timezone: "Asia/Tokyo",
  });
  await page.goto(`${server.url}/#/schedules/hourly-tokyo`);
  await page.getByRole("heading", { level: 1, name: /hourly-tokyo/ }).waitFor();
  // The stream may bring the schedule's creation after the page opened:
  // it reads the schedule again 400 ms later, and that read, were the
  // deletion first, would rightly answer 404. What is checked here is
  // what the page does once it has been told: so delete when it is quiet.
  await page.waitForTimeout(1500);
  await server.api("DELETE", "/api/v1/schedules/hourly-tokyo");
  await eventually(async () => /was deleted/.test(await text()), 5000, "the page says it was deleted");
  await page.waitForTimeout(1000);
});

noErrors("actions", errors);
await finish();
