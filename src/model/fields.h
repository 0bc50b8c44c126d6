/* SPDX-License-Identifier: MIT */
/* What every field table of the model shares (run_fields.h,
 * step_fields.h, event_fields.h, queue_fields.h): a table is a macro
 * TABLE(F, X) calling F(member, kind, sql, json) for its first field and
 * X for each of the others, and SKED__COLUMNS(TABLE) is its SQL column
 * list, joined with ", ", for a SELECT or a RETURNING. Header only: no
 * includes needed. */
#ifndef SKED_MODEL_FIELDS_H
#define SKED_MODEL_FIELDS_H

#define SKED__COL_FIRST(m, kind, col, json) col
#define SKED__COL_NEXT(m, kind, col, json)  ", " col
#define SKED__COLUMNS(table)                table(SKED__COL_FIRST, SKED__COL_NEXT)

#endif
