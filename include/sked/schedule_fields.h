/* SPDX-License-Identifier: MIT */
/* The fields of a schedule, in one table (SPEC 3, 6, 7, 10).
 *
 * SKED_SCHEDULE_FIELDS is the one list of a schedule's fields. Everything
 * that names them is generated from it: the members of sked_schedule,
 * its defaults, copy and release, the checks of sked_schedule_validate
 * that are a matter of ranges, the API's JSON both ways and its OpenAPI
 * schema, the keys of a schedule in the workflows file, the options of
 * "sked schedule create/update" and their --help lines, and the columns
 * both store back-ends bind and read. A field that needs no logic of its
 * own is added here, with a migration per back-end and its docs.
 *
 * A row is X(member, KIND, ctype, enum, ROLE, sql, json, yaml, cli,
 * bounds, default, help, description):
 *   member       the member of sked_schedule, and the field's name in
 *                validation errors;
 *   KIND         how the value is read, written and checked: NAME (a name,
 *                required when bounds' low is 1), STR (free text of at
 *                most bounds' high bytes, 0: any), CRON, EVERY, AT and
 *                RRULE (the four time specs, checked together), INSTANT, DUR
 * (µs, seconds in JSON), I32, I64, BOOL (0 or 1), ENUM (stored and written as
 * its name), CONTEXT (a JSON object), PAUSED (the status seen as a boolean),
 * WORDS (the cron expression or the RRULE in words, as "sked cron explain" says
 * them; shown, never read); ctype        its C type; enum         for an ENUM,
 * the enumeration's short name (its names are the model's); else "_"; ROLE KEY
 * (the definition's name, the table's key), DEF (the definition), INTERNAL
 * (kept, never shown: the spec's kind), REQUEST (a flag of one write, never
 * stored), VIEW (another face of a stored field, no member), STATE (kept by the
 * scheduler, read-only in the API), CREATED (state written once, by the
 * insert); sql          its column (NULL: not stored); json         its API key
 * (NULL: none); yaml         its key in the workflows file (NULL: none); cli
 * its option, without "--" (NULL: none); bounds       (low, high, what 0 means
 * or NULL): the range the checks enforce, in the C unit (µs for DUR, bytes for
 * STR); default      its value after sked_schedule_init; for strings, what NULL
 * stands for when stored (NULL: nothing); help         its lines of "sked
 * schedule create/update --help" ("" for an option each command lists itself);
 *   description  one line, for the OpenAPI schema.
 * The order of the rows is the order of the API's JSON keys. */
#ifndef SKED_SCHEDULE_FIELDS_H
#define SKED_SCHEDULE_FIELDS_H

