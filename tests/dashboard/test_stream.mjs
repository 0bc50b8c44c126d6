// SPDX-License-Identifier: MIT
// The event stream dropping under the dashboard, and coming back:
//
// 1. #/events open: the header's status says "live"; a run created
//    through the API appears in the feed.
// 2. The server stops: the status says the stream is disconnected and
//    that it reconnects, at once, without a reload.
// 3. While no server runs, a run is started on the database by the CLI
//    (its run.created event is stored).
// 4. The server starts again on the same address and database: the
//    status is "live" again, and the run started meanwhile appears in the
//    feed: the stream resumed after the last event it had (Last-Event-ID),
//    so nothing was missed, with no reload.
// The browser's lines about the refused connections are allowed; any
// other console error or an uncaught exception fails.
import { execFileSync } from "node:child_process";
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish, eventually, bin,
} from "./lib.mjs";

const pw = await playwright();
const workflows = `
workflows:
  w:
    steps:
      - name: a
        run: ["true"]
`;
let server = await startServer({ workflows, args: ["--workers", "0"] });
const { context } = await launch(pw);
const page = await context.newPage();
const errors = watch(page, /ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_RESET|503/);
const live = page.getByRole("status").filter({ hasText: /live|connect/i }).first();
const statusText = async () => (await live.textContent()).trim();

await step("live, dropped, back", async () => {
  await page.goto(`${server.url}/#/events`);
  await page.getByRole("heading", { level: 1, name: /events/i }).waitFor();
  await eventually(async () => /^live$/i.test(await statusText()), 5000, "live");
  await page.evaluate(() => { window.skedNoReload = true; });
  // An event seen live first: the stream then knows where it is.
  const first = await server.api("POST", "/api/v1/workflows/w/runs", {});
  await eventually(async () => (await page.locator("main").textContent()).includes(first.id), 5000,
    "a run created while live");
  const { db, url } = server;
  await server.stop();
  await eventually(async () => /disconnected/i.test(await statusText()), 5000, "the drop told");
  check("it says it reconnects", /reconnect/i.test(await statusText()), await statusText());
  const id = execFileSync(bin, ["run", "start", "w", "--db", db], { encoding: "utf8" }).trim();
  server = await startServer({ name: "again", workflows, db, listen: url.replace(/^http:\/\//, ""),
    args: ["--workers", "0"] });
  await eventually(async () => /^live$/i.test(await statusText()), 20000, "live again");
  await eventually(async () => (await page.locator("main").textContent()).includes(id), 5000,
    `the run started while it was down (${id}) in the feed`).catch(async (e) => {
    const evs = (await server.api("GET", "/api/v1/events?limit=1000")).events.filter((x) => x.subject === id);
    throw new Error(`${e.message}; its events: ${evs.map((x) => x.id + " " + x.type).join(", ")}; ` +
      `the page: ${(await page.locator("main").textContent()).slice(0, 400)}`);
  });
  check("no reload", await page.evaluate(() => window.skedNoReload === true));
});

noErrors("stream", errors);
await finish();
