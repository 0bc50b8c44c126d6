// SPDX-License-Identifier: MIT
// Schedules in the dashboard, in Chromium whose zone is America/Los_Angeles
// while the schedules are in Europe/Paris:
//
// 1. #/schedules: the Paris schedule's row reads its expression in words
//    ("At 09:00, Monday through Friday"), its zone, and its next
//    occurrence in Paris time: a <time> of that instant showing 09:00 and
//    Paris's offset (the instant computed here from the platform's zone
//    data, not from sked); an interval reads as a duration ("every 6h").
//    The filters by name, workflow and status narrow the list.
// 2. Its link opens #/schedules/NAME: the definition, and the next 10
//    occurrences of a schedule across a DST change (Sundays of March at
//    02:30 in Paris), each as a <time> of the expected instant, the
//    occurrence in the spring gap marked "shifted" and shown at 03:00.
// 3. An "overlap: skip" schedule (every second, a run of 3 s): its page,
//    left open, comes to show missed occurrences with the reason "overlap"
//    without a reload; the events page shows them too, and its filter by
//    type shows them alone.
// No console error or uncaught exception on any page.
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish,
  eventually, dailyAt, wall, offsetText, pad,
} from "./lib.mjs";

const pw = await playwright();
const server = await startServer({
  workflows: `
workflows:
  report:
    steps:
      - name: hello
        sh: 'echo hello from the report'
    schedules:
      - name: paris-weekdays
        cron: "0 9 * * 1-5"
        timezone: Europe/Paris
      - name: paris-march-sundays
        cron: "30 2 * 3 0"
        timezone: Europe/Paris
      - name: every-6h
        every: 6h
  slow:
    steps:
      - name: nap
        run: ["sleep", "3"]
    schedules:
      - name: slow-overlap
        every: 1s
        overlap: skip
`,
});
const { context } = await launch(pw);
const page = await context.newPage();
const errors = watch(page);

// What the page shows of each <time>: its instant (ms), its text and the
// text of the row around it.
async function times(scope) {
  return scope.evaluate((root) => [...root.querySelectorAll("time[datetime]")].map((t) => ({
    ms: Date.parse(t.getAttribute("datetime")),
    text: t.textContent.trim(),
    title: t.getAttribute("title") || "",
    row: (t.closest("tr, li") || t.parentElement).textContent.replace(/\s+/g, " ").trim(),
  })));
}

await step("the Paris schedule in the list", async () => {
  await page.goto(`${server.url}/#/schedules`);
  await page.getByRole("heading", { level: 1, name: /schedules/i }).waitFor();
  const row = page.getByRole("row").filter({ hasText: "paris-weekdays" });
  await row.first().waitFor();
  const text = (await row.first().textContent()).replace(/\s+/g, " ");
  check("the expression in words", text.includes("At 09:00, Monday through Friday"), text);
  check("the zone", text.includes("Europe/Paris"), text);
  const [next] = dailyAt(9, 0, "Europe/Paris", { weekdays: [1, 2, 3, 4, 5] });
  const off = offsetText(wall(next.ms, "Europe/Paris").offsetMin);
  const shown = (await times(row.first())).filter((t) => t.ms === next.ms);
  check("the next occurrence as a <time> of the expected instant", shown.length > 0,
    `want ${new Date(next.ms).toISOString()}, row: ${text}`);
  if (shown.length) {
    check("shown at 09:00 Paris time", /\b09:00\b/.test(shown[0].text), shown[0].text);
    check(`with Paris's offset (${off})`, shown[0].text.includes(off) || text.includes(off), shown[0].text);
  }
  check("a relative time", /\bin \d+|\d+\s*(s|m|h|d|min|hours?|days?)\b/.test(text), text);
  const six = (await page.getByRole("row").filter({ hasText: "every-6h" }).first().textContent())
    .replace(/\s+/g, " ");
  check("an interval as a duration", six.includes("every 6h"), six);
});

