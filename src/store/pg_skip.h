/* SPDX-License-Identifier: MIT */
/* The skipped occurrences of the PostgreSQL back-end (pg_skip.c, schema
 * 0011), as the method table of store_ops.h wants them. */
#ifndef SKED_STORE_PG_SKIP_H
#define SKED_STORE_PG_SKIP_H

#include "store/store_ops.h"

int sked__pg_skip_write(sked__tx *tx, const sked_skip *k, bool *created,
                        sked_error *err);
int sked__pg_skip_delete(sked__tx *tx, const char *schedule,
                         sked_time occurrence, bool *existed, sked_error *err);
int sked__pg_skips_read(sked__tx *tx, const char *const *names, size_t n,
                        sked_skip **out, size_t *nout, sked_error *err);

#endif
