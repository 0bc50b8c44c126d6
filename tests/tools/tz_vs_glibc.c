/* SPDX-License-Identifier: MIT */
/* Compare sked's zones with glibc's localtime_r over a zoneinfo tree.
 *
 * Usage: tz_vs_glibc [DIR [RANDOM_PER_ZONE]] (default: the system's
 * /usr/share/zoneinfo, 3000). For every TZif file under DIR, except the
 * posix/ and right/ copies and the names that are not zones (posixrules,
 * localtime), sked_tz_lookup and glibc under TZ=:name must agree on the
 * offset, the DST flag and the abbreviation at: every transition of the
 * file and of its footer between 1900 and 2100, one second before and
 * after; and seeded random instants in that range. glibc runs in a
 * forked child (TZ is process-global), which sends its answers through a
 * pipe. right/ zones are skipped on purpose: they count leap seconds,
 * and sked's instants are POSIX time (see src/tz/tzif.c). Symbolic links
 * are skipped as well: they name a file already compared.
 * Prints one summary line and the first differences; exits 1 on any. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sked/tz.h"
#include "tz/tzif.h"
#include "tz/zone.h"

#define T_1900     INT64_C(-2208988800)
#define T_2100     INT64_C(4102444800)
#define MAX_REPORT 10
#define ABBR_LEN   16

struct answer {
    int32_t utoff;
    int32_t is_dst;
    char abbr[ABBR_LEN];
};

struct run {
    const char *dir;
    sked_tzdb *db;
    long random_per_zone;
    long zones, instants, diffs;
    int64_t *ts;
    size_t nts, cap;
};

static void push(struct run *r, int64_t t)
{
    if (t < T_1900 || t > T_2100)
        return;
    if (r->nts == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4096;
        r->ts = realloc(r->ts, r->cap * sizeof *r->ts);
        if (!r->ts) {
            perror("realloc");
            exit(2);
        }
    }
    r->ts[r->nts++] = t;
}

static void push3(struct run *r, int64_t t)
{
    push(r, t - 1);
    push(r, t);
    push(r, t + 1);
}

/* Return 1 if PATH starts with the TZif magic; fill its bytes. */
static int read_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(SKED_TZIF_MAX_FILE);
    size_t n;

    if (!f || !buf) {
        if (f)
            fclose(f);
        free(buf);
        return 0;
    }
    n = fread(buf, 1, SKED_TZIF_MAX_FILE, f);
    fclose(f);
    if (n < 4 || memcmp(buf, "TZif", 4) != 0) {
        free(buf);
        return 0;
    }
    *data = buf;
    *len = n;
    return 1;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Collect the instants to compare for one zone. */
static void collect(struct run *r, const sked_tz *tz, const char *data,
                    size_t len, const char *name)
{
    sked__tzif v;
    sked__tz_seg seg;
    uint64_t seed = 88172645463325252u;
    int64_t t = T_1900;

    r->nts = 0;
    if (sked__tzif_read(data, len, &v, NULL) == 0)
        for (uint32_t i = 0; i < v.ntrans; i++)
            push3(r, sked__tzif_time(&v, i));
    while (t < T_2100) {
        sked__tz_segment(tz, t, &seg);
        if (seg.end >= T_2100)
            break;
        push3(r, seg.end);
        t = seg.end;
    }
    for (const char *p = name; *p; p++)
        seed = (seed ^ (unsigned char) *p) * 1099511628211u;
    for (long i = 0; i < r->random_per_zone; i++)
        push(r, T_1900 +
                    (int64_t) (rng_next(&seed) % (uint64_t) (T_2100 - T_1900)));
}

/* In a child: ask glibc about every instant, write answers to FD. */
static void glibc_child(const struct run *r, const char *name, int fd)
{
    char tzvar[512];
    FILE *out = fdopen(fd, "wb");

    if (snprintf(tzvar, sizeof tzvar, ":%s", name) >= (int) sizeof tzvar)
        _exit(1);
    setenv("TZDIR", r->dir, 1);
    setenv("TZ", tzvar, 1);
    tzset();
    for (size_t i = 0; i < r->nts; i++) {
        time_t tt = (time_t) r->ts[i];
        struct tm tm;
        struct answer a;
        memset(&a, 0, sizeof a);
        if (localtime_r(&tt, &tm)) {
            a.utoff = (int32_t) tm.tm_gmtoff;
            a.is_dst = tm.tm_isdst > 0;
            snprintf(a.abbr, sizeof a.abbr, "%s", tm.tm_zone);
        }
        fwrite(&a, sizeof a, 1, out);
    }
    fclose(out);
    _exit(0);
}

