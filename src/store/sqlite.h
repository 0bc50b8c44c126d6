/* SPDX-License-Identifier: MIT */
/* The SQLite back-end. Everything goes through its method table,
 * sked__store_sqlite_ops (store_ops.h); this header only names what
 * sqlite.c exports besides. */
#ifndef SKED_STORE_SQLITE_H
#define SKED_STORE_SQLITE_H

#include "store/store_ops.h"

/* Close B and every connection of its pool. Every transaction must have
 * ended. NULL does nothing. */
void sked__sqlite_close(sked__backend *b);

#endif
