// Recent events read in pages (GET /api/v1/events, oldest first): from
// the newest id (after=latest) back by a span of ids, filtered by type
// and subject on the server where it can, and here in any case.
import { get, query } from "./api.js";

export const MISSED = "schedule.occurrences_missed";

async function newestId() {
  try {
    const r = await get("/api/v1/events?after=latest");
    return r.next_cursor ? Number(r.next_cursor) : 0;
  } catch (e) {
    if (e.status === 400 || e.status === 422) return null; // an older server
    throw e;
  }
}

export function matches(ev, f) {
  if (f.type && !(ev.type === f.type || ev.type.startsWith(f.type + ".")))
    return false;
  if (f.schedule) {
    const p = ev.payload || {};
    if (ev.subject !== f.schedule && p.schedule !== f.schedule && p.name !== f.schedule)
      return false;
  }
  // Who caused it: the payload's actor, exactly.
  if (f.actor && (ev.payload || {}).actor !== f.actor) return false;
  return true;
}

// The events of the last SPAN ids matching F {type, schedule}, oldest
// first, at most MAX.
export async function recent(f, span, max) {
  const newest = await newestId();
  let after = newest === null ? 0 : Math.max(0, newest - span);
  const out = [];
  for (let pages = 0; pages < 20; pages++) {
    const r = await get("/api/v1/events" + query({
      after, limit: 1000, type: f.type, subject: f.subject,
    }));
    for (const ev of r.events) if (matches(ev, f)) out.push(ev);
    if (!r.next_cursor || r.events.length === 0) break;
    after = r.next_cursor;
  }
  return out.slice(-max);
}
