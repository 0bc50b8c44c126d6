// What every page builds with: elements, times in a zone, durations,
// statuses, responsive tables, labelled fields and messages. No page
// writes HTML as text: everything is made with the DOM, so the content
// of the API can never become markup.

// h("a", {href: "#/runs", class: "x", on: {click: fn}}, "text", child...)
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k in el && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let myZone = null;
export function viewerZone() {
  if (!myZone) myZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  return myZone;
}

const fmtCache = new Map();
function formatter(zone) {
  let f = fmtCache.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
      weekday: "short", hour: "2-digit", minute: "2-digit", second: "2-digit",
      hourCycle: "h23", timeZoneName: "longOffset",
    });
    fmtCache.set(zone, f);
  }
  return f;
}

// The instant ISO in ZONE: {date: "2026-12-03", time: "09:00", offset:
// "+01:00", weekday: "Thu", text: "Thu 2026-12-03 09:00 +01:00"}.
export function inZone(iso, zone) {
  const d = new Date(iso);
  let parts;
  try {
    parts = formatter(zone || "UTC").formatToParts(d);
  } catch (e) {
    parts = formatter("UTC").formatToParts(d);
  }
  const p = {};
  for (const x of parts) p[x.type] = x.value;
  let offset = (p.timeZoneName || "GMT").replace("GMT", "");
  if (offset === "") offset = "+00:00";
  const sec = p.second && p.second !== "00" ? ":" + p.second : "";
  const frac = d.getUTCMilliseconds() ? "." + String(d.getUTCMilliseconds()).padStart(3, "0") : "";
  const date = `${p.year}-${p.month}-${p.day}`;
  const time = `${p.hour}:${p.minute}${sec || (frac ? ":00" : "")}${frac}`;
  return { date, time, offset, weekday: p.weekday,
           text: `${p.weekday} ${date} ${time} ${offset}` };
}

// "in 3 h", "12 min ago", "now".
export function relative(iso, now) {
  const s = Math.round((Date.parse(iso) - (now || Date.now())) / 1000);
  const a = Math.abs(s);
  if (a < 5) return "now";
  let v;
  if (a < 90) v = a + " s";
  else if (a < 90 * 60) v = Math.round(a / 60) + " min";
  else if (a < 36 * 3600) v = Math.round(a / 3600) + " h";
  else v = Math.round(a / 86400) + " d";
  return s > 0 ? "in " + v : v + " ago";
}

// A <time> of ISO shown in ZONE; the viewer's own time in its title.
// OPTS.relative adds "(in 3 h)" beside it.
export function time(iso, zone, opts) {
  if (!iso) return h("span", { class: "none", text: "—" });
  const z = inZone(iso, zone || "UTC");
  const mine = inZone(iso, viewerZone());
  const t = h("time", {
    datetime: iso,
    title: `${iso}\nyour time (${viewerZone()}): ${mine.text}`,
    "data-relative": opts && opts.relative ? "1" : null,
  }, z.text);
  if (!(opts && opts.relative)) return t;
  return h("span", { class: "when" }, t, " ",
    h("span", { class: "rel", "data-iso": iso, text: "(" + relative(iso) + ")" }));
}

// Update every relative time under ROOT.
export function refreshRelative(root) {
  for (const el of root.querySelectorAll(".rel[data-iso]"))
    el.textContent = "(" + relative(el.dataset.iso) + ")";
}

// 21600 -> "6h", 5400 -> "1h30m", 0.25 -> "250 ms".
export function duration(secs) {
  if (secs === null || secs === undefined) return "—";
  if (secs < 1 && secs > 0) return Math.round(secs * 1000) + " ms";
  if (secs < 60 && secs % 1) return secs.toFixed(1) + " s";
  let s = Math.round(secs);
  if (s === 0) return "0s";
  const units = [["w", 604800], ["d", 86400], ["h", 3600], ["m", 60], ["s", 1]];
  if (s % 604800 !== 0) units.shift(); // weeks only when whole
  let out = "";
  for (const [u, n] of units) {
    if (s >= n) {
      out += Math.floor(s / n) + u;
      s %= n;
    }
  }
  return out;
}

// One term of a <dl>: <div><dt>K</dt> <dd>V</dd></div>.
export function term(k, v, ddAttrs) {
  return h("div", {}, h("dt", { text: k }), " ", h("dd", ddAttrs || {}, v), "\n");
}

export function status(st, extra) {
  return h("span", { class: "status st-" + st }, st, extra ? " " + extra : "");
}

