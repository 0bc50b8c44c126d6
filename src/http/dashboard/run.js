// #/runs/ID: a run's summary (trigger, scheduled_for, the occurrence it
// stands for when a calendar moved it, times, error, its deadlines under
// its schedule's and whether it met or missed them), its
// step timeline — each attempt a bar on a time axis, the waits between
// retries, the compensations, the workflow's deadline as a line — and
// each attempt's exit code, duration, error and output as captured,
// truncation marked; an active run can be cancelled.
import { get, onEvent } from "./api.js";
import { cancelButton } from "./runs.js";
import { ACTIVE, clear, deadlineMark, deadlineText, debounce, duration, enc, errorText, h, heading, message, say,
         runDeadlines, scheduleLink, section, status, table, term, time } from "./ui.js";

const ms = (t) => Date.parse(t);

// When the run was moved off an excluded day (its occurrence is not its
// scheduled_for), what it stands for, in the schedule's zone ZONE.
function scheduledFor(r, zone) {
  if (!r.occurrence || r.occurrence === r.scheduled_for) return time(r.scheduled_for, zone);
  return h("span", {}, time(r.scheduled_for, zone), " ",
    h("span", { class: "cal-mark moved occurrence" }, "for the occurrence of ", time(r.occurrence, zone),
      ", moved off an excluded day"));
}

// The deadlines of run R under its schedule S, each with its verdict;
// without its schedule (gone, or no deadline now), the run's own fields:
// its miss, or its next check.
function deadlineRows(r, s, zone) {
  const list = runDeadlines(r, s);
  if (list.length)
    return list.map((d) => [d.label, [deadlineText(d, zone), ` (${duration(d.secs)} after its occurrence)`]]);
  if (r.deadline_missed) return [["Deadline", deadlineMark(r)]];
  return r.deadline_at ? [["Next deadline check", time(r.deadline_at, zone)]] : [];
}

function summary(r, zone, sched) {
  const rows = [
    ["Status", [status(r.status), r.deadline_missed ? [" ", deadlineMark(r)] : null]], ["Workflow", r.trigger === "heartbeat" ? "none: a heartbeat's run, ended by a ping"
      : `${r.workflow} (version ${r.workflow_version})`],
    ["Schedule", scheduleLink(r.schedule)], ["Trigger", r.trigger],
    ["Scheduled for", scheduledFor(r, zone)], ["Created", time(r.created_at, null, { relative: true })],
    ["Not before", r.trigger === "heartbeat" ? h("span", { class: "none", text: "— (it waits for a ping)" }) : time(r.not_before)], ["Started", time(r.started_at)], ["Finished", time(r.finished_at)],
    ["Duration", r.duration_secs != null ? duration(r.duration_secs) : "—"],
    ["Queue", r.queue], ["Priority", String(r.priority)], ["Attempts", String(r.attempts)],
    ["Error", r.error ? `${r.error}${r.error_code ? " (" + r.error_code + ")" : ""}` : "—"],
  ];
  if (r.timeout_exceeded_at) rows.push(["Timeout exceeded", time(r.timeout_exceeded_at)]);
  rows.push(...deadlineRows(r, sched, zone));
  if (r.cancel_requested_at) rows.push(["Cancel asked", time(r.cancel_requested_at)]);
  if (r.output != null) rows.push(["Output", h("pre", { class: "out", text: JSON.stringify(r.output, null, 2) })]);
  if (r.context && Object.keys(r.context).length)
    rows.push(["Context", h("pre", { class: "out", text: JSON.stringify(r.context, null, 2) })]);
  return h("dl", { class: "fields" }, rows.map(([k, v]) => term(k, v)));
}

function stepName(a) {
  return a.compensation ? a.step + " (compensation)" : a.step;
}

