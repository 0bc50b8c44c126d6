// #/calendars/NAME: a calendar's definition (its dates, rules, includes
// as links, iCalendar file, observed rule and business weekdays, and the
// calendars that include it) and a year view: twelve month grids, each day
// a holiday (in the set), an observed holiday, a business day or a
// weekend day, with the previous and next years a button away
// (#/calendars/NAME?year=2027). The days come from one request of the
// API's days (GET /api/v1/calendars/NAME/days) for the year and the days
// around it that an observed rule reads. Under it, the schedules that use
// the calendar (their exclude or only, directly or through a calendar
// that includes it), from the list of schedules.
import { get, onEvent, query } from "./api.js";
import { calendarLink, observedText, sourceText, weekdaysText } from "./calendars.js";
import { clear, debounce, enc, errorText, h, heading, message, say, scheduleLink, section, table, term,
         time } from "./ui.js";
import { onExcludedText, words } from "./words.js";

const FIRST_YEAR = 1970, LAST_YEAR = 2200; // the range of a calendar's days
const DAY_MS = 86400000;
const WD = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const WD_LONG = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December"];
const KINDS = [
  ["holiday", "Holiday", "a day of the calendar's set"],
  ["observed", "Observed holiday", "a day of the set on which a weekend holiday is observed"],
  ["business", "Business day", "a business weekday not in the set"],
  ["weekend", "Weekend", "not a business weekday"],
];
const KIND_TEXT = { holiday: "holiday", observed: "observed holiday", business: "business day", weekend: "weekend" };

const BASE = (name) => "/api/v1/calendars/" + enc(name);
const iso = (ms) => new Date(ms).toISOString().slice(0, 10);
const none = (text) => h("span", { class: "none", text: text || "none" });

// The weekend day that the observed rule O moves onto the weekday MS, when
// it is in SET: nearest_weekday puts Saturday on the Friday before and
// Sunday on the Monday after, next_monday both on the Monday after.
function observedFor(o, ms, set) {
  const wd = new Date(ms).getUTCDay();
  const from = [];
  if (o === "nearest_weekday" && wd === 5) from.push(ms + DAY_MS);
  if (o === "nearest_weekday" && wd === 1) from.push(ms - DAY_MS);
  if (o === "next_monday" && wd === 1) from.push(ms - 2 * DAY_MS, ms - DAY_MS);
  return from.map(iso).find((d) => set.has(d)) || null;
}

function whatDay(ms) {
  return `${WD_LONG[new Date(ms).getUTCDay()]} ${iso(ms)}`;
}

// Each day of YEAR: {ms, date, kind, label}.
function yearDays(year, cal, set) {
  const business = new Set(cal.weekdays && cal.weekdays.length ? cal.weekdays : WD.slice(1, 6));
  const out = [];
  for (let ms = Date.UTC(year, 0, 1); new Date(ms).getUTCFullYear() === year; ms += DAY_MS) {
    const date = iso(ms);
    const wd = new Date(ms).getUTCDay();
    let kind, why = "";
    if (set.has(date)) {
      const from = observedFor(cal.observed, ms, set);
      kind = from ? "observed" : "holiday";
      if (from) why = ` (${whatDay(Date.parse(from + "T00:00:00Z"))} observed)`;
      else if (!business.has(WD[wd])) why = " (not a business weekday)";
    } else {
      kind = business.has(WD[wd]) ? "business" : "weekend";
    }
    out.push({ ms, date, kind, label: `${whatDay(ms)}: ${KIND_TEXT[kind]}${why}` });
  }
  return out;
}

// One month's grid: a table, weeks from Monday, one cell a day.
function monthTable(year, month, days, today) {
  const heads = [1, 2, 3, 4, 5, 6, 0].map((d) =>
    h("th", { scope: "col", abbr: WD_LONG[d] }, h("span", { "aria-hidden": "true", text: WD_LONG[d].slice(0, 2) }),
      h("span", { class: "sr-only", text: WD_LONG[d] })));
  const body = h("tbody");
  let tr = h("tr");
  const lead = (new Date(days[0].ms).getUTCDay() + 6) % 7;
  for (let i = 0; i < lead; i++) tr.append(h("td", { class: "pad" }));
  for (const d of days) {
    if (tr.children.length === 7) {
      body.append(tr);
      tr = h("tr");
    }
    tr.append(h("td", {
      class: "day k-" + d.kind, "data-date": d.date, "data-kind": d.kind,
      "aria-label": d.label, title: d.label, "aria-current": d.date === today ? "date" : null,
    }, String(new Date(d.ms).getUTCDate())));
  }
  while (tr.children.length < 7) tr.append(h("td", { class: "pad" }));
  body.append(tr);
  return h("table", { class: "month" },
    h("caption", { text: `${MONTHS[month]} ${year}` }),
    h("thead", {}, h("tr", {}, heads)), body);
}

