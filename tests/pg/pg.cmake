# SPDX-License-Identifier: MIT
# The throwaway PostgreSQL cluster as a CTest fixture: pg.start starts it
# (scripts/pg.sh, in <build>/pg), pg.stop stops and deletes it even when
# the tests between them failed, and every test added with sked_add_pg_test
# runs in between against a database of its own (tests/pg/with_pg.sh).
set(SKED_PG_DIR ${PROJECT_BINARY_DIR}/pg)
set(SKED_PG_SH ${PROJECT_SOURCE_DIR}/scripts/pg.sh)
set(SKED_WITH_PG ${CMAKE_CURRENT_LIST_DIR}/with_pg.sh)

add_test(NAME pg.start COMMAND bash ${SKED_PG_SH} start)
add_test(NAME pg.stop COMMAND bash ${SKED_PG_SH} stop)
set_tests_properties(pg.start PROPERTIES FIXTURES_SETUP pg
    ENVIRONMENT "SKED_PG_DIR=${SKED_PG_DIR}" LABELS pg TIMEOUT 120)
set_tests_properties(pg.stop PROPERTIES FIXTURES_CLEANUP pg
    ENVIRONMENT "SKED_PG_DIR=${SKED_PG_DIR}" LABELS pg TIMEOUT 120)

# sked_add_pg_test(NAME COMMAND...): a test named NAME that runs COMMAND
# with SKED_TEST_DB_URL and SKED_TEST_PG_URL naming a fresh database.
function(sked_add_pg_test name)
    string(REGEX REPLACE "[^a-z0-9]" "_" db "t_${name}")
    add_test(NAME ${name} COMMAND bash ${SKED_WITH_PG} ${db} ${ARGN})
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED pg
        LABELS "pg;store" TIMEOUT 600
        ENVIRONMENT "SKED_PG_DIR=${SKED_PG_DIR};${SCRIPT_ENV}")
endfunction()

# A check of the fixture itself: the server answers on the URL it gives.
find_program(SKED_PSQL psql)
if(SKED_PSQL)
    sked_add_pg_test(pg.ping bash -c
        "${SKED_PSQL} -X -q -t -c 'SELECT 1' \"$SKED_TEST_PG_URL\"")
endif()

# The store suite, and the concurrency and crash tests, on PostgreSQL
# (the scripts also run their SQLite part, which takes seconds).
if(TARGET test_store)
    sked_add_pg_test(store.pg $<TARGET_FILE:test_store>)
endif()
if(TARGET test_store_events)
    sked_add_pg_test(store_events.pg $<TARGET_FILE:test_store_events>)
endif()
if(TARGET test_store_run)
    sked_add_pg_test(store_run.pg $<TARGET_FILE:test_store_run>)
endif()
if(TARGET test_store_alloc)
    sked_add_pg_test(store_alloc.pg $<TARGET_FILE:test_store_alloc>)
    sked_add_pg_test(alloc_full.store_pg $<TARGET_FILE:test_store_alloc>)
    sked_alloc_full(alloc_full.store_pg)
endif()
foreach(script store_concurrency store_crash)
    set(path ${CMAKE_CURRENT_LIST_DIR}/../integration/test_${script}.sh)
    if(EXISTS ${path})
        string(REPLACE "store_" "store.pg_" name ${script})
        sked_add_pg_test(${name} bash ${path})
    endif()
endforeach()

# Three sked servers on one PostgreSQL database, one killed midway: every
# occurrence once (tests/integration/test_server_multi.sh; the SQLite
# part, two servers on one file, runs as integration.server_multi).
set(SKED_MULTI_SH ${CMAKE_CURRENT_LIST_DIR}/../integration/test_server_multi.sh)
if(EXISTS ${SKED_MULTI_SH})
    sked_add_pg_test(server.pg_multi bash ${SKED_MULTI_SH} pg)
endif()
# Servers started together on a new database all come up, with one set
# of schedules (tests/integration/test_server_together.sh; SQLite:
# integration.server_together).
sked_add_pg_test(server.pg_together bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_server_together.sh pg)
# Code schedules of several apps on one database: each sync prunes only
# its own (tests/integration/test_server_apps.sh; SQLite:
# integration.server_apps).
sked_add_pg_test(server.pg_apps bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_server_apps.sh pg)
# Triggers sharing commits, the server killed under them: every answered
# run kept (tests/integration/test_shared_crash.sh; SQLite: integration).
sked_add_pg_test(server.pg_shared_crash bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_shared_crash.sh pg)
# Execution by real servers: crash recovery, queue limits, timeouts,
# cancel (tests/integration/test_server_exec.sh; SQLite: integration).
sked_add_pg_test(server.pg_exec bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_server_exec.sh pg)

# Notifications delivered by real servers to a real receiver
# (tests/integration/test_server_notify.sh; SQLite: integration).
sked_add_pg_test(server.pg_notify bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_server_notify.sh pg)

# Deliveries of schema 13 through migration 0014 on PostgreSQL
# (tests/integration/test_store_migrate_notify.sh; SQLite: integration).
if(SKED_PSQL)
    sked_add_pg_test(store.pg_migrate_notify bash
        ${CMAKE_CURRENT_LIST_DIR}/../integration/test_store_migrate_notify.sh pg)
endif()

# The metrics on PostgreSQL: its queries of the gauges, linted by promtool
# (tests/lint/test_metrics.sh; SQLite: lint.metrics).
sked_add_pg_test(lint.pg_metrics bash
    ${CMAKE_CURRENT_LIST_DIR}/../lint/test_metrics.sh pg)

