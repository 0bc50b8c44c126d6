// #/runs: the newest runs, filtered by status, schedule and workflow,
// each with its next deadline or the deadlines it missed, updated in place as the event stream tells of runs (no reload); each
// active run can be cancelled.
import { get, onEvent, post, query } from "./api.js";
import { ACTIVE, button, clear, deadlineCell, debounce, duration, enc, errorText, field, h, heading,
         keepFilters, keyedRows, makeRow, message, refreshRelative, runLink, say, scheduleLink, select, status, table, time } from "./ui.js";

const STATUSES = ["pending", "running", "waiting", "completed", "failed", "cancelled"];

export function cancelButton(id, after, msg) {
  return button("Cancel", async () => {
    try {
      await post("/api/v1/runs/" + enc(id) + "/cancel");
      if (msg) say(msg, "Cancel asked for " + id + ".", "ok");
      after();
    } catch (e) {
      if (msg) say(msg, errorText(e), "error");
    }
  });
}

export function render(main, params, qs) {
  const stSel = select([["", "any"], ...STATUSES.map((s) => [s, s])], qs.get("status") || "");
  const schedIn = h("input", { type: "search", value: qs.get("schedule") || "", autocomplete: "off" });
  const wfIn = h("input", { type: "search", value: qs.get("workflow") || "", autocomplete: "off" });
  const msg = message();
  const box = h("div", {}, h("p", { class: "loading", text: "Loading…" }));
  main.append(heading("Runs"),
    h("form", { class: "filters", role: "search", "aria-label": "Filter runs", on: { submit: (e) => e.preventDefault() } },
      field("Status", stSel), field("Schedule", schedIn), field("Workflow", wfIn)),
    msg, box);

  const COLS = ["Run", "Status", "Workflow", "Schedule", "Trigger", "Scheduled for", "Deadline", "Created", "Duration", "Error", "Actions"];
  const empty = h("p", { class: "none", text: "No run matches.", hidden: true });
  box.after(empty);
  let tbody = null;
  let seq = 0;
  async function load() {
    const mine = ++seq;
    keepFilters("/runs", { status: stSel.value, schedule: schedIn.value.trim(), workflow: wfIn.value.trim() });
    try {
      const r = await get("/api/v1/runs" + query({
        status: stSel.value, schedule: schedIn.value.trim(), workflow: wfIn.value.trim(), limit: 100,
      }));
      if (mine !== seq) return;
      if (!tbody) {
        const t = table("Runs", COLS, [], {});
        tbody = t.querySelector("tbody");
        clear(box, t);
      }
      keyedRows(tbody, r.runs, (x) => x.id,
        (x) => [x.status, x.duration_secs, x.error, x.started_at, x.deadline_at, x.deadline_missed].join("|"),
        (x) => makeRow(COLS, {
          class: "run-" + x.status + (x.deadline_missed ? " deadline-missed" : ""),
          cells: [runLink(x.id), status(x.status), x.workflow, scheduleLink(x.schedule), x.trigger,
            x.occurrence && x.occurrence !== x.scheduled_for
              ? [time(x.scheduled_for), " ", h("span", { class: "cal-mark moved", title: "moved off an excluded day from " + x.occurrence, text: "moved" })]
              : time(x.scheduled_for),
            deadlineCell(x),
            time(x.created_at, null, { relative: true }),
            x.duration_secs != null ? duration(x.duration_secs) : "—", x.error || "",
            ACTIVE.includes(x.status) ? cancelButton(x.id, load, msg) : ""],
        }));
      empty.hidden = r.runs.length > 0;
      if (msg.classList.contains("msg-error")) say(msg, "");
    } catch (e) {
      if (mine !== seq) return;
      say(msg, "Cannot load the runs: " + errorText(e), "error");
      if (!tbody) clear(box);
    }
  }
  const later = debounce(load, 300);
  stSel.addEventListener("change", load);
  schedIn.addEventListener("input", later);
  wfIn.addEventListener("input", later);
  const off = onEvent((ev) => {
    if (ev.type.startsWith("run.") || ev.type.startsWith("step.") || ev.type === "schedule.deadline_missed") later();
  });
  const tick = setInterval(() => refreshRelative(main), 15000);
  load();
  return () => { off(); clearInterval(tick); later.cancel(); };
}
