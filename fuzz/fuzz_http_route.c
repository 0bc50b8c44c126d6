/* SPDX-License-Identifier: MIT */
/* Fuzz target for the router of the HTTP API (src/http/router.c).
 *
 * The input is "METHOD PATH". Any path either names no route (404), names
 * a route of other methods (405 with a non-empty Allow), or names one
 * route whose pattern, with the {…} segments replaced by the values
 * found, gives the path back byte for byte. Any other outcome aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/http_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rebuild the path of M's route from its pattern and values into BUF. */
static void rebuild(const http_match *m, char *buf, size_t size)
{
    const char *p = m->route->pattern;
    size_t used = 0, k = 0;

    while (*p && used + 1 < size) {
        if (*p == '{') {
            const char *v = m->param[k++];
            size_t n = strlen(v);
            if (used + n >= size)
                abort();
            memcpy(buf + used, v, n);
            used += n;
            p = strchr(p, '}') + 1;
        } else {
            buf[used++] = *p++;
        }
    }
    buf[used] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[1024], back[2048];
    size_t len = size < sizeof in - 1 ? size : sizeof in - 1;
    http_match m;
    char *path;
    int rc;

    memcpy(in, data, len);
    in[len] = '\0';
    path = strchr(in, ' ');
    if (!path)
        return 0;
    *path++ = '\0';
    rc = sked__http_route(in, path, &m);
    if (rc == SKED_ENOTFOUND || rc == SKED_EMETHOD) {
        if ((rc == SKED_EMETHOD) != (m.allow[0] != '\0') || m.route)
            abort();
        return 0;
    }
    if (rc != 0 || !m.route)
        abort();
    for (size_t i = 0; i < m.nparam; i++)
        if (!m.param[i][0] || strchr(m.param[i], '/'))
            abort();
    rebuild(&m, back, sizeof back);
    if (strcmp(back, path) != 0)
        abort();
    sked__http_match_done(&m);
    return 0;
}
