// The dashboard's entry: a single page routed by the URL's hash
// (#/schedules, #/schedules/NAME, #/runs, #/runs/ID, #/events, #/queues,
// #/calendars, #/calendars/NAME, #/notifiers, #/notifiers/NAME,
// #/playground), the header's live status of the event stream, and the
// token prompt shown when the API answers 401.
import { onUnauthorized, onStreamState, setToken, startStream, token } from "./api.js";
import { clear, h } from "./ui.js";
import * as schedules from "./schedules.js";
import * as schedule from "./schedule.js";
import * as runs from "./runs.js";
import * as run from "./run.js";
import * as events from "./events.js";
import * as queues from "./queues.js";
import * as calendars from "./calendars.js";
import * as calendar from "./calendar.js";
import * as notifiers from "./notifiers.js";
import * as notifier from "./notifier.js";
import * as playground from "./playground.js";

const routes = [
  [/^\/schedules$/, schedules, "schedules"],
  [/^\/schedules\/(.+)$/, schedule, "schedules"],
  [/^\/runs$/, runs, "runs"],
  [/^\/runs\/(.+)$/, run, "runs"],
  [/^\/events$/, events, "events"],
  [/^\/queues$/, queues, "queues"],
  [/^\/calendars$/, calendars, "calendars"],
  [/^\/calendars\/(.+)$/, calendar, "calendars"],
  [/^\/notifiers$/, notifiers, "notifiers"],
  [/^\/notifiers\/(.+)$/, notifier, "notifiers"],
  [/^\/playground$/, playground, "playground"],
];

const main = document.getElementById("main");
let cleanup = null;

function route() {
  const hash = location.hash.replace(/^#/, "") || "/schedules";
  const [path, qs] = hash.split("?");
  if (cleanup) {
    try { cleanup(); } catch (e) { console.error(e); }
    cleanup = null;
  }
  for (const [re, page, nav] of routes) {
    const m = path.match(re);
    if (!m) continue;
    for (const a of document.querySelectorAll("[data-nav]"))
      if (a.dataset.nav === nav) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    const params = m.slice(1).map((s) => { try { return decodeURIComponent(s); } catch (e) { return s; } });
    clear(main);
    cleanup = page.render(main, params, new URLSearchParams(qs || "")) || null;
    const h1 = main.querySelector("h1");
    document.title = (h1 ? h1.textContent + " · " : "") + "sked";
    if (h1 && navigated) h1.focus({ preventScroll: false });
    return;
  }
  clear(main, h("h1", { tabindex: "-1", text: "Not found" }),
    h("p", {}, "No page at ", h("code", { text: hash }), ". ", h("a", { href: "#/schedules", text: "Schedules" })));
  document.title = "Not found · sked";
}

// The skip link moves the focus, not the route (the hash is the route).
document.querySelector(".skip").addEventListener("click", (e) => {
  e.preventDefault();
  main.focus();
});

let navigated = false;
window.addEventListener("hashchange", () => { navigated = true; route(); });

// ---- the token ---------------------------------------------------------

const dialog = document.getElementById("token-dialog");
const input = document.getElementById("token-input");
function openToken() {
  if (dialog.open) return;
  input.value = token();
  dialog.showModal();
  input.focus();
}
onUnauthorized(openToken);
document.getElementById("token-open").addEventListener("click", openToken);
document.getElementById("token-close").addEventListener("click", () => dialog.close());
document.getElementById("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  setToken(input.value.trim());
  dialog.close();
  startStream();
  route();
});

// ---- the stream's state ------------------------------------------------

const live = document.getElementById("live");
onStreamState((s) => {
  live.textContent = s.message;
  live.className = "live " + (s.connected ? "live-on" : "live-off");
});

if (!location.hash) history.replaceState(null, "", "#/schedules");
startStream();
route();
