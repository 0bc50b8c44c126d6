// #/notifiers/NAME: a notifier's definition and its newest deliveries
// (GET /api/v1/notifiers/NAME/deliveries): for each, the event it
// carries, its state, its attempts, its last error, when it is tried
// again and when it was delivered; read again as events come (a delivery
// is written with its event) and every few seconds (retries are not
// events). Read-only. Of the definition only the keys named here are
// shown, and of a secret only where the server reads it (secret_file,
// secret_env), which is all the API says; of the headers, which may hold
// a credential, only their names.
import { get, onEvent } from "./api.js";
import { sourceText } from "./calendars.js";
import { codes, kindOf, target } from "./notifiers.js";
import { clear, debounce, enc, errorText, h, heading, message, runLink, say, scheduleLink,
         section, table, term, time } from "./ui.js";

const BASE = (name) => "/api/v1/notifiers/" + enc(name);
const LIMIT = 50;
const none = (text) => h("span", { class: "none", text });
const code = (text) => (text ? h("code", { text }) : none("—"));
const timeout = (t) => (t ? String(t) : "10s (the default)");

function secretText(w) {
  if (w.secret_env)
    return ["set: signed with the secret in the server's variable ", h("code", { text: w.secret_env }), " (never shown)"];
  if (w.secret_file)
    return ["set: signed with the secret in the file ", h("code", { text: w.secret_file }), " (never shown)"];
  return none("none: requests are not signed");
}

// The settings of N's kind, key by key.
function kindTerms(n) {
  const kind = kindOf(n), c = n[kind] || {};
  if (kind === "webhook")
    return [term("URL", code(c.url)),
      term("Headers", c.headers && Object.keys(c.headers).length
        ? [codes(Object.keys(c.headers), ""), h("span", { class: "hint", text: "(values not shown)" })]
        : none("none")),
      term("Body", c.body ? h("pre", { class: "json", text: c.body }) : none("the event's JSON")),
      term("Secret", secretText(c)), term("Timeout", timeout(c.timeout))];
  if (kind === "command")
    return [term("Program and arguments", codes(c.argv, "none")),
      term("Input", "the event's JSON on its standard input"), term("Timeout", timeout(c.timeout))];
  if (kind === "email")
    return [term("To", codes(c.to, "none")), term("From", c.from || none("the program's")),
      term("Subject", c.subject ? code(c.subject) : none("[sked] {{type}} {{schedule}} {{subject}}")),
      term("Program", code(c.program || "/usr/sbin/sendmail")), term("Timeout", timeout(c.timeout))];
  return [];
}

function definition(n) {
  return h("dl", { class: "fields" },
    term("Kind", kindOf(n)), term("Target", h("span", { class: "mono", text: target(n) })),
    kindTerms(n),
    term("Events", codes(n.events, "none")),
    term("Schedules", codes(n.schedules, "every schedule")),
    term("Retried for", n.retry_for ? String(n.retry_for) : "1d (the default)"),
    term("Source", sourceText(n)),
    term("Created", time(n.created_at)), term("Updated", time(n.updated_at)));
}

const STATE_CLASS = { delivered: "completed", failed: "failed", pending: "pending" };

// What the event of delivery D is about: its run or its schedule.
function about(ev) {
  if (!ev) return "—";
  if (ev.type && ev.type.startsWith("run.")) return runLink(ev.subject);
  return scheduleLink(ev.schedule || ev.subject);
}

function deliveries(list) {
  return table("Deliveries",
    ["Delivery", "Event", "About", "State", "Attempts", "Last error", "Next attempt", "Delivered at"],
    list.map((d) => {
      const ev = d.event || {};
      const err = d.last_error
        ? d.last_error + (d.last_status != null ? ` (status ${d.last_status})` : "")
        : none("—");
      return {
        class: "delivery-" + d.state,
        cells: [h("span", { class: "id", text: d.delivery || String(d.id) }),
          [h("code", { text: ev.type || "?" }), ev.at ? [" ", time(ev.at)] : null],
          about(ev),
          h("span", { class: "status st-" + (STATE_CLASS[d.state] || d.state), text: d.state }),
          String(d.attempts),
          d.last_error ? h("span", { class: "err", text: err }) : err,
          d.state === "pending" ? time(d.next_attempt_at, null, { relative: true }) : none("—"),
          time(d.delivered_at)],
      };
    }), { empty: "No delivery yet: no event it wants has happened." });
}

export function render(main, params) {
  const name = params[0];
  const lead = h("p", { class: "lead" });
  const msg = message();
  const parts = { def: h("div", {}, "Loading…"), del: h("div") };
  main.append(h("p", { class: "crumbs" }, h("a", { href: "#/notifiers", text: "Notifiers" })),
    heading(name, "Notifier"), lead, msg);
  let built = false, found = false;

  async function load() {
    let n;
    try {
      n = await get(BASE(name));
    } catch (e) {
      clear(parts.def, e.status === 404 ? `No notifier "${name}".` : "Cannot load: " + errorText(e));
      if (!built) main.append(parts.def);
      built = true;
      return;
    }
    found = true;
    lead.textContent = `${kindOf(n)} to ${target(n)}`;
    clear(parts.def, definition(n));
    if (!built) {
      built = true;
      main.append(section("Definition", parts.def),
        section("Deliveries", h("p", { class: "hint", text: `The newest ${LIMIT}, newest first.` }), parts.del));
    }
    loadDeliveries();
  }

  function loadDeliveries() {
    return get(BASE(name) + "/deliveries?limit=" + LIMIT)
      .then((r) => {
        clear(parts.del, deliveries(Array.isArray(r) ? r : r.deliveries || []));
        say(msg, "");
      })
      .catch((e) => say(msg, "Cannot load the deliveries: " + errorText(e), "error"));
  }

  const reload = debounce(load, 400);
  const reloadDeliveries = debounce(loadDeliveries, 500);
  const off = onEvent((ev) => {
    if (ev.type.startsWith("notifier.") && ev.subject === name) reload();
    else if (found) reloadDeliveries();
  });
  const tick = setInterval(() => { if (found) loadDeliveries(); }, 5000);
  load();
  return () => { off(); clearInterval(tick); reload.cancel(); reloadDeliveries.cancel(); };
}
