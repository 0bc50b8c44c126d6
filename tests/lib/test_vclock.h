/* SPDX-License-Identifier: MIT */
/* The fixture of the engine tests that run on a virtual clock: one test
 * database (SKED_TEST_DB_URL when set, else a fresh SQLite file), a clock
 * that reads an instant the test sets, an engine opened on both, and the
 * ticks and SQL counts the tests check with. One per test program: the
 * state is the program's own. Failures end the test through cmocka. */
#ifndef SKED_TEST_VCLOCK_H
#define SKED_TEST_VCLOCK_H

#include <stddef.h>

#include "sked/engine.h"
#include "sked/sked.h"

/* Make the database of FILE's name (see sked_test_db_url) and the clock.
 * Returns 0, or -1 when no directory could be made. */
int sked_tv_init(const char *file);

/* Remove what sked_tv_init made. */
void sked_tv_done(void);

/* The database's URL. */
const char *sked_tv_url(void);

/* The instant the clock reads, and setting it. */
sked_time sked_tv_now(void);
void sked_tv_set(sked_time t);

/* The instant of the RFC 3339 text S (the test fails when it is none). */
sked_time sked_tv_time(const char *s);

/* An engine on the database and the clock; the caller closes it. */
sked_engine *sked_tv_open(void);

/* Set the clock to 2026-12-01T00:00:00Z, open an engine into *STATE and
 * empty the N TABLES ("events" names the events' own table on either
 * back-end). */
void sked_tv_setup(void **state, const char *const *tables, size_t n);

/* Close the engine of sked_tv_setup. */
int sked_tv_teardown(void **state);

/* Set the clock to AT and let E's scheduler take one step. */
void sked_tv_tick_at(sked_engine *e, const char *at);

/* The first column of the first row of SQL on the database (-1 when no
 * row; the test fails when the statement does). */
long long sked_tv_q(const char *sql);

#endif