/* clang-format off */
#define SKED_SCHEDULE_FIELDS(X)                                                \
    X(name, NAME, char *, _, KEY, "name", "name", "name", "name",             \
      (1, SKED_NAME_MAX, NULL), NULL, "",                                      \
      "unique name: letters, digits, '.', '_' and '-'")                        \
    X(workflow, NAME, char *, _, DEF, "workflow", "workflow", "workflow",      \
      "workflow", (0, SKED_NAME_MAX, NULL), NULL, "",                          \
      "the workflow each run starts (a heartbeat's: its name by default)")                                          \
    X(kind, ENUM, sked_spec_kind, kind, INTERNAL, "kind", NULL, NULL, NULL,    \
      (0, 3, NULL), SKED_SPEC_CRON, "", "which time spec it has")              \
    X(cron, CRON, char *, _, DEF, "cron", "cron", "cron", "cron",              \
      (0, 0, NULL), NULL, "",                                                  \
      "a cron expression (one of cron, every, at, rrule)")    \
    X(cron_words, WORDS, char *, _, VIEW, NULL, "cron_words", NULL, NULL,      \
      (0, 0, NULL), NULL, "",                                                  \
      "the cron expression in words, without the zone (null: no cron)")        \
    X(every, EVERY, sked_dur, _, DEF, "every_us", "every_secs", "every",       \
      "every", (SKED_EVERY_MIN, SKED_EVERY_MAX, NULL), 0,                      \
      "  --every D            an interval schedule: every D (1s to 366d)\n",   \
      "an interval, in seconds (one of cron, every, at, rrule)")               \
    X(calendar_days, BOOL, int32_t, _, DEF, "calendar_days", "calendar_days",  \
      "calendar_days", "calendar-days", (0, 1, NULL), 0,                       \
      "  --calendar-days      with --every in whole days: keep the local\n"    \
      "                       time of the anchor across DST\n",                \
      "with every in whole days: the anchor's local time every N days")        \
    X(anchor, INSTANT, sked_time, _, DEF, "anchor_at", "anchor", "anchor",     \
      "anchor", (SKED_TIME_MIN, SKED_TIME_MAX, NULL), SKED_TIME_NONE,          \
      "  --anchor T           with --every: occurrences are T + k*D\n"         \
      "                       (default: the creation time)\n",                \
      "with every: occurrences are anchor + k * every")                        \
    X(at, AT, sked_time, _, DEF, "at", "at", "at", "at",                       \
      (SKED_TIME_MIN, SKED_TIME_MAX, NULL), SKED_TIME_NONE,                    \
      "  --at T               a one-time schedule at the RFC 3339 instant T\n",\
      "the one instant of a one-time schedule (one of cron, every, at)")       \
    X(rrule, RRULE, char *, _, DEF, "rrule", "rrule", "rrule", "rrule",        \
      (0, 0, NULL), NULL,                                                      \
      "  --rrule R            an RFC 5545 rule, bare or after a DTSTART\n"      \
      "                       line (one of cron, every, at, rrule)\n",         \
      "an RFC 5545 recurrence rule (one of cron, every, at, rrule)")           \
    X(rrule_words, WORDS, char *, _, VIEW, NULL, "rrule_words", NULL, NULL,    \
      (0, 0, NULL), NULL, "",                                                  \
      "the RRULE in words, with the times its start fills in (null: no "      \
      "rrule)")                                                                \
    X(timezone, STR, char *, _, DEF, "timezone", "timezone", "timezone",       \
      "timezone", (0, 0, NULL), "UTC",                                         \
      "  --timezone TZ        IANA zone of the expression (default UTC)\n",    \
      "IANA time zone of the expression")                                      \
    X(dst, ENUM, sked_dst, dst, DEF, "dst", "dst", "dst", "dst",               \
      (0, SKED_DST_COUNT - 1, NULL), SKED_DST_ONCE,                            \
      "  --dst P              DST policy: once (default), cadence, or a\n"     \
      "                       skipped time's shift|skip and a repeated\n"      \
      "                       one's first|last|both (\"skip,both\")\n",        \
      "what a daylight saving change does: once, cadence, or GAP,FOLD")        \
    X(exclude, CALS, char *, _, DEF, "exclude_cals", "exclude", "exclude",     \
      "exclude", (0, SKED_SCHEDULE_CALENDARS_MAX, NULL), NULL,                 \
      "  --exclude CAL,...    no occurrence on the days of these calendars\n", \
      "calendars whose days have no occurrence (on_excluded says what "        \
      "happens instead)")                                                      \
    X(only, CALS, char *, _, DEF, "only_cals", "only", "only", "only",         \
      (0, SKED_SCHEDULE_CALENDARS_MAX, NULL), NULL,                            \
      "  --only CAL,...       occurrences only on the days of these calendars\n"\
      , "calendars outside whose days there is no occurrence")                 \
    X(on_excluded, ENUM, sked_on_excluded, on_excluded, DEF, "on_excluded",    \
      "on_excluded", "on_excluded", "on-excluded", (0, 2, NULL),               \
      SKED_ON_EXCLUDED_SKIP,                                                   \
      "  --on-excluded P      skip (default), next_business_day or\n"          \
      "                       previous_business_day: where an excluded\n"      \
      "                       occurrence goes, at its time of day\n",          \
      "what an excluded occurrence does: skip, or move to the next or "        \
      "previous business day at its time of day")                              \
    X(calendar_words, WORDS, char *, _, VIEW, NULL, "calendar_words", NULL,    \
      NULL, (0, 0, NULL), NULL, "",                                            \
      "the calendars in words, with what an excluded day does (null: none)")   \
    X(context, CONTEXT, char *, _, DEF, "context", "context", "context",       \
      "context", (0, SKED_CONTEXT_MAX, NULL), "{}",                            \
      "  --context JSON       a JSON object handed to each run\n",             \
      "a JSON object handed to each run")                                      \
    X(catchup, ENUM, sked_catchup, catchup, DEF, "catchup", "catchup",         \
      "catchup", "catchup", (0, 2, NULL), SKED_CATCHUP_LATEST,                 \
      "  --catchup P          skip, latest (default) or all\n",                \
      "what fires of the occurrences missed")                                  \
    X(catchup_max, I32, int32_t, _, DEF, "catchup_max", "catchup_max",         \
      "catchup_max", "catchup-max", (1, SKED_CATCHUP_MAX_LIMIT, NULL),         \
      SKED_CATCHUP_MAX_DEFAULT,                                                \
      "  --catchup-max N      late occurrences fired with catchup all,\n"      \
      "                       1 to 1000 (default 10)\n",                       \
      "late occurrences fired with catchup all")                               \
    X(catchup_window, DUR, sked_dur, _, DEF, "catchup_window_us",              \
      "catchup_window_secs", "catchup_window", "catchup-window",               \
      (SKED_CATCHUP_WINDOW_MIN, SKED_CATCHUP_WINDOW_MAX, NULL),                \
      SKED_CATCHUP_WINDOW_DEFAULT,                                             \
      "  --catchup-window D   oldest late occurrence that still fires,\n"      \
      "                       60s to 30d, seconds or a duration (default 1d)\n"\
      , "oldest late occurrence that still fires, in seconds")                 \
    X(overlap, ENUM, sked_overlap, overlap, DEF, "overlap", "overlap",         \
      "overlap", "overlap", (0, 4, NULL), SKED_OVERLAP_ALLOW,                  \
      "  --overlap P          allow (default), skip, buffer_one, buffer_all\n" \
      "                       or cancel_other\n",                              \
      "what an occurrence does while a run of the schedule is active")         \
    X(priority, I32, int32_t, _, DEF, "priority", "priority", "priority",      \
      "priority", (INT32_MIN, INT32_MAX, NULL), 0,                             \
      "  --priority N         lower runs first (default 0)\n",                 \
      "priority of its runs: lower runs first")                                \
    X(queue, NAME, char *, _, DEF, "queue", "queue", "queue", "queue",         \
      (0, SKED_NAME_MAX, NULL), NULL,                                          \
      "  --queue Q            the queue of its runs (default: the workflow's)\n"\
      , "the queue of its runs (null: the workflow's)")                        \
    X(jitter, DUR, sked_dur, _, DEF, "jitter_us", "jitter_secs", "jitter",     \
      "jitter", (0, SKED_JITTER_MAX, NULL), 0,                                 \
      "  --jitter D           delay each run by up to D, 0 to 1h\n",           \
      "delay each run by up to this many seconds")                             \
    X(paused, PAUSED, int32_t, _, VIEW, NULL, "paused", "paused", "paused",    \
      (0, 1, NULL), 0, "", "whether the status is paused")                     \
    X(automatic_backfill, BOOL, int32_t, _, DEF, "automatic_backfill",         \
      "automatic_backfill", "automatic_backfill", "automatic-backfill",        \
      (0, 1, NULL), 0,                                                         \
      "  --automatic-backfill catchup all, max 1000, window 30d\n",            \
      "catch up everything missed: catchup all, max 1000, window 30 days")     \
    X(start_at, INSTANT, sked_time, _, DEF, "start_at", "start_at",            \
      "start_at", "start-at", (SKED_TIME_MIN, SKED_TIME_MAX, NULL),            \
      SKED_TIME_NONE, "  --start-at T         no occurrence before T\n",       \
      "no occurrence before this instant")                                     \
    X(end_at, INSTANT, sked_time, _, DEF, "end_at", "end_at", "end_at",        \
      "end-at", (SKED_TIME_MIN, SKED_TIME_MAX, NULL), SKED_TIME_NONE,          \
      "  --end-at T           no occurrence after T\n",                        \
      "no occurrence after this instant")                                      \
    X(max_runs, I64, int64_t, _, DEF, "max_runs", "max_runs", "max_runs",      \
      "max-runs", (0, INT64_MAX, "no limit"), 0,                               \
      "  --max-runs N         done after N runs (0: no limit)\n",              \
      "done after this many runs (0: no limit)")                               \
    X(pause_after_failures, I32, int32_t, _, DEF, "pause_after_failures",      \
      "pause_after_failures", "pause_after_failures", "pause-after-failures",   \
      (0, INT32_MAX, "never"), 0,                                              \
      "  --pause-after-failures N  pause after N failed runs in a row\n",      \
      "pause after this many failed runs in a row (0: never)")                 \
    X(deadline, DUR, sked_dur, _, DEF, "deadline_us", "deadline_secs",         \
      "deadline", "deadline", (0, SKED_DEADLINE_MAX, "none"), 0,               \
      "  --deadline D         each run must complete within D of its\n"        \
      "                       occurrence (0: none; up to 30d)\n",              \
      "each run must complete within this many seconds of its occurrence "     \
      "(0: none)")                                                             \
    X(start_deadline, DUR, sked_dur, _, DEF, "start_deadline_us",              \
      "start_deadline_secs", "start_deadline", "start-deadline",               \
      (0, SKED_DEADLINE_MAX, "none"), 0,                                       \
      "  --start-deadline D   each run must start within D of its\n"           \
      "                       occurrence (0: none)\n",                         \
      "each run must start within this many seconds of its occurrence "        \
      "(0: none)")                                                             \
    X(heartbeat, BOOL, int32_t, _, DEF, "heartbeat", "heartbeat", "heartbeat", \
      "heartbeat", (0, 1, NULL), 0,                                            \
      "  --heartbeat          start nothing: expect a ping (sked ping) for\n"  \
      "                       each occurrence within --deadline\n",            \
      "start nothing: each occurrence expects a ping within deadline")         \
    X(description, STR, char *, _, DEF, "description", "description",         \
      "description", "description", (0, SKED_DESCRIPTION_MAX, NULL), NULL,     \
      "  --description S      free text\n", "free text")                       \
    X(notes, STR, char *, _, DEF, "notes", "notes", "notes", "notes",         \
      (0, 4096, NULL), NULL,                                                   \
      "  --notes S            free text for the people who run it, at most\n" \
      "                       4 KiB\n",                                        \
      "free text for the people who run it, at most 4 KiB")                    \
    X(allow_past, BOOL, int32_t, _, REQUEST, NULL, "allow_past",               \
      "allow_past", "allow-past", (0, 1, NULL), 0,                             \
      "  --allow-past         with --at: accept a T already past (it fires\n"  \
      "                       at once)\n",                                     \
      "accept an at already past (it fires at once); not stored")              \
    X(status, ENUM, sked_schedule_status, status, STATE, "status", "status",   \
      NULL, NULL, (0, 3, NULL), SKED_SCHEDULE_ACTIVE, "",                      \
      "active, paused, disabled (no longer loads) or done")                    \
    X(source, ENUM, sked_source, source, STATE, "source", "source", NULL,      \
      NULL, (0, 1, NULL), SKED_SOURCE_API, "",                                 \
      "api, or code: declared by a program or the workflows file")             \
    X(app, STR, char *, _, STATE, "app", "app", NULL, NULL, (0, 0, NULL),      \
      NULL, "", "the app a code schedule belongs to")                          \
    X(next_fire_at, INSTANT, sked_time, _, STATE, "next_fire_at",              \
      "next_fire_at", NULL, NULL, (SKED_TIME_MIN, SKED_TIME_MAX, NULL),        \
      SKED_TIME_NONE, "", "its next occurrence (null: none)")                  \
    X(last_fired_at, INSTANT, sked_time, _, STATE, "last_fired_at",            \
      "last_fired_at", NULL, NULL, (SKED_TIME_MIN, SKED_TIME_MAX, NULL),       \
      SKED_TIME_NONE, "", "the last occurrence it fired")                      \
    X(last_error, STR, char *, _, STATE, "last_error", "last_error", NULL,     \
      NULL, (0, 0, NULL), NULL, "", "why it was disabled, or null")            \
    X(runs_created, I64, int64_t, _, STATE, "runs_created", "runs_created",    \
      NULL, NULL, (INT64_MIN, INT64_MAX, NULL), 0, "",                         \
      "runs created by firing, for max_runs")                                  \
    X(consecutive_failures, I32, int32_t, _, STATE, "consecutive_failures",    \
      "consecutive_failures", NULL, NULL, (INT32_MIN, INT32_MAX, NULL), 0, "", \
      "failed runs in a row, for pause_after_failures")                        \
    X(deadline_check_at, INSTANT, sked_time, _, STATE, "deadline_check_at",    \
      NULL, NULL, NULL, (SKED_TIME_MIN, SKED_TIME_MAX, NULL), SKED_TIME_NONE,  \
      "", "the earliest deadline of its runs still to check")                  \
    X(deadlines_missed, I64, int64_t, _, STATE, "deadlines_missed",            \
      "deadlines_missed", NULL, NULL, (0, INT64_MAX, NULL), 0, "",             \
      "deadlines its runs missed")                                             \
    X(last_deadline_missed, INSTANT, sked_time, _, STATE,                      \
      "last_deadline_missed_at", "last_deadline_missed_at", NULL, NULL,        \
      (SKED_TIME_MIN, SKED_TIME_MAX, NULL), SKED_TIME_NONE, "",                \
      "the occurrence whose run last missed a deadline (null: none)")          \
    X(created_at, INSTANT, sked_time, _, CREATED, "created_at", "created_at",  \
      NULL, NULL, (SKED_TIME_MIN, SKED_TIME_MAX, NULL), SKED_TIME_NONE, "",    \
      "when it was created")                                                   \
    X(updated_at, INSTANT, sked_time, _, STATE, "updated_at", "updated_at",    \
      NULL, NULL, (SKED_TIME_MIN, SKED_TIME_MAX, NULL), SKED_TIME_NONE, "",    \
      "when its definition or state last changed")
/* clang-format on */

#endif
