/* SPDX-License-Identifier: MIT */
/* Who may do what (http_int.h): the paths that need a token, the token a
 * request presents, and the scope each route needs.
 *
 * Only the SHA-256 of each secret is kept. A presented token is hashed
 * once and compared with every token's hash in full, so the time taken
 * tells neither which token matched nor how much of one did. */
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "http/http_int.h"
#include "http/mcp_http.h"

static const char *const scope_names[] = {
    [SKED_SCOPE_READ] = "read",
    [SKED_SCOPE_OPERATE] = "operate",
    [SKED_SCOPE_ADMIN] = "admin",
};

const char *sked__scope_name(sked_scope s)
{
    return s >= SKED_SCOPE_READ && s <= SKED_SCOPE_ADMIN ? scope_names[s] : "?";
}

int sked__scope_parse(const char *s, sked_scope *out)
{
    for (int i = SKED_SCOPE_READ; i <= SKED_SCOPE_ADMIN; i++)
        if (strcmp(s, scope_names[i]) == 0) {
            *out = (sked_scope) i;
            return 0;
        }
    return SKED_EINVAL;
}

void sked__token_hash(const char *secret, size_t len, unsigned char out[32])
{
    (void) SHA256((const unsigned char *) secret, len, out);
}

bool sked__http_guarded(const char *path)
{
    return strncmp(path, "/api/", 5) == 0 || strcmp(path, "/metrics") == 0 ||
           sked__mcp_http_path(path);
}

const sked_http_token *sked__http_token_find(const sked_http_token *tokens,
                                             size_t n, const char *auth)
{
    const sked_http_token *found = NULL;
    unsigned char h[32];

    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
        return NULL;
    auth += 7;
    sked__token_hash(auth, strlen(auth), h);
    for (size_t i = 0; i < n; i++) {
        bool same = CRYPTO_memcmp(h, tokens[i].sha256, sizeof h) == 0;

        if (same && !found)
            found = &tokens[i];
    }
    return found;
}

sked_scope sked__http_route_scope(const http_route *r)
{
    if (r->scope)
        return r->scope;
    return strcmp(r->method, "GET") == 0 ? SKED_SCOPE_READ : SKED_SCOPE_ADMIN;
}
