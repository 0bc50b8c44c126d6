// A schedule's simulation (POST /api/v1/schedules/{name}/simulate): a
// period replayed through the scheduler's own policies with the outages
// given, drawn as a timeline (outages shaded, each occurrence fired or
// dropped with its reason) and listed: where a calendar moved an
// occurrence off an excluded day, when its run is scheduled for; and
// each fire's flags (a catch-up, buffered behind the active run, or
// cancelling it).
import { post } from "./api.js";
import { clear, enc, errorText, h, inZone, message, say, section, table, time } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  for (const k of kids) el.append(k);
  return el;
}

function iso(ms) {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

// "FROM..TO" or "FROM TO" a line.
function outages(text) {
  const out = [];
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const m = line.split(/\s*\.\.\s*|\s+/);
    if (m.length !== 2) throw new Error(`outage "${line}": write FROM..TO`);
    out.push({ from: m[0], to: m[1] });
  }
  return out;
}

// "12-02 09:00": short enough for five along the axis.
function tickLabel(t, zone) {
  const z = inZone(t, zone || "UTC");
  return z.date.slice(5) + " " + z.time.slice(0, 5);
}

// The flags of a fire D, in words.
const FLAGS = [["catchup", "catch-up"], ["buffered", "buffered (after the active run)"],
               ["cancels_active", "cancels the active run"]];
function flags(d) {
  return FLAGS.filter(([k]) => d[k]).map(([, text]) => text);
}

function timeline(r, down, zone) {
  const t0 = Date.parse(r.from), t1 = Date.parse(r.to);
  const W = 1000, H = 90, x = (t) => ((Date.parse(t) - t0) / (t1 - t0)) * W;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "timeline", role: "img",
    "aria-label": `Timeline from ${r.from} to ${r.to}: ${r.fired} fired, ` +
      Object.entries(r.dropped || {}).map(([k, v]) => `${v} dropped (${k})`).join(", ") });
  for (const d of down) {
    const a = Math.max(0, x(d.from)), b = Math.min(W, x(d.to));
    svg.append(s("rect", { x: a, y: 10, width: Math.max(1, b - a), height: 50, class: "outage" },
      s("title", {}, `outage ${d.from} – ${d.to}`)));
  }
  svg.append(s("line", { x1: 0, y1: 60, x2: W, y2: 60, class: "axis" }));
  for (let i = 0; i <= 4; i++) {
    const t = t0 + ((t1 - t0) * i) / 4;
    const lx = (W * i) / 4;
    svg.append(s("line", { x1: lx, y1: 60, x2: lx, y2: 66, class: "axis" }),
      s("text", { x: Math.min(W - 4, Math.max(4, lx)), y: 82, class: "tick",
        "text-anchor": i === 0 ? "start" : i === 4 ? "end" : "middle" },
        tickLabel(iso(t), zone)));
  }
  for (const d of r.decisions) {
    const cx = x(d.scheduled_for || d.occurrence);
    const label = `${d.occurrence}: ${d.decision}${d.reason ? " (" + d.reason + ")" : ""}` +
      (d.scheduled_for ? `, moved to ${d.scheduled_for}` : "") +
      flags(d).map((f) => ", " + f).join("") + `, decided ${d.at}`;
    if (d.decision === "fire")
      svg.append(s("line", { x1: cx, y1: 22, x2: cx, y2: 58, class: "fire" }, s("title", {}, label)));
    else
      svg.append(s("circle", { cx, cy: 40, r: 5, class: "drop" }, s("title", {}, label)));
  }
  return h("figure", { class: "timeline-box" }, svg,
    h("figcaption", {}, h("span", { class: "key fire", text: "fired" }), " ",
      h("span", { class: "key drop", text: "dropped" }), " ",
      h("span", { class: "key outage", text: "outage" })));
}

export function simulateSection(name, zone) {
  const now = Date.now();
  const from = h("input", { type: "text", id: "sim-from", value: iso(now - 7 * 86400000), spellcheck: "false" });
  const to = h("input", { type: "text", id: "sim-to", value: iso(now), spellcheck: "false" });
  const down = h("textarea", { id: "sim-down", rows: 2, spellcheck: "false" },
    `${iso(now - 3 * 86400000)}..${iso(now - 2 * 86400000)}`);
  const dur = h("input", { type: "number", id: "sim-dur", value: "0", min: "0", step: "1" });
  const msg = message();
  const out = h("div");
  const run = h("button", { type: "button" }, "Simulate");
  run.addEventListener("click", async () => {
    clear(out);
    let d;
    try {
      d = outages(down.value);
    } catch (e) {
      say(msg, e.message, "error");
      return;
    }
    run.disabled = true;
    try {
      const r = await post(`/api/v1/schedules/${enc(name)}/simulate`, {
        from: from.value, to: to.value, down: d, run_duration_secs: Number(dur.value) || 0,
      });
      const dropped = Object.entries(r.dropped || {}).map(([k, v]) => `${v} ${k}`).join(", ");
      say(msg, `${r.fired} fired, ${dropped ? "dropped: " + dropped : "none dropped"}${r.truncated ? " (the list is cut short)" : ""}.`, "info");
      out.append(timeline(r, d, zone), table("Decisions", ["Occurrence", "Decision", "Reason", "Scheduled for", "Flags", "Decided at", "Run"],
        r.decisions.slice(0, 500).map((x) => ({ class: [x.decision === "drop" ? "missed" : "", x.scheduled_for ? "cal-moved" : ""].join(" ").trim() || null,
          cells: [time(x.occurrence, zone), x.decision, x.reason || "—",
            x.scheduled_for ? h("span", {}, time(x.scheduled_for, zone), " ", h("span", { class: "cal-mark moved", text: "moved off an excluded day" })) : "—",
            flags(x).length ? flags(x).map((f) => h("span", { class: "flag", text: f })) : "—",
            time(x.at, zone), x.run_id || "—"] })),
        { empty: "No occurrence in the period." }));
    } catch (e) {
      say(msg, (e.status === 404 && !e.field ? "This server cannot simulate: " : "Cannot simulate: ") + errorText(e), "error");
    } finally {
      run.disabled = false;
    }
  });
  const fld = (label, input, hint) => h("div", { class: "field" }, h("label", { for: input.id, text: label }), input,
    hint ? h("p", { class: "hint", text: hint }) : null);
  return section("Simulation",
    h("p", { class: "hint", text: "Replays the period through the scheduler's own catch-up and overlap policies, as if the server were down during each outage. Nothing is written." }),
    h("form", { class: "inline", on: { submit: (e) => e.preventDefault() } },
      fld("From", from), fld("To", to), fld("Outages", down, "one a line: FROM..TO"),
      fld("Run duration (s)", dur), h("div", { class: "buttons" }, run)),
    msg, out);
}
