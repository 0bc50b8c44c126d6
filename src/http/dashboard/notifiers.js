// #/notifiers: every notifier (GET /api/v1/notifiers, docs/
// notifications.md) with its kind, where it sends (a webhook's URL host,
// a command's program, an email's recipients), the events it wants, the
// schedules it is limited to and where it comes from; read again when a
// notifier changes. Nothing of a notifier is shown but the keys named
// here: a secret is never in the API's answer, and a key added later is
// not shown until this page knows what it holds.
import { get, onEvent } from "./api.js";
import { sourceText } from "./calendars.js";
import { clear, debounce, enc, errorText, h, heading, message, say, table } from "./ui.js";

export const KINDS = ["webhook", "command", "email"];

export function kindOf(n) {
  return n.kind || KINDS.find((k) => n[k]) || "unknown";
}

// Where N sends: a webhook's URL host, a command's program, an email's
// recipients.
export function target(n) {
  const c = n[kindOf(n)] || {};
  switch (kindOf(n)) {
    case "webhook":
      try {
        return new URL(c.url).host;
      } catch (e) {
        return c.url || "";
      }
    case "command": return (c.argv || [])[0] || "";
    case "email": return (c.to || []).join(", ");
    default: return "";
  }
}

export function notifierLink(name) {
  return h("a", { href: "#/notifiers/" + enc(name), text: name });
}

// A list of names as code, or NONE when it is empty.
export function codes(list, none) {
  if (!list || !list.length) return h("span", { class: "none", text: none });
  return h("ul", { class: "plain" }, list.map((x) => h("li", {}, h("code", { text: x }))));
}

export function render(main) {
  const msg = message();
  const box = h("div", { class: "list" }, h("p", { class: "loading", text: "Loading…" }));
  main.append(heading("Notifiers"),
    h("p", { class: "hint", text: "Where the events you choose are sent: a webhook, a command or email, each delivery retried until it is made." }),
    msg, box);
  async function load() {
    try {
      const r = await get("/api/v1/notifiers");
      const list = Array.isArray(r) ? r : r.notifiers || [];
      clear(box, table("Notifiers", ["Name", "Kind", "Target", "Events", "Schedules", "Source"],
        list.map((n) => [notifierLink(n.name), kindOf(n), h("span", { class: "mono", text: target(n) }),
          codes(n.events, "none"), codes(n.schedules, "every schedule"), sourceText(n)]),
        { empty: "No notifier yet." }));
      say(msg, "");
    } catch (e) {
      say(msg, "Cannot load the notifiers: " + errorText(e), "error");
      clear(box);
    }
  }
  const later = debounce(load, 400);
  const off = onEvent((ev) => { if (ev.type.startsWith("notifier.")) later(); });
  load();
  return () => { off(); later.cancel(); };
}