export const ACTIVE = ["pending", "running", "waiting"];

// A run's missed deadlines (its deadline_missed: "start", "completion",
// or both) in words, so that it is not told by colour alone.
export function deadlineWords(missed) {
  const parts = String(missed).split(",");
  return "deadline missed (" + parts.join(" and ") + ")";
}

export function deadlineMark(r) {
  if (!r.deadline_missed) return null;
  return h("span", { class: "dl-mark missed", text: deadlineWords(r.deadline_missed) });
}

// Only the runs of occurrences have deadlines (docs/alerting.md).
const OCCURRENCE = ["cron", "catchup", "heartbeat"];

// The deadlines of run R under its schedule S as it is now (which the
// server judges it by), start first: {label, word, secs, at (ms), verdict}
// with verdict "missed" (the server's word), "met", "ahead" or null (not
// judged yet); [] when S gives R none.
export function runDeadlines(r, s) {
  if (!s || !OCCURRENCE.includes(r.trigger) || !r.scheduled_for) return [];
  const missed = String(r.deadline_missed || "").split(",");
  const one = (label, word, secs, met) => {
    if (!secs) return null;
    const at = Date.parse(r.scheduled_for) + secs * 1000;
    const verdict = missed.includes(word) ? "missed" : met(at) ? "met" : Date.now() < at ? "ahead" : null;
    return { label, word, secs, at, verdict };
  };
  return [
    one("Start deadline", "start", s.start_deadline_secs,
      (at) => r.started_at && Date.parse(r.started_at) <= at),
    one("Deadline", "completion", s.deadline_secs,
      (at) => r.status === "completed" && r.finished_at && Date.parse(r.finished_at) <= at),
  ].filter(Boolean);
}

// Deadline D (of runDeadlines) as its instant in ZONE and its verdict.
export function deadlineText(d, zone) {
  const word = d.verdict === "missed" ? (d.word === "start" ? "start deadline missed" : "deadline missed")
    : d.verdict === "met" ? "met" : d.verdict === "ahead" ? "ahead" : null;
  return [time(new Date(d.at).toISOString(), zone),
    word ? [" ", h("span", { class: d.verdict === "ahead" ? "dl-due" : "dl-mark " + d.verdict, text: word })] : null];
}

// A list's deadline cell of run R: with its schedule S, each deadline
// and its verdict; without, its miss, else (while it is active) its next
// deadline check, in ZONE; else "—".
export function deadlineCell(r, zone, s) {
  const list = runDeadlines(r, s);
  if (list.length)
    return list.map((d, i) => [i ? h("br") : null, list.length > 1 ? d.word + ": " : null, deadlineText(d, zone)]);
  if (r.deadline_missed) return deadlineMark(r);
  if (r.deadline_at && ACTIVE.includes(r.status)) return h("span", { class: "dl-due" }, "due ", time(r.deadline_at, zone));
  return h("span", { class: "none", text: "—" });
}

// A table of ROWS (arrays of cells, or {cells, class}) under the headers
// COLS, in a box of its own that scrolls or stacks on a narrow screen.
export function table(caption, cols, rows, opts) {
  const t = h("table", { class: "data" + (opts && opts.stack === false ? "" : " stack") },
    caption ? h("caption", { class: opts && opts.showCaption ? "" : "sr-only", text: caption }) : null,
    h("thead", {}, h("tr", {}, cols.map((c) => [h("th", { scope: "col", text: c }), "\n"]))));
  const body = h("tbody");
  fillBody(body, cols, rows);
  t.append(body);
  if (!rows.length && opts && opts.empty)
    body.append(h("tr", { class: "empty" }, h("td", { colspan: cols.length, text: opts.empty })));
  return h("div", { class: "table-box" }, t);
}

// One row of ROW (an array of cells or {cells, class}) under COLS.
export function makeRow(cols, r) {
  const cells = Array.isArray(r) ? r : r.cells;
  const tr = h("tr", { class: Array.isArray(r) ? null : r.class });
  cells.forEach((c, i) => {
    const td = h(i === 0 ? "th" : "td", { "data-label": cols[i] }, c);
    if (i === 0) td.setAttribute("scope", "row");
    tr.append(td, "\n");
  });
  return tr;
}

