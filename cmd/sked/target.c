/* SPDX-License-Identifier: MIT */
/* The choice of a command's target (target.h): direct mode (direct.c)
 * or remote mode (remote_ops.c), from the options and the environment.
 * Nothing here knows what either does. */
#include "target.h"

#include <stdlib.h>

/* The options given before the command. */
static const char *global_db, *global_server;

void target_set_global(const char *db, const char *server)
{
    if (db)
        global_db = db;
    if (server)
        global_server = server;
}

int target_choose(const cli_cmd *self, const char *db, const char *server,
                  const char **out_db, const char **out_server)
{
    const char *env = getenv("SKED_SERVER");

    db = db ? db : global_db;
    server = server ? server : global_server;
    if (db && server)
        return cli_usage_error(self, "give --db or --server, not both");
    if (!db && !server && env && env[0])
        server = env;
    if (server && !server[0])
        return cli_usage_error(self, "option --server needs a URL");
    *out_db = server ? NULL : db;
    *out_server = server;
    return 0;
}

int target_open(const cli_cmd *self, const char *db, const char *server,
                sked_tzdb *tzdb, target **out)
{
    int rc = target_choose(self, db, server, &db, &server);

    if (rc != 0)
        return rc;
    if (server)
        return remote_target_open(server, tzdb, out);
    return direct_target_open(db, tzdb, out);
}

void target_close(target *t)
{
    if (t)
        t->ops->done(t);
}

const sked_tz *schedule_zone_of(sked_tzdb *db, const sked_schedule *s)
{
    const sked_tz *tz = NULL;

    if (!s->timezone || !db || sked_tzdb_get(db, s->timezone, &tz, NULL) < 0)
        return sked_tz_utc();
    return tz;
}
