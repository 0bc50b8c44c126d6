// #/playground: a cron expression, a zone and a DST policy in; as one
// types, the server's words for it, its next occurrences, and those
// around the zone's next DST changes with their marks — all computed by
// the server (GET /api/v1/cron/explain, the engine of `sked cron`).
// Here only the zone's offset changes are found (from the browser's zone
// data), to know which periods to ask the server about.
import { get, query } from "./api.js";
import { clear, debounce, errorText, field, fieldError, h, heading, inZone, keepFilters, message, say,
         section, select, table, viewerZone } from "./ui.js";

function offsetMinutes(t, zone) {
  const o = inZone(new Date(t).toISOString(), zone).offset; // "+01:00"
  const m = o.match(/^([+-])(\d\d):(\d\d)/);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

// The next two instants (ms) within 400 days at which ZONE's offset changes.
export function zoneChanges(zone, from) {
  const out = [];
  const day = 86400000;
  let t = Math.floor(from / 60000) * 60000, off = offsetMinutes(t, zone);
  for (let i = 0; i < 400 && out.length < 2; i++) {
    const n = t + day, o = offsetMinutes(n, zone);
    if (o !== off) {
      let lo = t, hi = n;
      while (hi - lo > 60000) {
        const mid = lo + Math.floor((hi - lo) / 120000) * 60000;
        if (offsetMinutes(mid, zone) === off) lo = mid; else hi = mid;
      }
      out.push({ at: hi, from: off, to: o });
      off = o;
    }
    t = n;
  }
  return out;
}

const fmtOff = (m) => (m < 0 ? "-" : "+") + String(Math.floor(Math.abs(m) / 60)).padStart(2, "0") + ":" + String(Math.abs(m) % 60).padStart(2, "0");

function occTable(caption, list) {
  return table(caption, ["In the zone", "UTC", "Mark"], list.map((o) => ({
    class: o.mark ? "marked" : null,
    cells: [h("time", { datetime: o.at }, o.local.replace("T", " ")), o.at, o.mark ? h("span", { class: "mark", text: o.mark }) : "—"],
  })), { empty: "No occurrence.", stack: false });
}

const ZONES = (() => {
  try { return Intl.supportedValuesOf("timeZone"); } catch (e) { return []; }
})();

export function render(main, params, qs) {
  const expr = h("input", { type: "text", value: qs.get("expr") || "30 2 * * *", spellcheck: "false", autocomplete: "off", class: "mono" });
  const zone = h("input", { type: "text", value: qs.get("timezone") || "Europe/Paris", list: "zones", autocomplete: "off", spellcheck: "false" });
  const dst = select([["once", "once (each local time at most once)"], ["cadence", "cadence (keep the real-time rhythm)"], ["shift,last", "shift,last (a repeated time on its second pass)"], ["shift,both", "shift,both (a repeated time on both passes)"], ["skip,first", "skip,first (a skipped time does not fire)"], ["skip,last", "skip,last"], ["skip,both", "skip,both"]], qs.get("dst") || "once");
  const zones = h("datalist", { id: "zones" }, ZONES.map((z) => h("option", { value: z })));
  const msg = message();
  const wordsOut = h("p", { class: "lead words-out", "aria-live": "polite" });
  const next = h("div"), around = h("div");
  main.append(heading("Cron playground"),
    h("form", { class: "filters playground", on: { submit: (e) => e.preventDefault() } },
      field("Expression", expr, "5 fields (minute hour day month weekday), or 6 with seconds first; @daily, L, W, #"),
      field("Time zone", zone, "an IANA zone; yours is " + viewerZone()),
      field("DST policy", dst), zones),
    msg, section("In words", wordsOut), section("Next occurrences", next),
    section("Around the next DST changes", around));

  let seq = 0;
  async function update() {
    const mine = ++seq;
    const p = { expr: expr.value.trim(), timezone: zone.value.trim() || "UTC", dst: dst.value };
    keepFilters("/playground", p);
    if (!p.expr) {
      fieldError(expr, "expr: an expression is required");
      return;
    }
    try {
      const r = await get("/api/v1/cron/explain" + query({ ...p, n: 10 }));
      if (mine !== seq) return;
      fieldError(expr, null);
      fieldError(zone, null);
      say(msg, "");
      wordsOut.textContent = r.description;
      clear(next, occTable("Next occurrences", r.occurrences));
      await drawAround(p, mine);
    } catch (e) {
      if (mine !== seq) return;
      const target = e.field === "timezone" ? zone : e.field === "dst" ? dst : expr;
      if (e.status === 422 || e.status === 400) {
        fieldError(expr, target === expr ? e.message : null);
        fieldError(zone, target === zone ? e.message : null);
        fieldError(dst, target === dst ? e.message : null);
        say(msg, "");
      } else {
        say(msg, (e.status === 404 ? "This server cannot explain expressions: " : "") + errorText(e), "error");
      }
      wordsOut.textContent = "—";
      clear(next);
      clear(around);
    }
  }

  async function drawAround(p, mine) {
    const changes = zoneChanges(p.timezone, Date.now());
    if (!changes.length) {
      clear(around, h("p", { class: "none", text: `${p.timezone} has no DST change in the next year.` }));
      return;
    }
    const blocks = [];
    for (const c of changes) {
      const after = new Date(c.at - 26 * 3600000).toISOString().replace(/\.\d{3}Z$/, "Z");
      const r = await get("/api/v1/cron/explain" + query({ ...p, n: 200, after }));
      if (mine !== seq) return;
      const win = r.occurrences.filter((o) => Math.abs(Date.parse(o.at) - c.at) <= 26 * 3600000);
      const before = win.filter((o) => Date.parse(o.at) < c.at).slice(-4);
      const afterL = win.filter((o) => Date.parse(o.at) >= c.at).slice(0, 4);
      const marked = win.filter((o) => o.mark && !before.includes(o) && !afterL.includes(o));
      const list = [...before, ...marked, ...afterL].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
      const when = new Date(c.at).toISOString().replace(/:00\.000Z$/, "Z");
      const title = `${when}: ${fmtOff(c.from)} → ${fmtOff(c.to)} (${c.to > c.from ? "clocks go forward" : "clocks go back"})`;
      blocks.push(h("div", { class: "dst-change" }, h("h3", { text: title }),
        list.length ? occTable("Occurrences around " + when, list) : h("p", { class: "none", text: "No occurrence within a day of it." })));
    }
    clear(around, blocks);
  }

  const later = debounce(update, 250);
  expr.addEventListener("input", later);
  zone.addEventListener("input", later);
  dst.addEventListener("change", update);
  update();
}
