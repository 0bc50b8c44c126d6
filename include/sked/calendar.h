/* SPDX-License-Identifier: MIT */
/* Calendars: named, shared sets of days (SPEC 12, docs/calendars.md).
 *
 * A calendar is the union of explicit dates, RFC 5545 recurrence rules
 * expanded on days ("FREQ=YEARLY;BYMONTH=11;BYDAY=4TH"), the days of an
 * iCalendar file's events, and other calendars it includes. An observed
 * rule adds, beside a day that falls on a weekend, the weekday it is
 * observed on (nearest_weekday: Saturday on Friday, Sunday on Monday;
 * next_monday: both on Monday). Its business weekdays (Monday to Friday
 * unless it says otherwise) are the days a schedule moved off an
 * excluded day may land on.
 *
 * sked_calendar is a plain struct the caller owns, like sked_schedule:
 * fill it after sked_calendar_init, release it with sked_calendar_done;
 * its strings and lists are owned by it. */
#ifndef SKED_CALENDAR_H
#define SKED_CALENDAR_H

#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"
#include "sked/schedule.h"
#include "sked/time.h"

/* Bounds a definition is checked against. */
#define SKED_CALENDAR_LIST_MAX 1000      /* dates, rules or includes */
#define SKED_CALENDAR_ICS_MAX  (1 << 20) /* bytes of an iCalendar file */

/* A list of owned strings. */
typedef struct sked_strlist {
    char **v; /* n strings, each owned */
    size_t n;
} sked_strlist;

typedef enum sked_observed {
    SKED_OBSERVED_NONE = 0,
    SKED_OBSERVED_NEAREST_WEEKDAY = 1, /* Saturday → Friday, Sunday → Monday */
    SKED_OBSERVED_NEXT_MONDAY = 2,     /* Saturday, Sunday → Monday */
} sked_observed;

/* Bit N of a weekday set is weekday N, 0 = Sunday … 6 = Saturday. */
#define SKED_WEEKDAYS_MON_FRI 0x3eu

/* The fields of a calendar, in one table: X(member, KIND, ROLE, json,
 * yaml, cli, help, description). KIND: NAME, STR (free text), TEXT (an
 * iCalendar file's content; the CLI reads it from a file), LIST (strings),
 * OBSERVED, WEEKDAYS (names "mon" … "sun"), SOURCE, INSTANT. ROLE: KEY,
 * DEF (the definition a request gives), STATE (kept by the store). The
 * order of the rows is the order of the API's JSON keys. */
/* clang-format off */
#define SKED_CALENDAR_FIELDS(X)                                                \
    X(name, NAME, KEY, "name", "name", "name", "",                            \
      "unique name: letters, digits, '.', '_' and '-'")                        \
    X(description, STR, DEF, "description", "description", "description",     \
      "  --description S      free text\n", "free text")                       \
    X(dates, LIST, DEF, "dates", "dates", "date",                              \
      "  --date YYYY-MM-DD    a day of the calendar (repeatable)\n",           \
      "days of the calendar, YYYY-MM-DD")                                      \
    X(rules, LIST, DEF, "rules", "rules", "rule",                              \
      "  --rule RRULE         an RFC 5545 rule of days, e.g.\n"                \
      "                       FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25\n"          \
      "                       (repeatable)\n",                                 \
      "RFC 5545 recurrence rules whose days are in the calendar")             \
    X(include, LIST, DEF, "include", "include", "include",                     \
      "  --include CAL        every day of calendar CAL too (repeatable)\n",   \
      "other calendars whose days are in this one")                            \
    X(ics, TEXT, DEF, "ics", "ics", "ics",                                     \
      "  --ics FILE           the days of an iCalendar file's events\n",       \
      "an iCalendar file's text: its events' days are in the calendar")        \
    X(observed, OBSERVED, DEF, "observed", "observed", "observed",             \
      "  --observed R         none (default), nearest_weekday or\n"            \
      "                       next_monday: a weekend day is also\n"            \
      "                       observed on that weekday\n",                     \
      "where a day on a weekend is also observed")                             \
    X(weekdays, WEEKDAYS, DEF, "weekdays", "weekdays", "weekdays",             \
      "  --weekdays LIST      business weekdays (default mon,tue,wed,thu,fri)\n"\
      , "the weekdays that are business days")                                 \
    X(source, SOURCE, STATE, "source", NULL, NULL, "",                        \
      "api, or code for a calendar of a workflows file")                       \
    X(app, STR, STATE, "app", NULL, NULL, "",                                  \
      "the app whose workflows file declares it (null: none)")                 \
    X(created_at, INSTANT, STATE, "created_at", NULL, NULL, "",                \
      "when it was created")                                                   \
    X(updated_at, INSTANT, STATE, "updated_at", NULL, NULL, "",                \
      "when its definition last changed")
