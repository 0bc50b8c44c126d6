// SPDX-License-Identifier: MIT
// The cron playground (#/playground), used as a person would: typing into
// the inputs labelled "Expression", "Time zone" and "DST policy", with no
// button to press for the answer.
//
// 1. "30 2 * * *" in Europe/Paris: the words ("At 02:30"), the next
//    occurrences (the first one the instant computed here), and the
//    occurrences around the zone's next DST changes: the spring one
//    marked "shifted" at 03:00, the autumn one "first_pass".
// 2. "0 * * * *" around the autumn change: policy "once" has no
//    "second_pass"; switching the DST policy to "cadence" shows one.
// 3. "61 * * * *": an error naming the field and the value ("minute",
//    "61", "0-59") and where it is (byte 1); nothing else is shown as
//    occurrences. Fixing the expression clears the error.
// No console error or uncaught exception.
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish,
  eventually, dailyAt, wall, pad,
} from "./lib.mjs";

const pw = await playwright();
const server = await startServer({});
const { context } = await launch(pw);
const page = await context.newPage();
// The browser logs the API's 422 for the bad expression as a resource that
// failed to load: that answer is the one wanted, the page shows it.
const errors = watch(page, /status of 422 .*\/api\/v1\/cron\/explain\?expr=61\+/);
const main = page.locator("main");
const text = async () => (await main.textContent()).replace(/\s+/g, " ");

// Set the select or the input labelled LABEL to VALUE.
async function set(label, value) {
  const el = page.getByLabel(label, { exact: true });
  const tag = await el.evaluate((e) => e.tagName);
  if (tag === "SELECT") await el.selectOption(value);
  else await el.fill(value);
}

await step("the playground across a DST change", async () => {
  await page.goto(`${server.url}/#/playground`);
  await page.getByRole("heading", { level: 1, name: /playground/i }).waitFor();
  await set("Time zone", "Europe/Paris");
  await set("DST policy", "once");
  await set("Expression", "30 2 * * *");
  await eventually(async () => /At 02:30/.test(await text()), 5000, "the words");
  const [next] = dailyAt(2, 30, "Europe/Paris");
  await eventually(async () => main.evaluate((m, ms) =>
    [...m.querySelectorAll("time[datetime]")].some((t) => Date.parse(t.getAttribute("datetime")) === ms),
  next.ms), 5000, `the next occurrence ${new Date(next.ms).toISOString()} as a <time>`);
  const body = await text();
  check("a shifted occurrence (spring)", /shifted/.test(body), body.slice(0, 500));
  check("a first_pass occurrence (autumn)", /first_pass/.test(body));
  const spring = dailyAt(2, 30, "Europe/Paris", { n: 400 }).find((c) => c.mark === "shifted");
  const w = wall(spring.ms, "Europe/Paris");
  const row = await main.evaluate((m, ms) => {
    const t = [...m.querySelectorAll("time[datetime]")]
      .find((x) => Date.parse(x.getAttribute("datetime")) === ms);
    return t ? (t.closest("tr, li") || t.parentElement).textContent.replace(/\s+/g, " ") : null;
  }, spring.ms);
  check(`the spring change ${w.y}-${pad(w.mo)}-${pad(w.d)} at 03:00, shifted`,
    row && /03:00/.test(row) && /shifted/.test(row), String(row));
});

await step("the DST policy", async () => {
  await set("Expression", "0 * * * *");
  await set("DST policy", "once");
  await eventually(async () => /first_pass/.test(await text()), 5000, "first_pass under once");
  check("once: no second pass", !/second_pass/.test(await text()));
  await set("DST policy", "cadence");
  await eventually(async () => /second_pass/.test(await text()), 5000, "second_pass under cadence");
});

await step("a bad expression", async () => {
  await set("Expression", "61 * * * *");
  const alert = await eventually(async () => {
    const t = await text();
    return /minute/.test(t) && /61/.test(t) && /0-59/.test(t) && t;
  }, 5000, "an error naming the minute field");
  check("the error says where", /byte 1|position 1|column 1|\^/.test(alert), alert.slice(0, 400));
  check("the error is announced (role alert or status)",
    (await page.getByRole("alert").filter({ hasText: /minute/ }).count()) +
    (await page.getByRole("status").filter({ hasText: /minute/ }).count()) > 0);
  const stale = await main.evaluate((m) => m.querySelectorAll("time[datetime]").length);
  check("no occurrences shown for it", stale === 0, `${stale} <time>`);
  await set("Expression", "59 * * * *");
  await eventually(async () => !/out of range/.test(await text()), 5000, "the error gone");
});

noErrors("playground", errors);
await finish();