function timeline(r, steps, deadline) {
  const now = Date.now();
  const t0 = ms(r.started_at || r.created_at);
  let t1 = ms(r.finished_at || "") || now;
  for (const a of steps) t1 = Math.max(t1, ms(a.finished_at || "") || now);
  if (deadline && ms(deadline) > t1 && ms(deadline) - t0 <= 3 * (t1 - t0)) t1 = ms(deadline);
  if (t1 <= t0) t1 = t0 + 1000;
  const pct = (t) => ((t - t0) / (t1 - t0)) * 100;
  const rows = new Map();
  for (const a of steps) {
    const k = stepName(a);
    if (!rows.has(k)) rows.set(k, []);
    rows.get(k).push(a);
  }
  const box = h("div", { class: "tl", role: "group", "aria-label": "Step timeline" });
  for (const [k, list] of rows) {
    const lane = h("div", { class: "tl-lane" });
    let prevEnd = null;
    for (const a of list) {
      const s = ms(a.started_at), e = ms(a.finished_at || "") || now;
      if (prevEnd !== null && s > prevEnd) {
        const w = h("span", { class: "tl-wait", title: `waited ${duration((s - prevEnd) / 1000)} before attempt ${a.attempt}` });
        w.style.left = pct(prevEnd) + "%";
        w.style.width = Math.max(0.2, pct(s) - pct(prevEnd)) + "%";
        lane.append(w);
      }
      const label = `${k}, attempt ${a.attempt}: ${a.status}, ${duration(a.duration_secs != null ? a.duration_secs : (e - s) / 1000)}` +
        (a.exit_code != null ? `, exit ${a.exit_code}` : "") + (a.error ? ` — ${a.error}` : "");
      const bar = h("span", { class: `tl-bar st-${a.status}${a.compensation ? " comp" : ""}`, title: label, role: "img", "aria-label": label });
      bar.style.left = pct(s) + "%";
      bar.style.width = Math.max(0.4, pct(e) - pct(s)) + "%";
      if (list.length > 1) bar.textContent = String(a.attempt);
      lane.append(bar);
      prevEnd = e;
    }
    box.append(h("div", { class: "tl-row" }, h("span", { class: "tl-name", text: k }), lane));
  }
  const axis = h("div", { class: "tl-axis" });
  for (let i = 0; i <= 4; i++) {
    const tick = h("span", { class: "tl-tick", text: "+" + duration(((t1 - t0) * i) / 4000) });
    tick.style.left = i * 25 + "%";
    axis.append(tick);
  }
  const lane = h("div", { class: "tl-lane tl-overlay" });
  if (deadline && ms(deadline) <= t1) {
    const line = h("span", { class: "tl-deadline", title: "workflow deadline " + deadline, role: "img", "aria-label": "workflow deadline " + deadline });
    line.style.left = pct(ms(deadline)) + "%";
    lane.append(line);
  }
  box.append(h("div", { class: "tl-row tl-axis-row" }, h("span", { class: "tl-name", text: "" }), h("div", { class: "tl-lane" }, axis, lane)));
  const legend = h("p", { class: "legend" },
    h("span", { class: "key st-completed", text: "completed" }), " ", h("span", { class: "key st-failed", text: "failed" }), " ",
    h("span", { class: "key st-running", text: "running" }), " ", h("span", { class: "key wait", text: "wait" }), " ",
    h("span", { class: "key comp", text: "compensation" }),
    deadline ? [" ", h("span", { class: "key deadline", text: "deadline " }), time(deadline)] : null);
  if (!steps.length) return h("p", { class: "none", text: "No step has started yet." });
  return h("div", {}, box, legend);
}

function output(label, text, truncated) {
  if (text === null || text === undefined) return null;
  return h("div", { class: "stream" },
    h("h4", {}, label, truncated ? h("span", { class: "trunc", text: " (truncated: only the first 64 KiB were kept)" }) : null),
    text === "" ? h("p", { class: "none", text: "(empty)" }) : h("pre", { class: "out", text }));
}

