/* SPDX-License-Identifier: MIT */
/* What a command runs and as whom (proc_who.h): a PATH search done as
 * execvp would, but in the command's own environment (never the
 * server's), and a user's ids and groups read with the reentrant
 * getpwnam_r and getgrouplist, since the server has threads. */
/* For getgrouplist. */
#define _GNU_SOURCE
#include "exec/proc_who.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"

/* execvp's default, when the command's environment has no PATH. */
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* Return the value of PATH in ENV, or execvp's default. */
static const char *env_path(const char *const *env)
{
    for (; env && *env; env++)
        if (strncmp(*env, "PATH=", 5) == 0)
            return *env + 5;
    return DEFAULT_PATH;
}

/* Look for NAME in the LEN bytes at DIR, into BUF. Return 0 when it is an
 * executable regular file, EACCES when it exists but cannot be run, else
 * ENOENT. */
static int try_dir(const char *dir, size_t len, const char *name, char *buf,
                   size_t size)
{
    size_t nlen = strlen(name);
    struct stat st;

    if (len + 1 + nlen >= size)
        return ENOENT;
    memcpy(buf, dir, len);
    buf[len] = '/';
    memcpy(buf + len + 1, name, nlen + 1);
    if (stat(buf, &st) != 0)
        return ENOENT;
    if (!S_ISREG(st.st_mode) || access(buf, X_OK) != 0)
        return EACCES;
    return 0;
}

/* Find NAME (no slash) in the directories of SEARCH, into BUF. Return 0,
 * or what execvp would report: EACCES when only files that cannot be run
 * were found, else ENOENT. Empty and relative entries are skipped: they
 * would name one file in the server and another in the child, which may
 * run in another directory. */
static int find_in_path(const char *name, const char *search, char *buf,
                        size_t size)
{
    const char *p = search, *end;
    int rc = ENOENT, e;

    if (name[0] == '\0')
        return ENOENT;
    for (;;) {
        end = strchr(p, ':');
        if (!end)
            end = p + strlen(p);
        if (end > p && p[0] == '/') {
            e = try_dir(p, (size_t) (end - p), name, buf, size);
            if (e == 0)
                return 0;
            if (e == EACCES)
                rc = EACCES;
        }
        if (*end == '\0')
            return rc;
        p = end + 1;
    }
}

int sked__proc_program(const sked_proc_spec *spec, char *buf, size_t size,
                       sked_error *err)
{
    const char *name = spec->argv[0];
    int e;

    if (strchr(name, '/')) {
        if (strlen(name) >= size)
            return sked__error_set(err, SKED_EINVAL, "argv", -1,
                                   "exec %.100s...: %s", name,
                                   strerror(ENAMETOOLONG));
        memcpy(buf, name, strlen(name) + 1);
        return 0;
    }
    e = find_in_path(name, env_path(spec->env), buf, size);
    if (e == 0)
        return 0;
    return sked__error_set(err, e == ENOENT ? SKED_ENOTFOUND : SKED_EINVAL,
                           "argv", -1, "exec %s: %s", name, strerror(e));
}

/* Fill U's supplementary groups: those of NAME, plus GID. */
static int load_groups(const char *name, gid_t gid, user_ids *u)
{
    int n = 32, want;
    gid_t *g;

    for (int tries = 0; tries < 8; tries++) {
        g = sked__malloc((size_t) n * sizeof *g);
        if (!g)
            return SKED_ENOMEM;
        want = n;
        if (getgrouplist(name, gid, g, &want) >= 0) {
            u->groups = g;
            u->ngroups = want;
            return 0;
        }
        free(g);
        n = want > n ? want : n * 2;
    }
    return SKED_EIO;
}

/* Look NAME up into *PW, its strings in *BUF (caller frees). Return 0, or
 * the errno of getpwnam_r; ENOENT when there is no such user. */
static int lookup_user(const char *name, struct passwd *pw, char **buf)
{
    struct passwd *found = NULL;
    size_t size = 1024;
    char *b = NULL, *nb;
    int e;

    for (;;) {
        nb = sked__realloc(b, size);
        if (!nb) {
            free(b);
            return ENOMEM;
        }
        b = nb;
        e = getpwnam_r(name, pw, b, size, &found);
        if (e != ERANGE || size >= (1u << 20))
            break;
        size *= 2;
    }
    *buf = b;
    return e != 0 ? e : found ? 0 : ENOENT;
}

int sked__proc_user(const char *name, user_ids *u, sked_error *err)
{
    struct passwd pw;
    char *buf = NULL;
    int e = lookup_user(name, &pw, &buf), rc = 0;

    if (e == ENOMEM)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    else if (e != 0)
        rc = sked__error_set(err, SKED_EINVAL, "user", -1, "user %s: %s", name,
                             e == ENOENT ? "no such user" : strerror(e));
    else if (pw.pw_uid == geteuid())
        u->change = false;
    else if (geteuid() != 0)
        rc = sked__error_set(err, SKED_EINVAL, "user", -1,
                             "user %s: only a server running as root can run "
                             "commands as another user",
                             name);
    else {
        u->change = true;
        u->uid = pw.pw_uid;
        u->gid = pw.pw_gid;
        rc = load_groups(name, pw.pw_gid, u);
        if (rc != 0)
            rc = sked__error_set(err, rc, "user", -1,
                                 "user %s: cannot read its groups", name);
    }
    free(buf);
    return rc;
}
