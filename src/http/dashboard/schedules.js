// #/schedules: every schedule with its time spec in words, its zone, its
// next occurrence in that zone (the viewer's time in its title), its
// status and why, its last run, and a strip of its recent occurrences'
// outcomes, filtered by status, workflow and name; kept current by the
// event stream. The first PAGE rows of those the filters keep are drawn,
// more at the press of a button: a thousand rows cost the browser far
// more to build and lay out than anyone reads at once.
import { get, onEvent } from "./api.js";
import { MISSED, recent } from "./feed.js";
import { clear, debounce, enc, errorText, field, h, heading, inZone, keepFilters, message,
         refreshRelative, say, scheduleLink, select, status, table, time } from "./ui.js";
import { words } from "./words.js";

const STRIP = 12;
const PAGE = 100;

// The recent outcomes of each schedule, newest last: runs and misses.
function outcomes(runs, missed) {
  const by = new Map();
  const add = (name, o) => {
    if (!by.has(name)) by.set(name, []);
    by.get(name).push(o);
  };
  for (const r of runs)
    if (r.schedule)
      add(r.schedule, { at: r.scheduled_for || r.created_at, status: r.status, run: r });
  for (const ev of missed) {
    const p = ev.payload || {};
    add(p.schedule || ev.subject, { at: p.last || ev.at, status: "missed", reason: p.reason,
      count: p.count, first: p.first });
  }
  for (const list of by.values()) {
    list.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
    list.splice(0, Math.max(0, list.length - STRIP));
  }
  return by;
}

export function strip(list, zone) {
  const ol = h("ol", { class: "strip", "aria-label": "Recent occurrences, oldest first" });
  for (const o of list || []) {
    let label = o.status;
    if (o.status === "missed")
      label = `missed (${o.reason}${o.count > 1 ? ", " + o.count + " occurrences from " + o.first : ""})`;
    const text = `${inZone(o.at, zone).text}: ${label}`;
    const cell = o.run
      ? h("a", { href: "#/runs/" + enc(o.run.id), class: "cell st-" + o.status, title: text, "aria-label": text })
      : h("span", { class: "cell st-" + o.status, title: text, role: "img", "aria-label": text });
    ol.append(h("li", {}, cell));
  }
  if (!list || !list.length) ol.append(h("li", { class: "none", text: "none yet" }));
  return ol;
}

function statusCell(s) {
  let why = "";
  if (s.status === "paused" && s.last_error) why = s.last_error;
  else if (s.status === "paused" && s.pause_after_failures && s.consecutive_failures >= s.pause_after_failures)
    why = `after ${s.consecutive_failures} failed runs in a row`;
  else if (s.status === "disabled") why = s.last_error || "";
  return h("div", {}, status(s.status), why ? h("p", { class: "why", text: why }) : null);
}

function row(s, last, outs) {
  const t = words(s);
  const when = h("div", {}, h("span", { class: "words", text: t }),
    s.cron && t !== s.cron ? h("code", { class: "spec", text: s.cron }) : null);
  const lastCell = last
    ? h("div", {}, h("a", { href: "#/runs/" + enc(last.id) }, status(last.status)), " ",
        time(last.finished_at || last.created_at, s.timezone, { relative: true }))
    : h("span", { class: "none", text: "no run yet" });
  return [scheduleLink(s.name), when, s.timezone || "UTC",
    s.status === "active" || s.status === "paused"
      ? time(s.next_fire_at, s.timezone, { relative: true }) : h("span", { class: "none", text: "—" }),
    statusCell(s), s.workflow, lastCell, strip(outs, s.timezone)];
}

