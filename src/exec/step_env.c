/* SPDX-License-Identifier: MIT */
/* A step's environment (step_env.h).
 *
 * The base, for every command: PATH (SKED_STEP_PATH), HOME, USER and
 * LOGNAME of the user it runs as (from the user database, as cron and
 * systemd set them; HOME=/ when unknown), SHELL=/bin/sh (cron's), and the
 * server's LANG and TZ when it has them (how the host reads text and
 * time, not a secret). Each later source replaces a key the earlier ones
 * set, so env_inherit can bring the server's PATH, and a step's env can
 * set anything but the run variables. */
#define _GNU_SOURCE /* getpwnam_r, getpwuid_r */
#include "exec/step_env.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "sked/error.h"

/* The server's variables the base copies when set. */
static const char *const copied[] = {"LANG", "TZ", NULL};

/* An environment being built: owned strings, each key once. */
typedef struct envb {
    char **v;
    size_t n, cap;
    bool nomem;
} envb;

/* Length of the key of "K=V" (all of S when it has no '='). */
static size_t key_len(const char *s)
{
    const char *eq = strchr(s, '=');
    return eq ? (size_t) (eq - s) : strlen(s);
}

static bool same_key(const char *kv, const char *key, size_t klen)
{
    return key_len(kv) == klen && strncmp(kv, key, klen) == 0;
}

/* Put a copy of KV ("K=V") into B, replacing the same key. */
static void put(envb *b, const char *kv)
{
    size_t klen = key_len(kv);
    char *c;

    if (b->nomem || kv[klen] != '=' || klen == 0)
        return;
    if (!(c = sked__strdup(kv))) {
        b->nomem = true;
        return;
    }
    for (size_t i = 0; i < b->n; i++)
        if (same_key(b->v[i], kv, klen)) {
            free(b->v[i]);
            b->v[i] = c;
            return;
        }
    if (b->n + 1 >= b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 32;
        char **v = sked__realloc(b->v, cap * sizeof *v);
        if (!v) {
            free(c);
            b->nomem = true;
            return;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = c;
}

/* Put KEY=VALUE into B. */
static void put2(envb *b, const char *key, const char *value)
{
    size_t len = strlen(key) + strlen(value) + 2;
    char *kv = sked__malloc(len);

    if (!kv) {
        b->nomem = true;
        return;
    }
    (void) snprintf(kv, len, "%s=%s", key, value);
    put(b, kv);
    free(kv);
}

static bool listed(const char *const *names, const char *key, size_t klen)
{
    for (size_t i = 0; names && names[i]; i++)
        if (strlen(names[i]) == klen && strncmp(names[i], key, klen) == 0)
            return true;
    return false;
}

static bool is_sked_own(const char *key)
{
    return strncmp(key, SKED_ENV_PREFIX, strlen(SKED_ENV_PREFIX)) == 0;
}

static void put_base(envb *b, const sked_step_env_in *in)
{
    put2(b, "PATH", SKED_STEP_PATH);
    put2(b, "HOME", in->home && in->home[0] ? in->home : "/");
    if (in->user && in->user[0]) {
        put2(b, "USER", in->user);
        put2(b, "LOGNAME", in->user);
    }
    put2(b, "SHELL", "/bin/sh");
    for (size_t i = 0; in->server && in->server[i]; i++) {
        const char *kv = in->server[i];
        if (listed(copied, kv, key_len(kv)))
            put(b, kv);
    }
}

int sked__step_env_compose(const sked_step_env_in *in, char ***out)
{
    envb b = {0};

    put_base(&b, in);
    for (size_t i = 0; in->server && in->server[i]; i++) {
        const char *kv = in->server[i];
        if (!is_sked_own(kv) &&
            (in->inherit_all || listed(in->inherit, kv, key_len(kv))))
            put(&b, kv);
    }
    for (size_t i = 0; in->step && in->step[i]; i++)
        put(&b, in->step[i]);
    for (size_t i = 0; in->run && in->run[i]; i++)
        put(&b, in->run[i]);
    if (b.nomem) {
        if (b.v)
            b.v[b.n] = NULL;
        sked__step_env_free(b.v);
        return SKED_ENOMEM;
    }
    b.v[b.n] = NULL; /* put leaves room for it; the base is never empty */
    *out = b.v;
    return 0;
}

void sked__step_env_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

const char *sked__step_env_inherit_problem(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    if (n == 0 || n > SKED_ENV_NAME_MAX)
        return "must be a variable name of 1 to 128 bytes";
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = c == '_' || (c >= 'A' && c <= 'Z') ||
                  (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9');
        if (!ok)
            return "must be a variable name: letters, digits and '_', not "
                   "starting with a digit";
    }
    if (is_sked_own(name))
        return "sked's own variables (SKED_*) are never passed to steps";
    return NULL;
}

int sked__step_env_who(const char *user, char *name, size_t name_size,
                       char *home, size_t home_size)
{
    struct passwd pw, *found = NULL;
    char buf[4096];

    name[0] = home[0] = '\0';
    if (user)
        (void) getpwnam_r(user, &pw, buf, sizeof buf, &found);
    else
        (void) getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found);
    if (!found)
        return -1;
    (void) snprintf(name, name_size, "%s", found->pw_name);
    (void) snprintf(home, home_size, "%s", found->pw_dir);
    return 0;
}
