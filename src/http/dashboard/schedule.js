// #/schedules/NAME: a schedule's definition (every field), its
// calendars (exclude and only, as links, and what it does on an excluded
// day), its deadlines (start and completion, as durations), for a
// heartbeat the ping it expects, and the deadlines its runs missed (how
// many, the last), its next 10 occurrences with their DST marks and their calendars'
// (excluded, or moved from their occurrence), each skipped ahead of time,
// or not, by its button, its runs, its missed occurrences with their
// reasons, and its actions: pause or resume, trigger, run one past
// occurrence,
// backfill after a preview of what it will create and skip, delete
// after a confirmation, and the simulation of a period with outages.
import { api, get, onEvent, post, query } from "./api.js";
import { MISSED, recent } from "./feed.js";
import { calendarLink } from "./calendars.js";
import { button, clear, confirmDialog, deadlineCell, debounce, duration, enc, errorText, h, heading,
         message, refreshRelative, runLink, say, section, status, table, term, time } from "./ui.js";
import { simulateSection } from "./simulate.js";
import { onExcludedText, words } from "./words.js";

const BASE = (name) => "/api/v1/schedules/" + enc(name);

// NAMES as links to the calendars' pages: "a, b".
function calendarLinks(names) {
  const out = [];
  names.forEach((n, i) => out.push(i ? ", " : "", calendarLink(n)));
  return out;
}

// The calendars of S in words, or null when it has none: "Not on the
// days of hol; on an excluded day: the next business day. Only on the
// days of office."
function calendarsText(s) {
  const ex = s.exclude || [], only = s.only || [];
  if (!ex.length && !only.length) return null;
  return h("p", { class: "calendars" }, h("span", { class: "label", text: "Calendars: " }),
    ex.length ? ["not on the days of ", calendarLinks(ex), `; on an excluded day: ${onExcludedText(s.on_excluded)}.`] : null,
    ex.length && only.length ? " " : null,
    only.length ? [ex.length ? "Only" : "only", " on the days of ", calendarLinks(only),
      " (other days are dropped, never moved)."] : null);
}

// The deadlines of S, the ping a heartbeat expects and the deadlines
// missed, or null for a schedule with none of them.
function deadlinesSection(s) {
  const missed = s.deadlines_missed || 0;
  if (!s.deadline_secs && !s.start_deadline_secs && !s.heartbeat && !missed) return null;
  const within = (secs, what) => secs
    ? `${duration(secs)} after its occurrence, each run must have ${what}`
    : h("span", { class: "none", text: "none" });
  const ping = location.origin + BASE(s.name) + "/ping";
  return section("Deadlines", h("dl", { class: "fields deadlines" },
    term("Deadline", within(s.deadline_secs, s.heartbeat ? "been pinged" : "completed")),
    term("Start deadline", within(s.start_deadline_secs, "started")),
    s.heartbeat ? term("Heartbeat", h("div", { class: "heartbeat" },
      h("p", { text: "heartbeat: expects a ping for each occurrence (it starts nothing)" }),
      h("p", {}, "Ping it with ", h("code", { text: "sked ping " + s.name }), " or ",
        h("code", { text: "POST " + ping + "?status=success" }), "."))) : null,
    term("Deadlines missed", h("span", { class: missed ? "dl-mark missed" : null, text: String(missed) })),
    term("Last missed", s.last_deadline_missed_at
      ? ["the run of the occurrence of ", time(s.last_deadline_missed_at, s.timezone)]
      : h("span", { class: "none", text: "never" }))));
}

function value(k, v, s) {
  if (v === null || v === undefined) return h("span", { class: "none", text: "—" });
  if ((k === "exclude" || k === "only") && Array.isArray(v))
    return v.length ? calendarLinks(v) : h("span", { class: "none", text: "none" });
  if (k === "on_excluded") return `${v}: ${onExcludedText(v)}`;
  if (/_at$/.test(k) || k === "anchor" || k === "at")
    return time(v, s.timezone, { relative: k === "next_fire_at" || k === "last_fired_at" });
  if (/_secs$/.test(k)) return `${duration(v)} (${v} s)`;
  if (typeof v === "object") return h("pre", { class: "json", text: JSON.stringify(v, null, 2) });
  if (k === "status") return status(v);
  return String(v);
}

