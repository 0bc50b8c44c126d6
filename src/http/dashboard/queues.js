// #/queues: each queue's depth, its running runs, its limits and rate
// (GET /api/v1/queues), read again as runs come and go.
import { get, onEvent } from "./api.js";
import { clear, debounce, duration, errorText, h, heading, message, say, table } from "./ui.js";

export function render(main) {
  const msg = message();
  const box = h("div", {}, h("p", { class: "loading", text: "Loading…" }));
  main.append(heading("Queues"), msg, box);
  async function load() {
    try {
      const r = await get("/api/v1/queues");
      clear(box, table("Queues", ["Queue", "Pending", "Running", "Concurrency", "Per server", "Rate"],
        r.queues.map((q) => [q.name, String(q.pending), String(q.running),
          q.concurrency ? String(q.concurrency) : "unlimited",
          q.worker_concurrency ? String(q.worker_concurrency) : "unlimited",
          q.rate_limit ? `${q.rate_limit} per ${duration(q.rate_period_secs)}` : "none"]),
        { empty: "No queue is declared: runs go to the queue \"default\"." }));
      say(msg, "");
    } catch (e) {
      say(msg, "Cannot load the queues: " + errorText(e), "error");
      clear(box);
    }
  }
  const later = debounce(load, 500);
  const off = onEvent((ev) => { if (ev.type.startsWith("run.")) later(); });
  const t = setInterval(load, 10000);
  load();
  return () => { off(); clearInterval(t); later.cancel(); };
}
