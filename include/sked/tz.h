/* SPDX-License-Identifier: MIT */
/* Time zones from the IANA tz database.
 *
 * A sked_tz is one zone read from a TZif file (RFC 8536, versions 1-4),
 * with the POSIX TZ footer covering instants past the file's last
 * transition. Once loaded a zone is immutable, so any number of threads
 * may use it at once. A sked_tzdb is a zoneinfo directory with a cache:
 * each zone is read once and lives until the tzdb is closed.
 *
 * Local times are wall-clock readings written as sked_time values counted
 * as if the wall clock were UTC (see sked_civil_to_time). Converting one
 * to UTC follows SPEC 2.2: a local time skipped by a forward change
 * resolves to the end of the gap; a repeated one has two instants.
 *
 * libsked never reads the TZ variable nor calls localtime or tzset. */
#ifndef SKED_TZ_H
#define SKED_TZ_H

#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"
#include "sked/time.h"

typedef struct sked_tz sked_tz;
typedef struct sked_tzdb sked_tzdb;

/* Longest zone name accepted ("America/Argentina/ComodRivadavia" is 32). */
#define SKED_TZ_NAME_MAX 255
/* Caps on what one TZif file may hold; larger files are rejected. */
#define SKED_TZIF_MAX_TRANSITIONS 8192
#define SKED_TZIF_MAX_TYPES       256
#define SKED_TZIF_MAX_CHARS       1024
#define SKED_TZIF_MAX_FILE        (1 << 20)
/* Longest POSIX TZ string accepted. */
#define SKED_POSIXTZ_MAX 256

/* Open the zoneinfo directory DIR; NULL means $TZDIR when set and not
 * empty, else /usr/share/zoneinfo. The directory is read lazily, by
 * sked_tzdb_get. OUT: *out, freed with sked_tzdb_close.
 * Returns 0, SKED_ENOMEM, or SKED_EINVAL (DIR too long). */
SKED_API int sked_tzdb_open(const char *dir, sked_tzdb **out, sked_error *err);

/* Free DB and every zone it loaded. NULL does nothing. */
SKED_API void sked_tzdb_close(sked_tzdb *db);

/* Return in *out the zone NAME ("Europe/Paris", "UTC"), reading its file
 * on first use. The zone is borrowed: valid until sked_tzdb_close(DB),
 * and the same pointer for the same name. Thread-safe. Names are checked
 * before any file is opened: no "..", no leading, trailing or doubled
 * '/', only letters, digits and "/_-+". Symbolic links in DB's directory
 * are followed ("US/Eastern"). "UTC" is always known: without a UTC file
 * it is sked_tz_utc(). A name that is a directory is SKED_ENOTFOUND.
 * Returns 0, SKED_EINVAL (bad name or unreadable/invalid file, with
 * err->field "timezone"), SKED_ENOTFOUND (no such zone), SKED_ENOMEM. */
SKED_API int sked_tzdb_get(sked_tzdb *db, const char *name, const sked_tz **out,
                           sked_error *err);

/* Return the directory DB reads; valid until sked_tzdb_close. */
SKED_API const char *sked_tzdb_dir(const sked_tzdb *db);

/* Return the built-in UTC zone: static, never freed, always available. */
SKED_API const sked_tz *sked_tz_utc(void);

/* Parse the TZif image DATA of LEN bytes as zone NAME.
 * OUT: *out, freed with sked_tz_free. Returns 0, SKED_EINVAL (malformed,
 * with err->msg and err->pos), SKED_ETOOBIG (over a SKED_TZIF_MAX_*),
 * SKED_ENOMEM. */
SKED_API int sked_tz_parse_tzif(const char *name, const void *data, size_t len,
                                sked_tz **out, sked_error *err);

/* Parse the POSIX TZ string S ("CET-1CEST,M3.5.0,M10.5.0/3", with the
 * RFC 8536 extensions: hours up to 167, negative rule times) into a zone
 * named S. OUT: *out, freed with sked_tz_free. Returns 0, SKED_EINVAL
 * (with err->pos), SKED_ENOMEM. */
SKED_API int sked_tz_parse_posix(const char *s, sked_tz **out, sked_error *err);

/* Free a zone from sked_tz_parse_*. NULL does nothing. Never pass the UTC
 * zone or a zone owned by a tzdb. */
SKED_API void sked_tz_free(sked_tz *tz);

/* Return the zone's name; valid as long as the zone. */
SKED_API const char *sked_tz_name(const sked_tz *tz);

/* What a wall clock in a zone shows at one instant. */
typedef struct sked_tz_info {
    int32_t utoff;    /* seconds east of UTC */
    int32_t is_dst;   /* 1 during daylight saving time */
    const char *abbr; /* "CEST"; borrowed: valid as long as the zone */
} sked_tz_info;

/* Fill *out with the offset, DST flag and abbreviation in force at T.
 * Returns 0 or SKED_ERANGE (T outside SKED_TIME_MIN..MAX). */
SKED_API int sked_tz_lookup(const sked_tz *tz, sked_time t, sked_tz_info *out);

typedef enum sked_local_kind {
    SKED_LOCAL_UNIQUE = 0,   /* the local time happens once */
    SKED_LOCAL_GAP = 1,      /* skipped by a forward change */
    SKED_LOCAL_REPEATED = 2, /* happens twice, around a backward change */
} sked_local_kind;

typedef struct sked_local_result {
    sked_local_kind kind;
    /* UNIQUE: the instant (first == second). GAP: the end of the gap, the
     * instant SPEC 2.2 fires at (first == second). REPEATED: the first and
     * the second pass (for three or more passes, only possible in
     * contrived data, the first and the last). */
    sked_time first;
    sked_time second;
} sked_local_result;

/* Convert the wall-clock reading LOCAL in TZ to UTC, SPEC 2.2's way.
 * Returns 0 or SKED_ERANGE. */
SKED_API int sked_tz_local_to_utc(const sked_tz *tz, sked_time local,
                                  sked_local_result *out);

#endif