function definition(s) {
  const dl = h("dl", { class: "fields" });
  for (const [k, v] of Object.entries(s)) {
    if (k === "warnings") continue;
    dl.append(term(k, value(k, v, s)));
  }
  return dl;
}

// The calendar cell of occurrence O: "excluded", "moved from <its
// occurrence>" (in the schedule's zone), or "—".
function calendarCell(o, zone) {
  if (o.calendar === "excluded") return h("span", { class: "cal-mark excluded", text: "excluded" });
  if (o.calendar === "moved")
    return h("span", { class: "cal-mark moved" }, "moved from ", o.occurrence ? time(o.occurrence, zone) : "an excluded day");
  return "—";
}

// The button of occurrence O: skip it (asking why), or undo its skip;
// none for one its calendars exclude. DONE is called after.
function skipButton(name, o, msg, done) {
  if (o.calendar === "excluded") return "—";
  const at = o.occurrence || o.at;
  if (o.skipped)
    return button("Unskip", async () => {
      try {
        await api("DELETE", BASE(name) + "/skips/" + enc(at));
        say(msg, `${at} fires again.`, "ok");
        done();
      } catch (e) {
        say(msg, "Unskip refused: " + errorText(e), "error");
      }
    });
  return button("Skip", async () => {
    const reason = window.prompt(`Skip the occurrence ${at}? Why (optional):`, "");
    if (reason === null) return;
    try {
      await post(BASE(name) + "/skips", reason ? { at, reason } : { at });
      say(msg, `${at} is skipped: it will not run.`, "ok");
      done();
    } catch (e) {
      say(msg, "Skip refused: " + errorText(e), "error");
    }
  });
}

function occurrences(list, zone, name, msg, done) {
  const mine = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const cal = list.some((o) => o.calendar);
  return table("Next occurrences", ["#", `In ${zone || "UTC"}`, "UTC", "Mark", ...(cal ? ["Calendar"] : []), "Skip"],
    list.map((o, i) => {
      const at = h("time", { datetime: o.at, title: "your time: " + time(o.at, mine).textContent },
        (o.local || o.at).replace("T", " "));
      const struck = o.calendar === "excluded";
      return {
        class: [o.skipped ? "skipped" : o.mark ? "marked" : "", o.calendar ? "cal-" + o.calendar : ""].join(" ").trim() || null,
        cells: [String(i + 1), struck ? h("s", {}, at) : at, struck ? h("s", { text: o.at }) : o.at,
          o.skipped ? h("span", { class: "mark", text: "skipped" })
            : o.mark ? h("span", { class: "mark", text: o.mark }) : "—",
          ...(cal ? [calendarCell(o, zone)] : []), skipButton(name, o, msg, done)],
      };
    }), { empty: "It never fires again.", stack: false });
}

// Run one past occurrence now, with the id firing gives it.
function runOneSection(name, after) {
  const at = h("input", { type: "text", id: "run-one-at", value: "", placeholder: "2026-01-01T09:00:00Z", autocomplete: "off", spellcheck: "false" });
  const msg = message();
  const go = button("Run it", async () => {
    try {
      const r = await post(BASE(name) + "/runs", { at: at.value });
      say(msg, r.created ? "Created: " : "Its run exists: ", r.created ? "ok" : "info");
      msg.append(runLink(r.run_id));
      after();
    } catch (e) {
      say(msg, "Refused: " + errorText(e), "error");
    }
  });
  return section("Run one occurrence",
    h("p", { class: "hint", text: "A past occurrence (an RFC 3339 instant of the schedule) runs now, with the id firing gives it: never twice." }),
    h("form", { class: "inline", on: { submit: (e) => e.preventDefault() } },
      h("div", { class: "field" }, h("label", { for: "run-one-at", text: "Occurrence" }), at),
      h("div", { class: "buttons" }, go)),
    msg);
}

function runsTable(runs, zone, sched) {
  return table("Runs", ["Run", "Status", "Trigger", "Scheduled for", "Deadline", "Created", "Duration", "Error"],
    runs.map((r) => [runLink(r.id), status(r.status), r.trigger,
      r.occurrence && r.occurrence !== r.scheduled_for
        ? [time(r.scheduled_for, zone), h("br"), h("span", { class: "cal-mark moved" }, "moved from ", time(r.occurrence, zone))]
        : time(r.scheduled_for, zone),
      deadlineCell(r, zone, sched),
      time(r.created_at, zone, { relative: true }),
      r.duration_secs != null ? duration(r.duration_secs) : "—", r.error || ""]),
    { empty: "No run yet." });
}

