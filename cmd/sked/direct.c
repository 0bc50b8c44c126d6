/* SPDX-License-Identifier: MIT */
/* Opening the database and the zone database for direct mode
 * (direct.h), and the one-line reports of store failures. */
#include "direct.h"

#include <stdlib.h>

#include "cli.h"

const char *direct_db_url(const char *flag)
{
    const char *env = getenv("SKED_DB");

    if (flag)
        return flag;
    return env && env[0] ? env : SKED_STORE_DEFAULT_URL;
}

int direct_store_open(const char *flag, sked_tzdb *tzdb, sked_store **out)
{
    sked_store_options opts = {.tzdb = tzdb};
    const char *url = direct_db_url(flag);
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked__store_open(url, &opts, out, &err)) < 0)
        return cli_fail(rc, "cannot open the database \"%.200s\": %s", url,
                        err.msg[0] ? err.msg : sked_strerror(rc));
    return 0;
}

int direct_engine_open(const char *flag, sked_engine **out)
{
    sked_engine_options opts = {.db_url = direct_db_url(flag)};
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_engine_open(&opts, out, &err)) < 0)
        return cli_fail(rc, "cannot open the database \"%.200s\": %s",
                        opts.db_url, err.msg[0] ? err.msg : sked_strerror(rc));
    return 0;
}

int direct_tzdb_open(sked_tzdb **out)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_tzdb_open(NULL, out, &err)) < 0)
        return cli_fail(rc, "cannot open the time zone database: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    return 0;
}

int direct_schedule_fail(const char *verb, const char *name,
                         const sked_error *err, int rc)
{
    const char *msg = err->msg[0] ? err->msg : sked_strerror(rc);

    if (rc == SKED_ENOTFOUND)
        return cli_fail(rc, "schedule \"%.128s\" not found", name);
    if (rc == SKED_ECONFLICT)
        return cli_fail(rc, "cannot %s schedule \"%.128s\": %s", verb, name,
                        err->msg[0] ? msg : "it already exists");
    if (err->field[0])
        return cli_fail(rc, "cannot %s schedule \"%.128s\": %s: %s", verb, name,
                        err->field, msg);
    return cli_fail(rc, "cannot %s schedule \"%.128s\": %s", verb, name, msg);
}
