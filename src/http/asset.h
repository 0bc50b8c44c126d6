/* SPDX-License-Identifier: MIT */
/* Files built into the binary (tools/embed_files.cmake): the dashboard's
 * pages, served by name from a table, never from the disk. */
#ifndef SKED_HTTP_ASSET_H
#define SKED_HTTP_ASSET_H

#include <stddef.h>

struct sked__asset {
    const char *name; /* "index.html" */
    const unsigned char *data;
    size_t len;
};

/* The dashboard's files, ending with {NULL, NULL, 0}. */
extern const struct sked__asset sked__dashboard_files[];

/* The content hash of the files but index.html (16 hex digits), which
 * index.html names its other files under: /dashboard/HASH/NAME. */
extern const char sked__dashboard_hash[];

#endif
