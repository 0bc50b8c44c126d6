// #/events: the recent events and then the live feed, filtered by type,
// schedule and actor (who caused each: a token's name, user:LOGIN,
// code:APP, scheduler); missed occurrences stand out.
import { onEvent } from "./api.js";
import { MISSED, matches, recent } from "./feed.js";
import { clear, errorText, h, heading, field, keepFilters, message, say, select, time } from "./ui.js";

const TYPES = ["schedule", "schedule.occurrences_missed", "run", "run.created", "run.started",
  "run.completed", "run.failed", "run.cancelled", "run.recovered", "run.timeout_exceeded",
  "step", "step.started", "step.completed", "step.failed", "step.retrying"];
const KEEP = 500;

function summary(ev) {
  const p = ev.payload || {};
  if (ev.type === MISSED)
    return `${p.count} occurrence${p.count === 1 ? "" : "s"} missed (${p.reason}), ${p.first}${p.last !== p.first ? " … " + p.last : ""}`;
  if (ev.type.startsWith("step."))
    return `step ${p.step}, attempt ${p.attempt}${p.error ? ": " + p.error : ""}`;
  if (ev.type.startsWith("run."))
    return [p.workflow, p.schedule, p.trigger, p.error].filter(Boolean).join(" · ");
  if (ev.type.startsWith("schedule.")) return p.status ? "status " + p.status : "";
  return "";
}

function item(ev) {
  const missed = ev.type === MISSED;
  const subj = ev.type.startsWith("run.") || ev.type.startsWith("step.")
    ? h("a", { href: "#/runs/" + encodeURIComponent(ev.subject), text: ev.subject })
    : h("a", { href: "#/schedules/" + encodeURIComponent(ev.subject), text: ev.subject });
  return h("li", { class: "event" + (missed ? " missed" : ""), "data-id": String(ev.id) },
    time(ev.at), " ", missed ? h("strong", { class: "badge", text: "missed" }) : null, " ",
    h("code", { class: "type", text: ev.type }), " ", subj, " ",
    h("span", { class: "actor", title: "who caused it", text: "by " + ((ev.payload || {}).actor || "?") }), " ",
    h("span", { class: "summary", text: summary(ev) }));
}

export function render(main, params, qs) {
  const typeSel = select([["", "any"], ...TYPES.map((t) => [t, t])], qs.get("type") || "");
  const schedIn = h("input", { type: "search", value: qs.get("schedule") || "", autocomplete: "off" });
  const actorIn = h("input", { type: "search", value: qs.get("actor") || "", autocomplete: "off" });
  const msg = message();
  const list = h("ol", { class: "events", reversed: true, "aria-label": "Events, newest first" });
  main.append(heading("Events"),
    h("form", { class: "filters", role: "search", "aria-label": "Filter events", on: { submit: (e) => e.preventDefault() } },
      field("Type", typeSel), field("Schedule", schedIn), field("Actor", actorIn)),
    msg, list);
  let all = [];
  const f = () => ({ type: typeSel.value, schedule: schedIn.value.trim(), actor: actorIn.value.trim() });
  function draw() {
    keepFilters("/events", f());
    const shown = all.filter((ev) => matches(ev, f()));
    clear(list, shown.slice().reverse().slice(0, 300).map(item));
    if (!shown.length) list.append(h("li", { class: "none", text: "No event matches (yet)." }));
  }
  const off = onEvent((ev) => {
    if (all.length && all[all.length - 1].id >= ev.id) return;
    all.push(ev);
    if (all.length > KEEP) all = all.slice(-KEEP);
    if (!matches(ev, f())) return;
    const none = list.querySelector("li.none");
    if (none) none.remove();
    list.prepend(item(ev));
    while (list.children.length > 300) list.lastChild.remove();
  });
  typeSel.addEventListener("change", draw);
  schedIn.addEventListener("input", draw);
  actorIn.addEventListener("input", draw);
  recent({}, 300, 300).then((evs) => {
    const ids = new Set(all.map((e) => e.id));
    all = [...evs.filter((e) => !ids.has(e.id)), ...all].sort((a, b) => a.id - b.id);
    draw();
  }).catch((e) => say(msg, "Cannot load the events: " + errorText(e), "error"));
  return off;
}
