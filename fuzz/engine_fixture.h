/* SPDX-License-Identifier: MIT */
/* The engine the fuzz targets of the API and of MCP serve: one for the
 * whole run, on a fresh SQLite file in a temporary directory (removed at
 * exit), with a workflow "w" of one no-op C step registered so that runs
 * can start; no thread runs. */
#ifndef SKED_FUZZ_ENGINE_FIXTURE_H
#define SKED_FUZZ_ENGINE_FIXTURE_H

#include "sked/engine.h"

/* The engine, opened on the first call on the file NAME ("api.db") of
 * its directory; aborts when it cannot be opened. */
sked_engine *fuzz_engine(const char *name);

#endif