static void report(struct run *r, const char *name, int64_t t,
                   const sked_tz_info *s, const struct answer *g)
{
    time_t tt = (time_t) t;
    struct tm tm;
    char when[64];

    if (++r->diffs > MAX_REPORT)
        return;
    gmtime_r(&tt, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    printf("DIFF %s %s (%lld): sked %d %d %s, glibc %d %d %s\n", name, when,
           (long long) t, s->utoff, s->is_dst, s->abbr, g->utoff, g->is_dst,
           g->abbr);
}

/* Compare one zone: collect instants, fork glibc, check each answer. */
static void compare_zone(struct run *r, const char *name, const char *data,
                         size_t len)
{
    const sked_tz *tz;
    sked_error err;
    int fds[2];
    pid_t pid;
    FILE *in;

    if (sked_tzdb_get(r->db, name, &tz, &err) != 0) {
        printf("DIFF %s: sked cannot load it: %s\n", name, err.msg);
        r->diffs++;
        return;
    }
    collect(r, tz, data, len, name);
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        perror("pipe/fork");
        exit(2);
    }
    if (pid == 0) {
        close(fds[0]);
        glibc_child(r, name, fds[1]);
    }
    close(fds[1]);
    in = fdopen(fds[0], "rb");
    for (size_t i = 0; i < r->nts; i++) {
        struct answer g;
        sked_tz_info s;
        if (fread(&g, sizeof g, 1, in) != 1) {
            printf("DIFF %s: glibc child died\n", name);
            r->diffs++;
            break;
        }
        sked_tz_lookup(tz, r->ts[i] * SKED_USEC_PER_SEC, &s);
        if (s.utoff != g.utoff || s.is_dst != g.is_dst ||
            strcmp(s.abbr, g.abbr) != 0)
            report(r, name, r->ts[i], &s, &g);
    }
    fclose(in);
    waitpid(pid, NULL, 0);
    r->zones++;
    r->instants += (long) r->nts;
}

static int skipped(const char *rel)
{
    return strcmp(rel, "posix") == 0 || strcmp(rel, "right") == 0 ||
           strcmp(rel, "posixrules") == 0 || strcmp(rel, "localtime") == 0;
}

/* Walk DIR/REL ("" for the top) and compare every TZif file in it. */
static void walk(struct run *r, const char *rel)
{
    char path[4096], child[4096];
    struct dirent **list;
    int n;

    snprintf(path, sizeof path, "%s/%s", r->dir, rel);
    n = scandir(path, &list, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        struct stat st;
        char *data;
        size_t len;
        const char *nm = list[i]->d_name;
        int n1 =
            snprintf(child, sizeof child, "%s%s%s", rel, *rel ? "/" : "", nm);
        int n2 = snprintf(path, sizeof path, "%s/%s", r->dir, child);
        if (n1 < (int) sizeof child && n2 < (int) sizeof path && nm[0] != '.' &&
            !skipped(child) && lstat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                walk(r, child);
            else if (S_ISREG(st.st_mode) && read_file(path, &data, &len)) {
                compare_zone(r, child, data, len);
                free(data);
            }
        }
        free(list[i]);
    }
    free(list);
}

int main(int argc, char **argv)
{
    struct run r = {.dir = argc > 1 ? argv[1] : "/usr/share/zoneinfo",
                    .random_per_zone = argc > 2 ? atol(argv[2]) : 3000};

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (sked_tzdb_open(r.dir, &r.db, NULL) != 0)
        return 2;
    walk(&r, "");
    printf("tz_vs_glibc: %ld zones, %ld instants, %ld differences\n", r.zones,
           r.instants, r.diffs);
    sked_tzdb_close(r.db);
    free(r.ts);
    return r.diffs == 0 && r.zones > 0 ? 0 : 1;
}