function legend(counts) {
  return h("ul", { class: "cal-legend", "aria-label": "Legend" },
    KINDS.map(([k, label, what]) => h("li", {},
      h("span", { class: "swatch day k-" + k, "aria-hidden": "true" }), " ",
      h("strong", { text: label }), `: ${what} (${counts[k] || 0})`)));
}

function codeList(items, each) {
  if (!items || !items.length) return none();
  return h("ul", { class: "plain" }, items.map((x) => h("li", {}, each(x))));
}

function definition(c, includedBy) {
  const ics = c.ics || "";
  const events = (ics.match(/^BEGIN:VEVENT\b/gm) || []).length;
  return h("dl", { class: "fields" },
    term("description", c.description || none("—")),
    term("source", sourceText(c)),
    term(`dates (${(c.dates || []).length})`, codeList(c.dates, (d) => h("time", { datetime: d, text: d }))),
    term(`rules (${(c.rules || []).length})`, codeList(c.rules, (r) => h("code", { text: r }))),
    term(`include (${(c.include || []).length})`, codeList(c.include, calendarLink)),
    term("included by", includedBy ? codeList(includedBy, calendarLink) : none("…")),
    term("ics", ics ? h("details", {}, h("summary", { text: `${events} events, ${ics.length} characters` }),
      h("pre", { class: "json", text: ics })) : none()),
    term("observed", observedText(c.observed)),
    term("weekdays", weekdaysText(c.weekdays)),
    term("created_at", time(c.created_at, "UTC")),
    term("updated_at", time(c.updated_at, "UTC")));
}

// The calendars whose days hold NAME's: NAME and those that include it,
// at any depth, from the list of calendars ALL.
function holders(name, all) {
  const out = new Set([name]);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of all)
      if (!out.has(c.name) && (c.include || []).some((i) => out.has(i))) {
        out.add(c.name);
        grew = true;
      }
  }
  return out;
}

// How schedule S uses the calendar NAME (HELD: the calendars holding its
// days): "exclude", "only", "exclude (through office)"; null if it does not.
function use(s, name, held) {
  const out = [];
  for (const k of ["exclude", "only"]) {
    const via = (s[k] || []).filter((c) => held.has(c));
    if (!via.length) continue;
    const through = via.filter((c) => c !== name);
    out.push(via.includes(name) ? k : `${k} (through ${through.join(", ")})`);
  }
  return out.length ? out.join(", ") : null;
}

function schedulesTable(list, name, held) {
  const rows = list.map((s) => ({ s, how: use(s, name, held) })).filter((x) => x.how)
    .map(({ s, how }) => [scheduleLink(s.name), how,
      (s.exclude || []).some((c) => held.has(c)) ? onExcludedText(s.on_excluded) : "—",
      words(s), s.timezone || "UTC", s.status]);
  return table("Schedules using this calendar", ["Schedule", "Uses it as", "On an excluded day", "When", "Zone", "Status"],
    rows, { empty: "No schedule uses this calendar." });
}

// Every schedule, through the pages of the list.
async function allSchedules() {
  const out = [];
  let cursor = "";
  do {
    const page = await get("/api/v1/schedules" + query({ limit: 1000, cursor: cursor || undefined }));
    out.push(...page.schedules);
    cursor = page.next_cursor;
  } while (cursor && out.length < 20000);
  return out;
}