function attempts(steps) {
  return steps.map((a) => h("article", { class: "attempt st-" + a.status },
    h("h3", {}, `${stepName(a)} · attempt ${a.attempt}`),
    h("dl", { class: "fields inline" },
      term("Status", status(a.status)),
      term("Exit code", a.exit_code != null ? String(a.exit_code) : "—"),
      term("Duration", a.duration_secs != null ? duration(a.duration_secs) : "—"),
      term("Started", time(a.started_at)),
      a.error ? term("Error", a.error + (a.error_code ? " (" + a.error_code + ")" : ""), { class: "err" }) : null),
    output("stdout", a.output, a.output_truncated), output("stderr", a.stderr, a.stderr_truncated)));
}

const deadlines = new Map();
async function workflowTimeout(r) {
  const key = r.workflow + "@" + r.workflow_version;
  if (!deadlines.has(key)) {
    deadlines.set(key, get("/api/v1/workflows").then((w) => {
      const all = w.workflows.filter((x) => x.name === r.workflow);
      const one = all.find((x) => x.version === r.workflow_version) || all[0];
      return one && one.definition && one.definition.timeout ? one.definition.timeout.seconds : 0;
    }).catch(() => 0));
  }
  return deadlines.get(key);
}

// The schedule NAME, null when it is gone: a moved run's scheduled_for
// and occurrence are shown in its zone, a run's deadlines are its.
// Kept for 30 s (an active run's page reads itself every 3 s).
const schedules = new Map();
function scheduleOf(name) {
  if (!name) return Promise.resolve(null);
  const c = schedules.get(name);
  if (c && Date.now() - c.at < 30000) return c.p;
  const p = get("/api/v1/schedules/" + enc(name)).catch(() => null);
  schedules.set(name, { at: Date.now(), p });
  return p;
}

export function render(main, params) {
  const id = params[0];
  const msg = message();
  const actions = h("div", { class: "actions", role: "group", "aria-label": "Actions" });
  const parts = { sum: h("div", {}, "Loading…"), tl: h("div"), steps: h("div") };
  main.append(h("p", { class: "crumbs" }, h("a", { href: "#/runs", text: "Runs" })),
    heading(id, "Run"), actions, msg, section("Summary", parts.sum),
    section("Timeline", parts.tl), section("Steps", parts.steps));
  async function load() {
    let r;
    try {
      r = await get("/api/v1/runs/" + enc(id));
    } catch (e) {
      clear(parts.sum, e.status === 404 ? `No run "${id}".` : "Cannot load: " + errorText(e));
      return;
    }
    const moved = r.occurrence && r.occurrence !== r.scheduled_for;
    const [secs, sched] = await Promise.all([workflowTimeout(r), scheduleOf(r.schedule)]);
    const zone = moved && sched ? sched.timezone || null : null;
    const deadline = secs && r.started_at ? new Date(ms(r.started_at) + secs * 1000).toISOString() : null;
    clear(actions, ACTIVE.includes(r.status) ? cancelButton(id, load, msg) : null);
    clear(parts.sum, summary(r, zone, sched));
    clear(parts.tl, timeline(r, r.steps || [], deadline));
    clear(parts.steps, (r.steps || []).length
      ? [table("Attempts", ["Step", "Attempt", "Status", "Exit code", "Duration", "Error"],
          r.steps.map((a) => [stepName(a), String(a.attempt), status(a.status),
            a.exit_code != null ? String(a.exit_code) : "—",
            a.duration_secs != null ? duration(a.duration_secs) : "—", a.error || ""])),
        attempts(r.steps)]
      : h("p", { class: "none", text: "No step has started yet." }));
  }
  // While the run is active its bars grow with the clock, between the
  // events that tell of its steps.
  const later = debounce(load, 250);
  const off = onEvent((ev) => { if (ev.subject === id || (ev.payload && ev.payload.run === id)) later(); });
  const tick = setInterval(() => {
    if (actions.querySelector("button")) later();
  }, 3000);
  load();
  return () => { off(); clearInterval(tick); later.cancel(); };
}