/* clang-format on */

#define SKED__CALENDAR_CTYPE_NAME     char *
#define SKED__CALENDAR_CTYPE_STR      char *
#define SKED__CALENDAR_CTYPE_TEXT     char *
#define SKED__CALENDAR_CTYPE_LIST     sked_strlist
#define SKED__CALENDAR_CTYPE_OBSERVED sked_observed
#define SKED__CALENDAR_CTYPE_WEEKDAYS unsigned
#define SKED__CALENDAR_CTYPE_SOURCE   sked_source
#define SKED__CALENDAR_CTYPE_INSTANT  sked_time
#define SKED__CALENDAR_MEMBER(member, kind, ...)                               \
    SKED__CALENDAR_CTYPE_##kind member;

/* weekdays: 0 stands for SKED_WEEKDAYS_MON_FRI. */
typedef struct sked_calendar {
    SKED_CALENDAR_FIELDS(SKED__CALENDAR_MEMBER)
} sked_calendar;

/* Fill *c with nothing set: no days, observed none, Monday to Friday,
 * source api, instants NONE. */
SKED_API void sked_calendar_init(sked_calendar *c);

/* Free what *c owns and reset it; NULL does nothing. */
SKED_API void sked_calendar_done(sked_calendar *c);

/* Deep-copy SRC into *out. Returns 0 or SKED_ENOMEM (*out untouched). */
SKED_API int sked_calendar_copy(const sked_calendar *src, sked_calendar *out);

/* Check the fields of C that need no other calendar: the name, the
 * bounds of each list, every date, rule and the iCalendar text (each
 * error names "dates[i]", "rules[i]" or "ics" and the position), the
 * weekdays (at least one). The includes are checked when it is written,
 * against the calendars stored then (unknown names, cycles). Returns 0
 * or SKED_EINVAL. */
SKED_API int sked_calendar_validate(const sked_calendar *c, sked_error *err);

/* The names of the observed rules ("none", "nearest_weekday",
 * "next_monday"), and their parse (SKED_EINVAL naming FIELD). */
SKED_API const char *sked_observed_name(sked_observed o);
SKED_API int sked_observed_parse(const char *s, const char *field,
                                 sked_observed *out, sked_error *err);

/* Parse a weekday set: names "sun", "mon", … "sat" (or full names, any
 * case) and ranges "mon-fri", separated by commas. SKED_EINVAL naming
 * FIELD and the position of the bad word. */
SKED_API int sked_weekdays_parse(const char *s, const char *field,
                                 unsigned *out, sked_error *err);

/* Days of a calendar are dates "YYYY-MM-DD" from 1970-01-01 to
 * 2200-12-31, counted as days since 1970-01-01. Parse S (SKED_EINVAL or
 * SKED_ERANGE naming FIELD and the position), or write DAY into BUF
 * (SIZE >= 11; returns the length, or 0 when it does not fit). */
SKED_API int sked_date_parse(const char *s, const char *field, int64_t *out,
                             sked_error *err);
SKED_API size_t sked_date_format(int64_t day, char *buf, size_t size);

#endif