await step("the list's filters", async () => {
  const names = async () => {
    const rows = await page.getByRole("row").filter({ has: page.getByRole("link") }).allTextContents();
    return ["paris-weekdays", "paris-march-sundays", "every-6h", "slow-overlap"]
      .filter((n) => rows.some((r) => r.includes(n))).join(" ");
  };
  await page.getByLabel("Name", { exact: true }).fill("paris");
  await eventually(async () => (await names()) === "paris-weekdays paris-march-sundays", 5000,
    "only the Paris schedules");
  await page.getByLabel("Name", { exact: true }).fill("");
  await page.getByLabel("Workflow", { exact: true }).selectOption("slow");
  await eventually(async () => (await names()) === "slow-overlap", 5000, "only the slow workflow's");
  await page.getByLabel("Workflow", { exact: true }).selectOption("");
  await page.getByLabel("Status", { exact: true }).selectOption("paused");
  await eventually(async () => (await names()) === "", 5000, "no paused schedule");
  await page.getByLabel("Status", { exact: true }).selectOption("");
  await eventually(async () => (await names()).split(" ").length === 4, 5000, "all four again");
});

await step("a schedule's page: the next 10 occurrences across DST", async () => {
  await page.getByRole("link", { name: "paris-march-sundays", exact: true }).first().click();
  await page.waitForURL(/#\/schedules\/paris-march-sundays$/);
  await page.getByRole("heading", { level: 1, name: /paris-march-sundays/ }).waitFor();
  const body = (await page.locator("main").textContent()).replace(/\s+/g, " ");
  check("the definition: the expression", body.includes("30 2 * 3 0"), body.slice(0, 300));
  check("the definition: the workflow", body.includes("report"));
  check("the definition: the zone", body.includes("Europe/Paris"));
  const want = dailyAt(2, 30, "Europe/Paris", { n: 10, months: [3], weekdays: [0] });
  const got = await eventually(async () => {
    const t = await times(page.locator("main"));
    return want.every((w) => t.some((x) => x.ms === w.ms)) && t;
  }, 5000, "the next 10 occurrences");
  for (const w of want) {
    const t = got.find((x) => x.ms === w.ms);
    const paris = wall(w.ms, "Europe/Paris");
    const day = `${paris.y}-${pad(paris.mo)}-${pad(paris.d)}`;
    if (w.mark === "shifted") {
      check(`${day}: marked shifted`, /shifted/.test(t.row), t.row);
      check(`${day}: at 03:00 Paris time`, /\b03:00\b/.test(t.text + " " + t.row), t.row);
    } else {
      check(`${day}: 02:30, no mark`, /\b02:30\b/.test(t.text + " " + t.row) &&
        !/shifted|first_pass|second_pass/.test(t.row), t.row);
    }
  }
  check("a DST change among the 10", want.some((w) => w.mark === "shifted"));
});

await step("an overlap: skip schedule's dropped occurrences appear", async () => {
  await page.goto(`${server.url}/#/schedules/slow-overlap`);
  await page.getByRole("heading", { level: 1, name: /slow-overlap/ }).waitFor();
  await page.evaluate(() => { window.skedNoReload = true; });
  const section = page.getByRole("region", { name: /missed/i });
  await section.waitFor();
  const misses = () => section.getByRole("row").filter({ hasText: "overlap" }).count();
  const n0 = await misses();
  // A run lasts 3 s and the schedule fires every second: new misses come
  // while the page is open, and must show up on it.
  await eventually(async () => (await misses()) > n0, 15000,
    `more missed occurrences with reason overlap than the ${n0} at first`);
  check("without a reload", await page.evaluate(() => window.skedNoReload === true));
  await page.goto(`${server.url}/#/events`);
  await page.getByRole("heading", { level: 1, name: /events/i }).waitFor();
  await eventually(async () => {
    const t = await page.locator("main").textContent();
    return /slow-overlap/.test(t) && /overlap/.test(t.replace(/slow-overlap/g, ""));
  }, 10000, "the missed occurrences on the events page");
  const feed = page.getByRole("list", { name: /events/i });
  const items = async () => (await feed.getByRole("listitem").allTextContents()).map((t) => t.replace(/\s+/g, " "));
  await page.getByLabel("Type", { exact: true }).selectOption("schedule.occurrences_missed");
  await eventually(async () => {
    const l = await items();
    return l.length > 0 && l.every((t) => t.includes("schedule.occurrences_missed") && /overlap/.test(t));
  }, 5000, "only the misses, each with its reason, under the type filter");
  await page.getByLabel("Type", { exact: true }).selectOption("run.created");
  await eventually(async () => {
    const l = await items();
    return l.length > 0 && l.every((t) => t.includes("run.created"));
  }, 5000, "only run.created under the type filter");
});

noErrors("schedules", errors);
await finish();
