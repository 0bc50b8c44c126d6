/* SPDX-License-Identifier: MIT */
/* The fuzz targets' engine (engine_fixture.h). */
#include "engine_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static sked_engine *engine;
static char dir[512];
static char file[64];

static void cleanup(void)
{
    char path[600];

    sked_engine_close(engine);
    engine = NULL;
    for (const char *const *f =
             (const char *const[]){"", "-wal", "-shm", "-journal", NULL};
         *f; f++) {
        snprintf(path, sizeof path, "%s/%s%s", dir, file, *f);
        (void) unlink(path);
    }
    (void) rmdir(dir);
}

static int step(sked_ctx *ctx, const char *input, char **output)
{
    (void) ctx;
    (void) input;
    (void) output;
    return 0;
}

sked_engine *fuzz_engine(const char *name)
{
    sked_engine_options o = {.sqlite_synchronous = "normal", .workers = -1};
    sked_workflow *w = NULL;
    sked_error err;
    char url[600];

    if (engine)
        return engine;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/sked-fuzz-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror(dir);
        abort();
    }
    snprintf(file, sizeof file, "%s", name);
    snprintf(url, sizeof url, "sqlite:%s/%s", dir, file);
    o.db_url = url;
    if (sked_engine_open(&o, &engine, &err) != 0 ||
        sked_workflow_new("w", &w, &err) != 0 ||
        sked_workflow_add_step(w, "s", step, NULL, &err) != 0 ||
        sked_engine_register(engine, w, &err) != 0) {
        fprintf(stderr, "the engine of %s: %s\n", url, err.msg);
        abort();
    }
    atexit(cleanup);
    return engine;
}
