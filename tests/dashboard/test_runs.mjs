// SPDX-License-Identifier: MIT
// Runs in the dashboard, live:
//
// 1. With #/runs open in one tab, "Trigger" on a schedule's page in a
//    second tab: the run arrives in the first tab's list and reaches
//    "completed" there, with no reload (the stream, not a refresh).
// 2. Its link opens #/runs/ID: the run's id, its trigger, and each step
//    by name with its exit code and its captured output ("hello from step
//    say" on stdout, "and to stderr" on stderr).
// 3. A run whose step is "sleep 30": its page shows it running; "Cancel"
//    (confirmed) makes it "cancelled" on the page within seconds, and the
//    API agrees.
// 4. The list's filters by status, schedule and workflow.
// No console error or uncaught exception in either tab.
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish, eventually,
} from "./lib.mjs";

const pw = await playwright();
// A short lease: a cancel is noticed within a third of it at the latest.
const server = await startServer({
  args: ["--lease", "3s"],
  workflows: `
workflows:
  greet:
    steps:
      - name: say
        sh: 'echo "hello from step say"; echo "and to stderr" >&2'
      - name: after
        needs: [say]
        run: ["true"]
    schedules:
      - name: greet-yearly
        cron: "0 0 1 1 *"
  sleeper:
    steps:
      - name: nap
        run: ["sleep", "30"]
    schedules:
      - name: sleeper-yearly
        cron: "0 0 1 1 *"
`,
});
const { context } = await launch(pw);
const list = await context.newPage();
const other = await context.newPage();
const errors = [...[list, other].map((p) => watch(p))];
for (const p of [list, other]) p.on("dialog", (d) => d.accept());

const text = async (loc) => (await loc.textContent()).replace(/\s+/g, " ");
let runId = null;

// Trigger SCHEDULE from its page in the second tab.
async function trigger(schedule) {
  await other.goto(`${server.url}/#/schedules/${schedule}`);
  await other.getByRole("heading", { level: 1, name: new RegExp(schedule) }).waitFor();
  await other.bringToFront();
  await other.getByRole("button", { name: "Trigger", exact: true }).click();
  await list.bringToFront();
}

await step("a triggered run arrives and completes without a reload", async () => {
  await list.goto(`${server.url}/#/runs`);
  await list.getByRole("heading", { level: 1, name: /runs/i }).waitFor();
  await list.evaluate(() => { window.skedNoReload = true; });
  await trigger("greet-yearly");
  const row = list.getByRole("row").filter({ hasText: "greet-yearly" });
  await eventually(async () => (await row.count()) > 0, 10000, "the run in the list");
  await eventually(async () => /completed/.test(await text(row.first())), 15000,
    "the run completed in the list");
  check("no reload", await list.evaluate(() => window.skedNoReload === true));
  const runs = (await server.api("GET", "/api/v1/runs?schedule=greet-yearly")).runs;
  check("one run of the schedule", runs.length === 1, JSON.stringify(runs.map((r) => r.id)));
  runId = runs[0] && runs[0].id;
  check("the list shows its id", runId && (await text(row.first())).includes(runId));
});

await step("a run's page: its steps and their output", async () => {
  await list.getByRole("row").filter({ hasText: "greet-yearly" }).first()
    .getByRole("link").first().click();
  await list.waitForURL(/#\/runs\/.+/);
  check("the run's route", decodeURIComponent(list.url()).endsWith(`#/runs/${runId}`), list.url());
  await list.getByRole("heading", { level: 1 }).waitFor();
  const main = list.locator("main");
  await list.getByText("hello from step say").first().waitFor();
  const body = await text(main);
  check("the run's id", body.includes(runId));
  check("its status", /completed/.test(body));
  check("its trigger", /manual/.test(body), body.slice(0, 400));
  check("the step names", body.includes("say") && body.includes("after"));
  check("stderr", body.includes("and to stderr"));
  check("an exit code", /exit(\s*code)?:?\s*0\b/i.test(body), body.slice(0, 600));
});

await step("cancel a running run", async () => {
  await list.goto(`${server.url}/#/runs`);
  await list.getByRole("heading", { level: 1, name: /runs/i }).waitFor();
  await trigger("sleeper-yearly");
  const row = list.getByRole("row").filter({ hasText: "sleeper-yearly" });
  await eventually(async () => /running/.test(await text(row.first())), 10000, "the run running");
  await row.first().getByRole("link").first().click();
  await list.waitForURL(/#\/runs\/.+/);
  const id = decodeURIComponent(list.url()).replace(/.*#\/runs\//, "");
  const main = list.locator("main");
  await eventually(async () => /running/.test(await text(main)), 5000, "running on the run's page");
  const t0 = Date.now();
  // The tab a person looks at: a tab left behind the other one may get
  // no animation frames, and a click waits for the button to be still.
  await list.bringToFront();
  await list.getByRole("button", { name: "Cancel", exact: true }).click();
  await eventually(async () => /cancelled/.test(await text(main)), 15000, "cancelled on the page");
  check("cancelled well before the step's 30 s", Date.now() - t0 < 15000);
  const run = await server.api("GET", `/api/v1/runs/${encodeURIComponent(id)}`);
  check("the API says cancelled", run.status === "cancelled", run.status);
  check("no Cancel button once finished",
    (await list.getByRole("button", { name: "Cancel", exact: true }).count()) === 0 ||
    (await list.getByRole("button", { name: "Cancel", exact: true }).isDisabled()));
});

await step("the runs' filters", async () => {
  await list.goto(`${server.url}/#/runs`);
  await list.getByRole("heading", { level: 1, name: /runs/i }).waitFor();
  const shown = async () => {
    const rows = await list.getByRole("row").filter({ has: list.getByRole("link") }).allTextContents();
    return ["greet-yearly", "sleeper-yearly"].filter((n) => rows.some((r) => r.includes(n))).join(" ");
  };
  await eventually(async () => (await shown()) === "greet-yearly sleeper-yearly", 5000, "both runs");
  await list.getByLabel("Status", { exact: true }).selectOption("cancelled");
  await eventually(async () => (await shown()) === "sleeper-yearly", 5000, "only the cancelled run");
  await list.getByLabel("Status", { exact: true }).selectOption("");
  await list.getByLabel("Schedule", { exact: true }).fill("greet-yearly");
  await eventually(async () => (await shown()) === "greet-yearly", 5000, "only greet-yearly's run");
  await list.getByLabel("Schedule", { exact: true }).fill("");
  await list.getByLabel("Workflow", { exact: true }).fill("sleeper");
  await eventually(async () => (await shown()) === "sleeper-yearly", 5000, "only the sleeper's run");
});

errors.forEach((e, i) => noErrors(i ? "second tab" : "runs tab", e));
await finish();
