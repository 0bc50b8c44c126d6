// SPDX-License-Identifier: MIT
// A run's page: the workflow deadline on its step timeline, and a step's
// output cut short by the executor marked as such.
//
// 1. A workflow with a 4 s timeout whose steps take about 2 s: its run
//    completes before the deadline. On the run's page the timeline has a
//    line labelled with the deadline instant (the run's start + 4 s, as
//    the API's started_at gives it), the legend names the same instant,
//    and the line stands after the end of every bar, where the deadline
//    falls on the time axis; each bar stands where its attempt ran.
// 2. A step printing about 168 KB (seq 1 30000): the executor keeps the
//    first 64 KiB (docs/limits.md). The page marks its stdout
//    "truncated", shows exactly the bytes kept (its text ends where the
//    capture ended, mid-line), and marks neither its short stderr nor
//    another step's short output.
// No console error or uncaught exception.
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish, eventually,
} from "./lib.mjs";

const CAPTURE = 64 * 1024;
const pw = await playwright();
const server = await startServer({
  workflows: `
workflows:
  timed:
    timeout: {seconds: 4}
    steps:
      - name: nap
        run: ["sleep", "2"]
      - name: after
        needs: [nap]
        run: ["true"]
  loud:
    steps:
      - name: many
        sh: 'seq 1 30000; echo "a short stderr" >&2'
      - name: quiet
        needs: [many]
        sh: 'echo "a short stdout"'
`,
});
const { context } = await launch(pw);
const page = await context.newPage();
const errors = watch(page);

// Start a run of WORKFLOW through the API and wait for it to end.
async function finished(workflow) {
  const { id } = await server.api("POST", `/api/v1/workflows/${workflow}/runs`, {});
  return eventually(async () => {
    const r = await server.api("GET", `/api/v1/runs/${encodeURIComponent(id)}`);
    return ["completed", "failed", "cancelled"].includes(r.status) && r;
  }, 15000, `run ${id} of ${workflow} ended`);
}

async function openRun(id) {
  await page.goto(`${server.url}/#/runs/${encodeURIComponent(id)}`);
  await page.getByRole("heading", { level: 1, name: new RegExp(id) }).waitFor();
}

// The horizontal place of EL in its lane, 0 (left) to 1 (right): its
// left and right edges.
const place = (loc) => loc.evaluate((el) => {
  const lane = el.parentElement.getBoundingClientRect();
  const me = el.getBoundingClientRect();
  return { left: (me.left - lane.left) / lane.width, right: (me.right - lane.left) / lane.width,
    x: me.left, end: me.right };
});

await step("the deadline as a line after the bars of a run that ended before it", async () => {
  const run = await finished("timed");
  check("the run completed before its deadline", run.status === "completed", run.status);
  const t0 = Date.parse(run.started_at);
  const deadline = new Date(t0 + 4000).toISOString();
  check("it finished before the deadline", Date.parse(run.finished_at) < t0 + 4000, run.finished_at);
  await openRun(run.id);
  const tl = page.getByRole("group", { name: "Step timeline" });
  const line = tl.getByRole("img", { name: /deadline/i });
  await line.waitFor();
  const label = await line.getAttribute("aria-label");
  check("the line's label gives the deadline instant", label.includes(deadline), `${label}, want ${deadline}`);
  const legend = page.locator(".legend").filter({ hasText: /deadline/i });
  const when = legend.locator("time");
  check("the legend names the same instant", (await when.getAttribute("datetime")) === deadline,
    `${await when.getAttribute("datetime")}, want ${deadline}`);
  check("the legend's time is visible text", /\d{2}:\d{2}/.test(await when.textContent()), await when.textContent());

  // The axis spans from the run's start to the later of its end and its
  // deadline: here the deadline.
  const t1 = Math.max(Date.parse(run.finished_at), ...run.steps.map((a) => Date.parse(a.finished_at)), t0 + 4000);
  const at = (t) => (t - t0) / (t1 - t0);
  const l = await place(line);
  check("the line stands where the deadline falls on the axis", Math.abs(l.left - at(t0 + 4000)) < 0.01,
    `at ${l.left.toFixed(3)}, want ${at(t0 + 4000).toFixed(3)}`);
  const bars = tl.getByRole("img", { name: /attempt/ });
  check("a bar per attempt", (await bars.count()) === run.steps.length, `${await bars.count()} bars`);
  for (const a of run.steps) {
    const bar = tl.getByRole("img", { name: new RegExp(`^${a.step}, attempt ${a.attempt}:`) });
    const b = await place(bar);
    check(`${a.step}: the line after its bar`, l.x >= b.end - 0.5, `line at ${l.x}px, bar ends at ${b.end}px`);
    check(`${a.step}: its bar where it ran`,
      Math.abs(b.left - at(Date.parse(a.started_at))) < 0.02 &&
      (a.step === "after" || Math.abs(b.right - at(Date.parse(a.finished_at))) < 0.02),
      `${b.left.toFixed(3)}..${b.right.toFixed(3)}, want ` +
      `${at(Date.parse(a.started_at)).toFixed(3)}..${at(Date.parse(a.finished_at)).toFixed(3)}`);
  }
  check("the line is visible", await line.isVisible());
});

await step("a step's output cut at the capture limit is marked truncated", async () => {
  const run = await finished("loud");
  check("the run completed", run.status === "completed", run.status);
  const all = Array.from({ length: 30000 }, (_, i) => String(i + 1)).join("\n") + "\n";
  const kept = all.slice(0, CAPTURE);
  const many = run.steps.find((a) => a.step === "many");
  check("the API says its stdout was cut", many && many.output_truncated === true && many.output === kept,
    many && `${many.output_truncated}, ${many.output.length} bytes`);
  await openRun(run.id);
  const attempt = (name) => page.locator("article").filter({
    has: page.getByRole("heading", { level: 3, name: `${name} · attempt 1` }) });
  const stream = (name, which) => attempt(name).locator(".stream").filter({
    has: page.getByRole("heading", { level: 4, name: new RegExp(`^${which}`) }) });
  const out = stream("many", "stdout");
  await out.locator("pre").waitFor();
  const mark = await out.getByRole("heading", { level: 4 }).textContent();
  check("stdout marked truncated", /truncated/i.test(mark), mark);
  check("the mark says how much was kept", /64 KiB/.test(mark), mark);
  const shown = await out.locator("pre").textContent();
  check("the page shows exactly the bytes kept", shown === kept,
    `${shown.length} chars ending ${JSON.stringify(shown.slice(-16))}, want ${kept.length} ending ${JSON.stringify(kept.slice(-16))}`);
  check("it ends where the capture ended, mid-line", shown.endsWith(kept.slice(kept.lastIndexOf("\n"))) &&
    !all.startsWith(shown + "\n") && all.startsWith(shown), JSON.stringify(shown.slice(-16)));
  const err = stream("many", "stderr");
  check("its short stderr is whole and not marked",
    !/truncated/i.test(await err.getByRole("heading", { level: 4 }).textContent()) &&
    (await err.locator("pre").textContent()) === "a short stderr\n");
  const quiet = stream("quiet", "stdout");
  check("another step's short output is not marked",
    !/truncated/i.test(await quiet.getByRole("heading", { level: 4 }).textContent()) &&
    (await quiet.locator("pre").textContent()) === "a short stdout\n");
});

noErrors("run page", errors);
await finish();
