/* SPDX-License-Identifier: MIT */
/* A zoneinfo directory and the zones read from it.
 *
 * Zones are read on first use and kept until sked_tzdb_close, so a
 * sked_tz pointer stays valid and the same for a name. One mutex guards
 * the cache, and is held while a zone's file is read: concurrent first
 * uses of one name read it once. The cache is a plain array searched
 * linearly: O(n) per call, fine for the ~600 zones of the tz database and
 * a call per schedule created, not per firing.
 *
 * Names are checked before any path is built (no "..", no leading '/',
 * a small alphabet); "localtime", "posixrules" and the "right/" zones are
 * refused (host_zone_check says why). Symbolic links inside the directory are
 * followed (US/Eastern). "UTC" falls back to sked_tz_utc() when the
 * directory has no UTC file. $TZDIR is read here and nowhere else. */
#include "tz/tzdb.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"

#define DEFAULT_DIR "/usr/share/zoneinfo"
/* Longest directory accepted: room for '/', a name and the NUL. */
#define DIR_MAX (PATH_MAX - SKED_TZ_NAME_MAX - 2)

struct sked_tzdb {
    pthread_mutex_t lock; /* guards zones, n and cap */
    char *dir;            /* owned */
    sked_tz **zones;      /* owned, each zone owned */
    size_t n, cap;
};

int sked_tzdb_open(const char *dir, sked_tzdb **out, sked_error *err)
{
    sked_tzdb *db;

    if (!out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, NULL);
    if (!dir) {
        dir = getenv("TZDIR");
        if (!dir || !*dir)
            dir = DEFAULT_DIR;
    }
    if (strlen(dir) > DIR_MAX)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1,
                               "zoneinfo directory path too long");
    db = sked__calloc(1, sizeof *db);
    if (!db || !(db->dir = sked__strdup(dir)))
        goto nomem;
    if (pthread_mutex_init(&db->lock, NULL) != 0)
        goto nomem;
    *out = db;
    return 0;
nomem:
    if (db)
        free(db->dir);
    free(db);
    return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

void sked_tzdb_close(sked_tzdb *db)
{
    if (!db)
        return;
    for (size_t i = 0; i < db->n; i++)
        sked_tz_free(db->zones[i]);
    free(db->zones);
    free(db->dir);
    (void) pthread_mutex_destroy(&db->lock);
    free(db);
}

const char *sked_tzdb_dir(const sked_tzdb *db)
{
    return db->dir;
}

static bool name_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '/' || c == '_' || c == '+' ||
           c == '-';
}

/* Refuse the files of a zoneinfo directory that are not zones to name:
 * what they mean depends on the host, or their clock is not UTC's. */
static int host_zone_check(const char *name, sked_error *err)
{
    if (strcmp(name, "localtime") == 0)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1,
                               "\"localtime\" is whatever zone the host is "
                               "set to, which differs between machines: "
                               "name the zone (Europe/Paris)");
    if (strcmp(name, "posixrules") == 0)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1,
                               "\"posixrules\" is the host's template for "
                               "POSIX TZ strings, not a zone: name the zone");
    if (strncmp(name, "right/", 6) == 0)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1,
                               "\"right/\" zones count leap seconds, which "
                               "UTC instants do not, and have no rule for "
                               "the future: use \"%.100s\"",
                               name + 6);
    return 0;
}

int sked__tzdb_check_name(const char *name, sked_error *err)
{
    size_t i;

    for (i = 0; name[i] != '\0'; i++) {
        bool slash_ok = i > 0 && name[i - 1] != '/' && name[i + 1] != '\0';
        if (i >= SKED_TZ_NAME_MAX)
            return sked__error_set(err, SKED_EINVAL, "timezone", (long) i,
                                   "time zone name too long");
        if (!name_char_ok(name[i]) || (name[i] == '/' && !slash_ok))
            return sked__error_set(err, SKED_EINVAL, "timezone", (long) i,
                                   "invalid character in time zone name");
    }
    if (i == 0)
        return sked__error_set(err, SKED_EINVAL, "timezone", 0,
                               "empty time zone name");
    return host_zone_check(name, err);
}

