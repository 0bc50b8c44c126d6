/* SPDX-License-Identifier: MIT */
/* The event's field table: every column of an event as a sked_event holds
 * it, once, with its member, its kind, its SQL column and its JSON key.
 * From it come the column list the back-ends select (SKED__EVENT_COLUMNS),
 * the column numbers, the one reading of a row (store/store_row.c) and the
 * freeing of a sked_event (store/store.c).
 *
 * SKED__EVENT_FIELDS(F, X) calls F for the first field and X for each of
 * the others, as SKED__RUN_FIELDS does (run_fields.h). Kinds: I64, TEXT
 * (a string), DOC (text holding a JSON object) and TIME (an instant).
 * Header only. */
#ifndef SKED_MODEL_EVENT_FIELDS_H
#define SKED_MODEL_EVENT_FIELDS_H

#include "model/fields.h"

#define SKED__EVENT_FIELDS(F, X)                                               \
    F(id, I64, "id", "id")                                                     \
    X(type, TEXT, "type", "type")                                              \
    X(subject, TEXT, "subject", "subject")                                     \
    X(payload, DOC, "payload", "payload")                                      \
    X(at, TIME, "at", "at")

/* The column numbers of a row read as SKED__EVENT_COLUMNS, and their
 * count. */
#define SKED__EVENT_COL_ENUM(m, kind, col, json) SKED__EVENT_COL_##m,
enum {
    SKED__EVENT_FIELDS(SKED__EVENT_COL_ENUM, SKED__EVENT_COL_ENUM)
        SKED__EVENT_NCOLUMNS
};
#undef SKED__EVENT_COL_ENUM

/* The columns of an event, in the table's order, for a SELECT. */
#define SKED__EVENT_COLUMNS SKED__COLUMNS(SKED__EVENT_FIELDS)

#endif
