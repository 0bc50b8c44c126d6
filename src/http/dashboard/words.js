// A schedule's time spec in words: a cron expression as the server
// explains it (GET /api/v1/cron/explain, the engine of `sked cron
// explain`, cached by expression and zone), an interval as a duration,
// a one-time schedule as its instant.
import { get, query } from "./api.js";
import { duration } from "./ui.js";

const cache = new Map();
let unsupported = false;

// At most 4 explanations asked at once: a page of a thousand schedules
// must not open a thousand requests.
let running = 0;
const waiting = [];
function limited(fn) {
  return new Promise((resolve, reject) => {
    const go = () => {
      running++;
      fn().then(resolve, reject).finally(() => {
        running--;
        if (waiting.length) waiting.shift()();
      });
    };
    if (running < 4) go();
    else waiting.push(go);
  });
}

export function explain(expr, zone) {
  const key = expr + "\u0000" + zone;
  if (unsupported) return Promise.resolve(null);
  if (!cache.has(key)) {
    const p = limited(() => get("/api/v1/cron/explain" + query({ expr, timezone: zone, n: 0 })))
      .then((r) => r.description)
      .catch((e) => {
        if (e.status === 404 && !e.field) unsupported = true;
        cache.delete(key);
        return null;
      });
    cache.set(key, p);
  }
  return cache.get(key);
}

// The words of schedule S: a promise of a string.
export async function words(s) {
  if (s.cron) return (await explain(s.cron, s.timezone || "UTC")) || s.cron;
  if (s.every_secs != null) return "every " + duration(s.every_secs);
  if (s.at) return "once, at " + s.at;
  return "";
}

// The spec as written: "0 9 * * 1-5", "every 6h", "at T".
export function spec(s) {
  if (s.cron) return s.cron;
  if (s.every_secs != null) return "every " + duration(s.every_secs);
  return s.at ? "at " + s.at : "";
}
