/* SPDX-License-Identifier: MIT */
/* A program that embeds sked: one workflow of two C steps, fired every
 * second by a schedule, executed by the engine's workers in this
 * process. It prints each run as it completes and stops after three.
 *
 *     cc embed.c $(pkg-config --cflags --libs sked) -o embed
 *     ./embed sqlite:embed.db
 *
 * Everything it does is durable: stop it and start it again, and the
 * schedule catches up by its policy, and a run cut off mid-way resumes
 * at its first step not completed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sked/sked.h>

#define RUNS_WANTED 3

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int completed;

/* Step one: "extract" a number from the run's context. */
static int extract(sked_ctx *ctx, const char *input_json, char **output_json)
{
    char buf[128];
    (void) input_json;
    snprintf(buf, sizeof buf, "{\"rows\": %d, \"scheduled_for\": %lld}",
             42 + sked_ctx_attempt(ctx),
             (long long) sked_ctx_scheduled_for(ctx));
    *output_json = strdup(buf);
    return *output_json ? 0 : 1;
}

/* Step two: "report" what step one found. */
static int report(sked_ctx *ctx, const char *input_json, char **output_json)
{
    const char *rows = sked_ctx_output(ctx, "extract");
    (void) input_json;
    if (!rows) {
        sked_ctx_fail(ctx, "extract left no output");
        return 1;
    }
    *output_json = strdup("{\"reported\": true}");
    return *output_json ? 0 : 1;
}

/* Count completed runs (called by the engine after each commit). */
static void on_event(void *ctx, const sked_event_view *ev)
{
    (void) ctx;
    if (strcmp(ev->type, "run.completed") != 0)
        return;
    printf("completed %s\n", ev->subject);
    fflush(stdout);
    pthread_mutex_lock(&mu);
    completed++;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static int fail(const char *what, const sked_error *err)
{
    fprintf(stderr, "embed: %s: %s\n", what, err->msg);
    return 1;
}

/* The workflow "nightly-report": extract, then report, every second. */
static int build(sked_workflow **out, sked_error *err)
{
    static const char *const after_extract[] = {"extract"};
    sked_step_options report_opts = {
        .needs = after_extract, .nneeds = 1, .retry = {.attempts = 3}};
    sked_schedule every_second;
    sked_workflow *w;

    if (sked_workflow_new("nightly-report", &w, err) != 0)
        return -1;
    sked_schedule_init(&every_second);
    every_second.kind = SKED_SPEC_CRON;
    every_second.cron = "* * * * * *";
    every_second.catchup = SKED_CATCHUP_SKIP;
    if (sked_workflow_add_step(w, "extract", extract, NULL, err) != 0 ||
        sked_workflow_add_step(w, "report", report, &report_opts, err) != 0 ||
        sked_workflow_add_schedule(w, &every_second, err) != 0) {
        sked_workflow_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int main(int argc, char **argv)
{
    sked_engine_options opts = {
        .db_url = argc > 1 ? argv[1] : "sqlite:embed.db", .workers = 2};
    sked_subscription *sub;
    sked_workflow *w;
    sked_engine *e;
    sked_error err;

    if (sked_engine_open(&opts, &e, &err) != 0)
        return fail("open", &err);
    if (build(&w, &err) != 0 || sked_engine_register(e, w, &err) != 0 ||
        sked_subscribe(e, on_event, NULL, &sub, &err) != 0 ||
        sked_engine_start(e, &err) != 0) {
        sked_engine_close(e);
        return fail("start", &err);
    }
    pthread_mutex_lock(&mu);
    while (completed < RUNS_WANTED)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    sked_unsubscribe(e, sub);
    sked_engine_close(e);
    printf("done: %d runs\n", RUNS_WANTED);
    return 0;
}