/* Read the whole regular file at FD, of SIZE bytes, into *out. */
static int read_all(int fd, size_t size, char **out)
{
    char *buf = sked__malloc(size ? size : 1);
    size_t got = 0;

    if (!buf)
        return SKED_ENOMEM;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            return SKED_EIO;
        }
        got += (size_t) r;
    }
    *out = buf;
    return 0;
}

/* Open and read the file of zone NAME: its bytes in *out, length *len. */
static int read_zone_file(const sked_tzdb *db, const char *name, char **out,
                          size_t *len, sked_error *err)
{
    char path[PATH_MAX];
    struct stat st;
    int fd, rc;

    (void) snprintf(path, sizeof path, "%s/%s", db->dir, name);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return sked__error_set(err, SKED_ENOTFOUND, "timezone", -1,
                               "unknown time zone \"%s\"", name);
    if (fd < 0)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1,
                               "cannot open time zone \"%s\"", name);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        (void) close(fd);
        return sked__error_set(err, SKED_ENOTFOUND, "timezone", -1,
                               "unknown time zone \"%s\"", name);
    }
    if (st.st_size > SKED_TZIF_MAX_FILE) {
        (void) close(fd);
        return sked__error_set(err, SKED_EINVAL, "timezone", -1,
                               "time zone file \"%s\" too large", name);
    }
    rc = read_all(fd, (size_t) st.st_size, out);
    (void) close(fd);
    if (rc != 0)
        return sked__error_set(err, rc == SKED_ENOMEM ? rc : SKED_EINVAL,
                               "timezone", -1, "cannot read \"%s\"", name);
    *len = (size_t) st.st_size;
    return 0;
}

/* Read and parse zone NAME. Parse failures become SKED_EINVAL (the
 * contract of sked_tzdb_get), keeping the parser's message. */
static int load_zone(const sked_tzdb *db, const char *name, sked_tz **out,
                     sked_error *err)
{
    char *data;
    size_t len;
    int rc;

    if ((rc = read_zone_file(db, name, &data, &len, err)) != 0)
        return rc;
    rc = sked_tz_parse_tzif(name, data, len, out, err);
    free(data);
    if (rc != 0 && rc != SKED_ENOMEM) {
        if (err)
            err->code = SKED_EINVAL;
        rc = SKED_EINVAL;
    }
    return rc;
}

/* Return the cached zone NAME, or NULL. Called with the lock held. */
static const sked_tz *find(const sked_tzdb *db, const char *name)
{
    for (size_t i = 0; i < db->n; i++)
        if (strcmp(sked_tz_name(db->zones[i]), name) == 0)
            return db->zones[i];
    return NULL;
}

/* Add TZ to the cache; on failure free it. Called with the lock held. */
static int remember(sked_tzdb *db, sked_tz *tz)
{
    if (db->n == db->cap) {
        size_t cap = db->cap ? 2 * db->cap : 16;
        sked_tz **zones = sked__realloc(db->zones, cap * sizeof *zones);
        if (!zones) {
            sked_tz_free(tz);
            return SKED_ENOMEM;
        }
        db->zones = zones;
        db->cap = cap;
    }
    db->zones[db->n++] = tz;
    return 0;
}

/* Find or load NAME. Called with the lock held. */
static int get_locked(sked_tzdb *db, const char *name, const sked_tz **out,
                      sked_error *err)
{
    const sked_tz *found = find(db, name);
    sked_tz *tz;
    int rc;

    if (found) {
        *out = found;
        return 0;
    }
    rc = load_zone(db, name, &tz, err);
    if (rc == SKED_ENOTFOUND && strcmp(name, "UTC") == 0) {
        *out = sked_tz_utc();
        return 0;
    }
    if (rc != 0)
        return rc;
    if ((rc = remember(db, tz)) != 0)
        return sked__error_set(err, rc, "timezone", -1, NULL);
    *out = tz;
    return 0;
}

int sked_tzdb_get(sked_tzdb *db, const char *name, const sked_tz **out,
                  sked_error *err)
{
    int rc;

    if (!db || !name || !out)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1, NULL);
    if ((rc = sked__tzdb_check_name(name, err)) != 0)
        return rc;
    if (pthread_mutex_lock(&db->lock) != 0)
        return sked__error_set(err, SKED_EINTERNAL, NULL, -1, NULL);
    rc = get_locked(db, name, out, err);
    (void) pthread_mutex_unlock(&db->lock);
    return rc;
}