function missedTable(evs, zone) {
  return table("Missed occurrences", ["Decided", "Reason", "Count", "First", "Last"],
    evs.slice().reverse().map((ev) => {
      const p = ev.payload || {};
      return { class: "missed", cells: [time(ev.at, zone), h("span", { class: "reason", text: p.reason }),
        String(p.count), time(p.first, zone), time(p.last, zone)] };
    }), { empty: "No occurrence was missed (in the events kept)." });
}

function isoMinus(ms) {
  return new Date(Date.now() - ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function backfillSection(name, zone, after) {
  const start = h("input", { type: "text", value: isoMinus(86400000), autocomplete: "off", spellcheck: "false" });
  const end = h("input", { type: "text", value: isoMinus(0), autocomplete: "off", spellcheck: "false" });
  const out = h("div", { class: "preview" });
  const msg = message();
  let previewed = null;
  const go = button("Backfill", async () => {
    if (!previewed || previewed.start !== start.value || previewed.end !== end.value) {
      say(msg, "Preview the range first.", "error");
      return;
    }
    try {
      const r = await post(BASE(name) + "/backfill", { start: start.value, end: end.value });
      say(msg, `Backfill done: ${r.created} runs created, ${r.skipped} skipped (they existed).`, "ok");
      previewed = null;
      go.hidden = true;
      after();
    } catch (e) {
      say(msg, "Backfill refused: " + errorText(e), "error");
    }
  });
  go.hidden = true;
  const preview = button("Preview", async () => {
    clear(out);
    go.hidden = true;
    try {
      const r = await post(BASE(name) + "/backfill", { start: start.value, end: end.value, dry_run: true });
      if (!r || !r.dry_run) throw new Error("this server cannot preview a backfill");
      previewed = { start: start.value, end: end.value };
      const more = r.total > r.checked ? ` (the first ${r.checked} of ${r.total} occurrences looked at)` : "";
      say(msg, `It would create ${r.created} runs and skip ${r.skipped} that exist${more}.`, "info");
      const rows = [...r.create.map((t) => [t, "create"]), ...r.skip.map((t) => [t, "skip: its run exists"])]
        .sort((a, b) => Date.parse(a[0]) - Date.parse(b[0]))
        .map(([t, what]) => ({ class: what === "create" ? "create" : "skip", cells: [time(t, zone), what] }));
      out.append(table("Backfill preview", ["Occurrence", "What it does"], rows, { empty: "No occurrence in this range.", stack: false }));
      go.hidden = r.created === 0;
    } catch (e) {
      say(msg, "Cannot preview: " + errorText(e), "error");
    }
  });
  const fld = (label, input) => h("div", { class: "field" }, h("label", { for: input.id = "bf-" + label.toLowerCase(), text: label }), input);
  return section("Backfill",
    h("p", { class: "hint", text: "The occurrences strictly between start and end (RFC 3339 instants) get the runs live firing would have made; those whose run exists are skipped." }),
    h("form", { class: "inline", on: { submit: (e) => e.preventDefault() } },
      fld("Start", start), fld("End", end), h("div", { class: "buttons" }, preview, go)),
    msg, out);
}

export function render(main, params) {
  const name = params[0];
  const head = heading(name, "Schedule");
  const wordsP = h("p", { class: "lead" });
  const calP = h("div");
  const dlBox = h("div");
  const statusP = h("p", { class: "state" });
  const actions = h("div", { class: "actions", role: "group", "aria-label": "Actions" });
  const msg = message();
  const parts = {
    def: h("div", {}, "Loading…"), next: h("div"), runs: h("div"), missed: h("div"),
  };
  main.append(h("p", { class: "crumbs" }, h("a", { href: "#/schedules", text: "Schedules" })),
    head, wordsP, calP, statusP, dlBox, actions, msg);
  let s = null, built = false, gone = false;

  async function act(what, fn) {
    try {
      const r = await fn();
      say(msg, typeof what === "function" ? "" : what, "ok");
      if (typeof what === "function") msg.append(...what(r));
      load();
    } catch (e) {
      say(msg, errorText(e), "error");
    }
  }

  function drawActions() {
    clear(actions,
      s.status === "paused"
        ? button("Resume", () => act("Resumed.", () => post(BASE(name) + "/resume")))
        : button("Pause", () => act("Paused.", () => post(BASE(name) + "/pause"))),
      button("Trigger", () => act((r) => ["Triggered: ", runLink(r.run_id)],
        () => post(BASE(name) + "/trigger"))),
      button("Delete", async () => {
        const yes = await confirmDialog(`Delete the schedule "${name}"? Its runs are kept.`, "Confirm deletion", "Keep it");
        if (!yes) return;
        gone = true; // reads pending or begun would find nothing
        reload.cancel();
        reloadRuns.cancel();
        try {
          await api("DELETE", BASE(name));
          location.hash = "#/schedules";
        } catch (e) {
          gone = false;
          say(msg, errorText(e), "error");
        }
      }, { class: "danger" }));
  }

  async function load() {
    if (gone) return;
    try {
      s = await get(BASE(name));
    } catch (e) {
      clear(parts.def, e.status === 404 ? `No schedule "${name}".` : "Cannot load: " + errorText(e));
      if (!built) main.append(parts.def);
      built = true;
      return;
    }
    wordsP.textContent = `${words(s)} · ${s.heartbeat ? "heartbeat" : s.workflow} · ${s.timezone || "UTC"}`;
    clear(calP, calendarsText(s));
    clear(statusP, status(s.status), s.last_error ? " — " + s.last_error : "",
      s.status === "active" ? [" · next ", time(s.next_fire_at, s.timezone, { relative: true })] : "");
    clear(dlBox, deadlinesSection(s));
    drawActions();
    clear(parts.def, definition(s));
    if (!built) {
      built = true;
      main.append(
        section("Next occurrences", parts.next),
        section("Runs", parts.runs),
        section("Missed occurrences", parts.missed),
        runOneSection(name, () => loadRuns()),
        backfillSection(name, s.timezone, () => load()),
        simulateSection(name, s.timezone),
        section("Definition", parts.def));
    }
    const zone = s.timezone;
    get(BASE(name) + "/occurrences?n=10").then((r) => clear(parts.next, occurrences(r.occurrences, zone, name, msg, () => load())))
      .catch((e) => clear(parts.next, errorText(e)));
    loadRuns();
    if (!missed) {
      missed = [];
      recent({ type: MISSED, schedule: name, subject: name }, 20000, 200)
        .then((evs) => {
          const ids = new Set(missed.map((e) => e.id));
          missed = [...evs.filter((e) => !ids.has(e.id)), ...missed];
          drawMissed();
        })
        .catch((e) => clear(parts.missed, errorText(e)));
    }
  }

  let missed = null;
  function drawMissed() {
    if (s) clear(parts.missed, missedTable(missed.slice(-200), s.timezone));
  }

  function loadRuns() {
    if (gone) return Promise.resolve();
    return get("/api/v1/runs" + query({ schedule: name, limit: 50 }))
      .then((r) => clear(parts.runs, runsTable(r.runs, s && s.timezone, s)))
      .catch((e) => clear(parts.runs, errorText(e)));
  }

  // The stream: a change of the schedule reads it again, a run of it
  // reads its runs again, a miss is added as it comes.
  const reload = debounce(load, 400);
  const reloadRuns = debounce(loadRuns, 700);
  const off = onEvent((ev) => {
    const p = ev.payload || {};
    if (ev.type === "schedule.deleted" && ev.subject === name) {
      gone = true; // deleted elsewhere: say so rather than read it again
      reload.cancel();
      reloadRuns.cancel();
      say(msg, `The schedule "${name}" was deleted; its runs are kept.`, "error");
    } else if (ev.type === MISSED && (ev.subject === name || p.schedule === name)) {
      if (missed) {
        missed.push(ev);
        drawMissed();
      }
    } else if ((ev.type.startsWith("schedule.") && ev.subject === name) ||
               (ev.type === "run.created" && p.schedule === name)) {
      reload(); // its state, and the next occurrences once one fired
    } else if (p.schedule === name || (ev.subject || "").startsWith("sched-" + name + "-")) {
      reloadRuns();
    }
  });
  const tick = setInterval(() => refreshRelative(main), 15000);
  load();
  return () => { off(); clearInterval(tick); reload.cancel(); reloadRuns.cancel(); };
}
