// SPDX-License-Identifier: MIT
// The event stream dropping before the page got any event from it, and
// coming back: what the page was shown must still be followed by what
// happened while the server was down.
//
// 1. A server just started on an empty database: #/runs open, the
//    header's status "live", no event has come. The server stops; a run
//    is started on the database by the CLI; the server starts again on
//    the same address and database. The run appears in the list without
//    a reload: the stream resumed after the newest event the page knew
//    of (none), not from the moment it reconnected.
// 2. The same with events already stored before the page opened (the
//    page is loaded afresh: it lists the runs but has had no event of
//    the stream): the run started while the server was down appears.
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
const rows = () => page.getByRole("row").filter({ has: page.getByRole("link") }).allTextContents();
let restarts = 0;

// With #/runs open and live, stop the server, start a run by the CLI on
// its database, start it again on its address: the run must appear.
async function dropAndCome(what) {
  await eventually(async () => /^live$/i.test(await statusText()), 5000, "live");
  await page.evaluate(() => { window.skedNoReload = true; });
  const { db, url } = server;
  await server.stop();
  await eventually(async () => /disconnected/i.test(await statusText()), 5000, "the drop told");
  const id = execFileSync(bin, ["run", "start", "w", "--db", db], { encoding: "utf8" }).trim();
  server = await startServer({ name: `again${++restarts}`, workflows, db,
    listen: url.replace(/^http:\/\//, ""), args: ["--workers", "0"] });
  await eventually(async () => /^live$/i.test(await statusText()), 20000, "live again");
  await eventually(async () => (await rows()).some((r) => r.includes(id)), 5000,
    `the run started while it was down (${id}) in the list, ${what}`).catch(async (e) => {
    const evs = (await server.api("GET", "/api/v1/events?limit=1000")).events.filter((x) => x.subject === id);
    throw new Error(`${e.message}; its events: ${evs.map((x) => x.id + " " + x.type).join(", ")}; ` +
      `the rows: ${(await rows()).join(" | ").slice(0, 400)}`);
  });
  check(`no reload (${what})`, await page.evaluate(() => window.skedNoReload === true));
  return id;
}

await step("no event at all before the drop", async () => {
  const before = await server.api("GET", "/api/v1/events?after=latest");
  check("the database has no event yet", before.next_cursor === null, JSON.stringify(before));
  await page.goto(`${server.url}/#/runs`);
  await page.getByRole("heading", { level: 1, name: /runs/i }).waitFor();
  await page.getByText("No run matches.").waitFor();
  await dropAndCome("on an empty database");
});

await step("events stored, none of them seen live, before the drop", async () => {
  const first = await server.api("POST", "/api/v1/workflows/w/runs", {});
  await page.reload();
  await page.getByRole("heading", { level: 1, name: /runs/i }).waitFor();
  await eventually(async () => (await rows()).some((r) => r.includes(first.id)), 5000, "the run listed");
  await dropAndCome("with events stored");
});

noErrors("stream", errors);
await finish();