export function render(main, params, qs) {
  const f = { status: qs.get("status") || "", workflow: qs.get("workflow") || "", name: qs.get("name") || "" };
  const stSel = select([["", "any"], ["active", "active"], ["paused", "paused"], ["done", "done"], ["disabled", "disabled"]], f.status);
  const wfSel = select([["", "any"]], f.workflow);
  const nameIn = h("input", { type: "search", value: f.name, autocomplete: "off" });
  const msg = message();
  const box = h("div", { class: "list" }, h("p", { class: "loading", text: "Loading…" }));
  const count = h("p", { class: "count" });
  let limit = PAGE;
  const more = h("button", { type: "button", class: "quiet more", hidden: true,
    on: { click: () => { limit += PAGE; draw(); } } });
  const all = h("button", { type: "button", class: "quiet more", hidden: true,
    on: { click: () => { limit = Infinity; draw(); } } });
  main.append(heading("Schedules"),
    h("form", { class: "filters", role: "search", "aria-label": "Filter schedules", on: { submit: (e) => e.preventDefault() } },
      field("Status", stSel), field("Workflow", wfSel), field("Name", nameIn)),
    msg, count, box, h("p", { class: "buttons" }, more, " ", all));

  let data = null;
  function draw() {
    keepFilters("/schedules", { status: stSel.value, workflow: wfSel.value, name: nameIn.value.trim() });
    if (!data) return;
    const name = nameIn.value.trim().toLowerCase();
    const shown = data.schedules.filter((s) =>
      (!stSel.value || s.status === stSel.value) &&
      (!wfSel.value || s.workflow === wfSel.value) &&
      (!name || s.name.toLowerCase().includes(name)));
    const listed = shown.slice(0, limit);
    count.textContent = data.partial
      ? `the first ${listed.length} listed; loading the others…`
      : `${shown.length} of ${data.schedules.length} schedules` +
        (listed.length < shown.length ? `, the first ${listed.length} listed` : "");
    const left = data.partial ? 0 : shown.length - listed.length;
    more.hidden = left <= 0;
    all.hidden = left <= PAGE;
    more.textContent = `Show ${Math.min(PAGE, left)} more`;
    all.textContent = `Show all ${shown.length}`;
    clear(box, table("Schedules",
      ["Name", "When", "Zone", "Next", "Status", "Workflow", "Last run", "Recent"],
      listed.map((s) => row(s, data.last.get(s.name), data.outs.get(s.name))),
      { empty: data.schedules.length ? "No schedule matches these filters." : "No schedule yet." }));
  }

  // The schedules drawn as their pages come (by name, so the first rows
  // are right from the first page on); the runs and misses behind the
  // last-run column and the strips after them.
  function got(schedules, partial) {
    data = Object.assign(data || { last: new Map(), outs: new Map() }, { schedules, partial });
    const wfs = [...new Set(schedules.map((s) => s.workflow))].sort();
    const keep = wfSel.value || f.workflow;
    clear(wfSel, h("option", { value: "", text: "any" }),
      wfs.map((w) => h("option", { value: w, selected: w === keep, text: w })));
    say(msg, "");
    draw();
  }

  let seq = 0;
  async function load() {
    const mine = ++seq;
    let later = null;
    try {
      // At the first load, the first PAGE schedules drawn at once (the
      // list is by name: they are the first rows when no filter is set),
      // the others after them in pages of 1,000; a reload draws once, so
      // that the rows in view do not shrink and grow back.
      const first = !data;
      const schedules = [];
      let cursor = "", pages = 0;
      do {
        const page = await get("/api/v1/schedules?limit=" + (pages || !first ? 1000 : PAGE) +
          (cursor ? "&cursor=" + enc(cursor) : ""));
        if (mine !== seq) return;
        schedules.push(...page.schedules);
        cursor = page.next_cursor;
        if (++pages === 1) {
          if (first) got(schedules, !!cursor);
          // Asked once the first rows are drawn, not beside the schedules:
          // the server answers them one after the other.
          later = Promise.all([
            get("/api/v1/runs?limit=1000").then((r) => r.runs),
            recent({ type: MISSED }, 5000, 2000).catch(() => []),
          ]);
          later.catch(() => {}); // told below, once the schedules are in
        }
      } while (cursor && schedules.length < 5000);
      if (pages > 1 || !first) got(schedules, false);
      const [runs, missed] = await later;
      if (mine !== seq) return;
      const last = new Map();
      for (const r of runs) if (r.schedule && !last.has(r.schedule)) last.set(r.schedule, r);
      data.last = last;
      data.outs = outcomes(runs, missed);
      draw();
    } catch (e) {
      if (mine !== seq) return;
      say(msg, "Cannot load the schedules: " + errorText(e), "error");
      if (!data) clear(box);
    }
  }

  // New filters list from the first page again.
  const filtered = () => { limit = PAGE; draw(); };
  const redraw = debounce(filtered, 150);
  for (const el of [stSel, wfSel]) el.addEventListener("change", filtered);
  nameIn.addEventListener("input", redraw);
  const reload = debounce(load, 500);
  const off = onEvent((ev) => {
    if (ev.type.startsWith("schedule.") || ev.type.startsWith("run.")) reload();
  });
  const tick = setInterval(() => refreshRelative(main), 15000);
  const again = setInterval(load, 60000); // next occurrences move on
  load();
  return () => { off(); clearInterval(tick); clearInterval(again); redraw.cancel(); reload.cancel(); };
}
