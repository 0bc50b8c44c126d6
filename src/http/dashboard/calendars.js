// #/calendars: every calendar (GET /api/v1/calendars) with its
// description, where it comes from (the API, or an app's workflows file),
// how many dates, rules and includes it has, its observed rule and its
// business weekdays; read again when a calendar changes.
import { get, onEvent } from "./api.js";
import { clear, debounce, enc, errorText, h, heading, message, say, table } from "./ui.js";

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const LONG = { mon: "Monday", tue: "Tuesday", wed: "Wednesday", thu: "Thursday",
               fri: "Friday", sat: "Saturday", sun: "Sunday" };

export function calendarLink(name) {
  return h("a", { href: "#/calendars/" + enc(name), text: name });
}

// ["mon", ..., "fri"] -> "Monday to Friday"; ["sun", "mon", "wed"] ->
// "Monday, Wednesday, Sunday": a run of three or more days as a range.
export function weekdaysText(list) {
  const set = new Set(list && list.length ? list : DAYS.slice(0, 5));
  const on = DAYS.filter((d) => set.has(d));
  if (on.length === 7) return "every day";
  // Ranges over the week's circle, from a day whose previous one is off.
  const start = DAYS.findIndex((d, i) => set.has(d) && !set.has(DAYS[(i + 6) % 7]));
  const runs = [];
  for (let k = 0, i = start; k < 7; k++, i = (i + 1) % 7) {
    if (!set.has(DAYS[i])) continue;
    if (set.has(DAYS[(i + 6) % 7]) && runs.length) runs[runs.length - 1].push(DAYS[i]);
    else runs.push([DAYS[i]]);
  }
  return runs.map((r) => r.length >= 3 ? `${LONG[r[0]]} to ${LONG[r[r.length - 1]]}`
    : r.map((d) => LONG[d]).join(", ")).join(", ");
}

export function observedText(o) {
  return o === "nearest_weekday" ? "nearest weekday (Saturday on Friday, Sunday on Monday)"
    : o === "next_monday" ? "next Monday (Saturday and Sunday on Monday)" : "none";
}

export function sourceText(c) {
  return c.source === "code" ? (c.app ? `app ${c.app}` : "workflows file") : (c.source || "api");
}

const count = (l) => String((l || []).length);

export function render(main) {
  const msg = message();
  const box = h("div", { class: "list" }, h("p", { class: "loading", text: "Loading…" }));
  main.append(heading("Calendars"),
    h("p", { class: "hint", text: "Named sets of days: holidays, closing days, sessions off." }),
    msg, box);
  async function load() {
    try {
      const r = await get("/api/v1/calendars");
      clear(box, table("Calendars",
        ["Name", "Description", "Source", "Dates", "Rules", "Includes", "iCalendar", "Observed", "Business weekdays"],
        r.calendars.map((c) => [calendarLink(c.name),
          c.description || h("span", { class: "none", text: "—" }), sourceText(c),
          count(c.dates), count(c.rules), count(c.include),
          c.ics ? "yes" : h("span", { class: "none", text: "no" }),
          c.observed || "none", weekdaysText(c.weekdays)]),
        { empty: "No calendar yet." }));
      say(msg, "");
    } catch (e) {
      say(msg, "Cannot load the calendars: " + errorText(e), "error");
      clear(box);
    }
  }
  const later = debounce(load, 400);
  const off = onEvent((ev) => { if (ev.type.startsWith("calendar.")) later(); });
  load();
  return () => { off(); later.cancel(); };
}