// Make BODY's rows those of ITEMS in order, keyed by KEY(item): a row
// whose SIG(item) is unchanged is kept where it is (so the focus inside
// it stays), the others are built with BUILD(item) and put in place.
export function keyedRows(body, items, key, sig, build) {
  const old = new Map();
  for (const tr of body.children) if (tr.dataset.key) old.set(tr.dataset.key, tr);
  const want = items.map((it) => {
    const k = key(it), sg = sig(it), tr = old.get(k);
    if (tr && tr.dataset.sig === sg) return tr;
    const n = build(it);
    n.dataset.key = k;
    n.dataset.sig = sg;
    return n;
  });
  const keep = new Set(want);
  for (const tr of [...body.children]) if (!keep.has(tr)) tr.remove();
  let at = body.firstElementChild;
  for (const tr of want) {
    if (tr === at) at = at.nextElementSibling;
    else body.insertBefore(tr, at);
  }
}

function fillBody(body, cols, rows) {
  for (const r of rows) body.append(makeRow(cols, r));
}

// A labelled control: field("Status", h("select", ...)).
let fieldSeq = 0;
export function field(label, control, hint) {
  const id = control.id || "f" + ++fieldSeq;
  control.id = id;
  const err = h("p", { class: "field-error", id: id + "-err", role: "alert", hidden: true });
  if (hint) control.setAttribute("aria-describedby", id + "-hint " + id + "-err");
  else control.setAttribute("aria-describedby", id + "-err");
  return h("div", { class: "field" },
    h("label", { for: id, text: label }), control,
    hint ? h("p", { class: "hint", id: id + "-hint", text: hint }) : null, err);
}

// Mark CONTROL (made by field) as wrong with MESSAGE, or right (null).
export function fieldError(control, message) {
  const err = document.getElementById(control.id + "-err");
  if (message) control.setAttribute("aria-invalid", "true");
  else control.removeAttribute("aria-invalid");
  if (err) {
    err.hidden = !message;
    err.textContent = message || "";
  }
}

export function select(options, value) {
  return h("select", {}, options.map(([v, label]) =>
    h("option", { value: v, selected: v === value, text: label })));
}

export function button(label, fn, opts) {
  const b = h("button", { type: "button", class: opts && opts.class }, label);
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await fn(b);
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

// A message area: say(el, "text", "error"|"ok"|"info").
export function message() {
  return h("p", { class: "msg", role: "status", "aria-live": "polite" });
}

export function say(el, text, kind) {
  el.textContent = text || "";
  el.className = "msg" + (kind ? " msg-" + kind : "");
}

export function errorText(e) {
  return e && e.field ? `${e.message} (field ${e.field})` : (e && e.message) || String(e);
}

export function link(href, text) {
  return h("a", { href, text });
}

export const enc = encodeURIComponent;

export function runLink(id) {
  return h("a", { href: "#/runs/" + enc(id), class: "id", text: id });
}

export function scheduleLink(name) {
  return name ? h("a", { href: "#/schedules/" + enc(name), text: name }) : "—";
}

// A function that runs FN once MS after the last of a burst of calls,
// with the last call's arguments. A view cancels
// what is pending when it is left or its subject is gone, so nothing reads
// what was just deleted.
export function debounce(fn, ms) {
  let t = null;
  const later = (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
  later.cancel = () => clearTimeout(t);
  return later;
}

// The page's heading, focused after navigation for keyboard users.
export function heading(text, kind) {
  return h("h1", { tabindex: "-1" }, kind ? h("span", { class: "kind", text: kind + " " }) : null, text);
}

export function section(title, ...children) {
  const id = "s-" + title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return h("section", { "aria-labelledby": id }, h("h2", { id, text: title }), children);
}

// A <dialog> asking to confirm QUESTION; resolves true or false.
export function confirmDialog(question, yes, no) {
  return new Promise((resolve) => {
    const d = h("dialog", { class: "confirm", "aria-label": question });
    const done = (v) => { d.close(); d.remove(); resolve(v); };
    d.append(h("p", { text: question }),
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "danger", on: { click: () => done(true) } }, yes),
        h("button", { type: "button", class: "quiet", autofocus: true, on: { click: () => done(false) } }, no)));
    d.addEventListener("cancel", (e) => { e.preventDefault(); done(false); });
    document.body.append(d);
    d.showModal();
  });
}

// Keep a list page's filters in its address (#/runs?status=failed), so
// that it can be bookmarked and shared, without a navigation.
export function keepFilters(path, values) {
  if (location.hash.split("?")[0] !== "#" + path) return; // gone elsewhere
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v) q.set(k, v);
  const s = q.toString();
  history.replaceState(null, "", "#" + path + (s ? "?" + s : ""));
}