export function render(main, params, qs) {
  const name = params[0];
  const thisYear = new Date().getFullYear();
  let year = parseInt(qs.get("year"), 10);
  if (!(year >= FIRST_YEAR && year <= LAST_YEAR)) year = thisYear;
  const msg = message();
  const lead = h("p", { class: "lead" });
  const def = h("div", {}, h("p", { class: "loading", text: "Loading…" }));
  const yearTitle = h("h2", { id: "s-year", text: "Year " + year });
  const summary = h("p", { class: "count", role: "status", "aria-live": "polite" });
  const grids = h("div", { class: "year" });
  const prev = h("button", { type: "button", on: { click: () => go(year - 1) } });
  const next = h("button", { type: "button", on: { click: () => go(year + 1) } });
  const legendBox = h("div");
  const users = h("div", {}, h("p", { class: "loading", text: "Loading…" }));
  main.append(h("p", { class: "crumbs" }, h("a", { href: "#/calendars", text: "Calendars" })),
    heading(name, "Calendar"), lead, msg,
    h("section", { "aria-labelledby": "s-year" }, yearTitle,
      h("div", { class: "buttons year-nav", role: "group", "aria-label": "Year" }, prev, next),
      summary, legendBox, grids),
    section("Schedules", users),
    section("Definition", def));

  let cal = null, days = null, seq = 0;

  function go(y) {
    if (y < FIRST_YEAR || y > LAST_YEAR) return;
    year = y;
    const path = "#/calendars/" + enc(name);
    if (location.hash.split("?")[0] === path)
      history.replaceState(null, "", path + (year === thisYear ? "" : "?year=" + year));
    loadDays();
  }

  function drawNav() {
    yearTitle.textContent = "Year " + year;
    prev.textContent = `← ${year - 1}`;
    prev.setAttribute("aria-label", `Previous year, ${year - 1}`);
    prev.disabled = year <= FIRST_YEAR;
    next.textContent = `${year + 1} →`;
    next.setAttribute("aria-label", `Next year, ${year + 1}`);
    next.disabled = year >= LAST_YEAR;
  }

  function drawYear() {
    if (!cal || !days || days.year !== year) return;
    const all = yearDays(year, cal, days.set);
    const counts = {};
    for (const d of all) counts[d.kind] = (counts[d.kind] || 0) + 1;
    const inSet = (counts.holiday || 0) + (counts.observed || 0);
    summary.textContent = `In ${year}: ${inSet} days in the set` +
      (counts.observed ? ` (${counts.observed} observed)` : "") + `, ${counts.business || 0} business days.`;
    clear(legendBox, legend(counts));
    const today = iso(Date.now() - new Date().getTimezoneOffset() * 60000);
    clear(grids, MONTHS.map((_, m) =>
      monthTable(year, m, all.filter((d) => new Date(d.ms).getUTCMonth() === m), today)));
  }

  // One request: the year, and the two days before and one after it that
  // decide its first and last days' observed marks.
  async function loadDays() {
    drawNav();
    const mine = ++seq, y = year;
    const from = y === FIRST_YEAR ? `${y}-01-01` : `${y - 1}-12-30`;
    const to = y === LAST_YEAR ? `${y}-12-31` : `${y + 1}-01-01`;
    try {
      const r = await get(BASE(name) + "/days" + query({ from, to }));
      if (mine !== seq) return;
      days = { year: y, set: new Set(r.days.filter((d) => d.holiday).map((d) => d.date)) };
      say(msg, "");
      drawYear();
    } catch (e) {
      if (mine !== seq) return;
      clear(grids);
      summary.textContent = "";
      say(msg, (e.status === 404 ? `No calendar "${name}".` : `Cannot read its days of ${y}: ` + errorText(e)), "error");
    }
  }

  async function load() {
    try {
      cal = await get(BASE(name));
    } catch (e) {
      clear(def, e.status === 404 ? `No calendar "${name}".` : "Cannot load: " + errorText(e));
      return;
    }
    lead.textContent = [cal.description, `observed: ${cal.observed || "none"}`,
      `business weekdays: ${weekdaysText(cal.weekdays)}`].filter(Boolean).join(" · ");
    clear(def, definition(cal, null));
    drawYear();
    get("/api/v1/calendars").then((r) => {
      const by = r.calendars.filter((c) => (c.include || []).includes(name)).map((c) => c.name);
      if (cal) clear(def, definition(cal, by));
      return loadUsers(holders(name, r.calendars));
    }).catch(() => {});
  }

  let held = null;
  async function loadUsers(h0) {
    if (h0) held = h0;
    if (!held) return;
    try {
      clear(users, schedulesTable(await allSchedules(), name, held));
    } catch (e) {
      clear(users, "Cannot read the schedules: " + errorText(e));
    }
  }

  // A change of a calendar (this one, or one it includes) reads it again;
  // a change of a schedule reads the schedules again.
  const reload = debounce(() => { load(); loadDays(); }, 400);
  const reloadUsers = debounce(() => loadUsers(), 700);
  const off = onEvent((ev) => {
    if (ev.type.startsWith("calendar.")) reload();
    else if (/^schedule\.(created|updated|deleted|paused|resumed)$/.test(ev.type)) reloadUsers();
  });
  load();
  loadDays();
  return () => { off(); reload.cancel(); reloadUsers.cancel(); };
}
