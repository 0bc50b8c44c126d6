// A schedule's time spec in words: a cron expression or an RRULE as the
// server says it (the schedule's cron_words or rrule_words, the engine of
// `sked cron explain`, served with the schedule itself, so that a page of a thousand
// schedules asks nothing more), an interval as a duration, a one-time
// schedule as its instant.
import { duration } from "./ui.js";

// The words of schedule S; the expression itself when it has none.
export function words(s) {
  if (s.cron) return s.cron_words || s.cron;
  if (s.rrule) return s.rrule_words || s.rrule;
  if (s.every_secs != null) return "every " + duration(s.every_secs);
  if (s.at) return "once, at " + s.at;
  return "";
}

// The spec as written: "0 9 * * 1-5", "FREQ=DAILY", "every 6h", "at T".
export function spec(s) {
  if (s.cron) return s.cron;
  if (s.rrule) return s.rrule;
  if (s.every_secs != null) return "every " + duration(s.every_secs);
  return s.at ? "at " + s.at : "";
}

// What a schedule does on a day of its exclude calendars (on_excluded).
export const ON_EXCLUDED = {
  skip: "skipped (no run that day)",
  next_business_day: "the next business day",
  previous_business_day: "the previous business day",
};
export function onExcludedText(v) {
  return ON_EXCLUDED[v || "skip"] || String(v);
}