# What only the PostgreSQL back-end does: reconnection, the pool,
# concurrent migration, connection errors.
add_executable(test_pg ${CMAKE_CURRENT_LIST_DIR}/test_pg.c)
target_link_libraries(test_pg PRIVATE sked_internal PkgConfig::CMOCKA
    PkgConfig::LIBPQ Threads::Threads)
target_compile_definitions(test_pg PRIVATE SKED_HAVE_PG_STORE)
sked_add_pg_test(store.pg_backend $<TARGET_FILE:test_pg>)
set_tests_properties(store.pg_backend PROPERTIES SKIP_RETURN_CODE 77)

# Schema 5's event pages and queue starts (schema/pg/0005_run_rate.sql).
add_executable(test_pg_run_rate ${CMAKE_CURRENT_LIST_DIR}/test_pg_run_rate.c)
target_link_libraries(test_pg_run_rate PRIVATE sked_internal sked_testdb
    PkgConfig::CMOCKA)
sked_add_pg_test(store.pg_run_rate $<TARGET_FILE:test_pg_run_rate>)
set_tests_properties(store.pg_run_rate PROPERTIES SKIP_RETURN_CODE 77)

# The engine tests (tests/unit/test_engine.c) on PostgreSQL.
if(TARGET test_engine)
    sked_add_pg_test(engine.pg $<TARGET_FILE:test_engine>)
endif()
# Writes of many threads sharing commits, on PostgreSQL.
if(TARGET test_engine_shared)
    sked_add_pg_test(engine_shared.pg $<TARGET_FILE:test_engine_shared>)
endif()
# Schedules over calendars through the engine, on PostgreSQL.
if(TARGET test_engine_calendars)
    sked_add_pg_test(engine_calendars.pg $<TARGET_FILE:test_engine_calendars>)
endif()
if(TARGET test_engine_deadlines)
    sked_add_pg_test(engine_deadlines.pg $<TARGET_FILE:test_engine_deadlines>)
endif()
if(TARGET test_engine_notify)
    sked_add_pg_test(engine_notify.pg $<TARGET_FILE:test_engine_notify>)
endif()
if(TARGET test_engine_skips)
    sked_add_pg_test(engine_skips.pg $<TARGET_FILE:test_engine_skips>)
endif()
# The scheduler and the executor under allocation failures on PostgreSQL.
if(TARGET test_alloc_exec)
    sked_add_pg_test(exec_alloc.pg $<TARGET_FILE:test_alloc_exec>)
    sked_add_pg_test(alloc_full.exec_pg $<TARGET_FILE:test_alloc_exec>)
    sked_alloc_full(alloc_full.exec_pg)
endif()
# The execution tests (tests/unit/test_exec.c) on PostgreSQL.
if(TARGET test_exec)
    sked_add_pg_test(exec.pg $<TARGET_FILE:test_exec>)
endif()
# The HTTP API's schedule, run, workflow and queue routes on PostgreSQL
# (tests/integration/test_http_api.sh; SQLite: integration.http_api).
sked_add_pg_test(http.pg_api bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_http_api.sh pg)
# Skipping and running one occurrence over HTTP on PostgreSQL
# (tests/integration/test_http_skips.sh; SQLite: integration.http_skips).
sked_add_pg_test(http.pg_skips bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_http_skips.sh pg)
# The API's cron explain, simulate and events after=latest on PostgreSQL
# (tests/integration/test_http_api_cron.sh; SQLite: integration.http_api_cron).
sked_add_pg_test(http.pg_api_cron bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_http_api_cron.sh pg)
# Events and metrics over HTTP (tests/integration/test_http_events.sh;
# SQLite: integration.http_events).
sked_add_pg_test(http.pg_events bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_http_events.sh pg)
# The event log's type and subject filters on PostgreSQL's pages
# (tests/integration/test_http_event_filters.sh; SQLite:
# integration.http_event_filters).
sked_add_pg_test(http.pg_event_filters bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_http_event_filters.sh pg)
# The CLI's --json against the API's answers on PostgreSQL
# (tests/integration/test_cli_json.sh; SQLite: integration.cli_json).
sked_add_pg_test(cli.pg_json bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_cli_json.sh pg)

# A PostgreSQL server stopped under a running sked server, then started:
# readyz, the log, the metric, the CPU while failing, nothing lost
# (tests/integration/test_server_faults.sh; it starts a cluster of its
# own, since it stops it; the SQLite faults run as integration).
set(SKED_FAULTS_SH ${CMAKE_CURRENT_LIST_DIR}/../integration/test_server_faults.sh)
if(EXISTS ${SKED_FAULTS_SH})
    add_test(NAME server.pg_faults COMMAND bash ${SKED_FAULTS_SH} pg)
    set_tests_properties(server.pg_faults PROPERTIES LABELS pg TIMEOUT 600
        ENVIRONMENT "${SCRIPT_ENV}" SKIP_RETURN_CODE 77)
endif()
# Calendars through the API and the CLI on PostgreSQL
# (tests/integration/test_server_calendars.sh; SQLite:
# integration.server_calendars): excluded occurrences traced, on a server.
sked_add_pg_test(server.pg_heartbeat bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_heartbeat.sh pg)
sked_add_pg_test(server.pg_server_calendars bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_server_calendars.sh pg)
# (tests/integration/test_calendars.sh; SQLite: integration.calendars).
sked_add_pg_test(server.pg_calendars bash
    ${CMAKE_CURRENT_LIST_DIR}/../integration/test_calendars.sh pg)
