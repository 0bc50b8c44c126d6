/* SPDX-License-Identifier: MIT */
/* The settings of "sked server", from its flags and its configuration
 * file (docs/configuration.md).
 *
 * Every option has one row in one table: its flag (--token-file), its
 * key in the file (token_file) and its rule. A value is checked by that
 * rule wherever it comes from; an error names the flag, or FILE:LINE:COL
 * and the key. Flags win over the file, the file over the environment
 * (SKED_DB, SKED_TOKEN), the environment over the defaults. Without
 * --config, the file is SKED_CONFIG_DEFAULT when it exists. */
#ifndef SKED_CMD_SERVER_CONFIG_H
#define SKED_CMD_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "http/http.h"
#include "log.h"
#include "sked/sked.h"

#ifndef SKED_CONFIG_DEFAULT
#define SKED_CONFIG_DEFAULT "/etc/sked/sked.yaml"
#endif

/* The options, in the order of the help. */
typedef enum server_opt {
    SO_DB,
    SO_WORKFLOWS,
    SO_WORKERS,
    SO_LEASE,
    SO_RETENTION,
    SO_TICK,
    SO_LISTEN,
    SO_TOKEN_FILE,
    SO_MCP_ALLOW_ORIGIN,
    SO_MCP_SESSION_IDLE,
    SO_LOG_FORMAT,
    SO_LOG_LEVEL,
    SO_TOKENS, /* the file only: named tokens with scopes */
    SO_COUNT
} server_opt;

/* What the command line gave, borrowed from argv, and then what the
 * file added. */
typedef struct server_flags {
    const char *value[SO_COUNT];          /* NULL: not given */
    cli_list origins;                     /* --mcp-allow-origin's values */
    int line[SO_COUNT], column[SO_COUNT]; /* where the file gave it; 0: not */
    const char *config;                   /* --config FILE */
    bool check_config;                    /* --check-config */
} server_flags;

/* The checked settings; every string owned. */
typedef struct server_settings {
    char *config;    /* the file read; NULL: none */
    char *db_url;    /* never NULL */
    char *workflows; /* NULL: no workflows file */
    int workers;
    sked_dur lease;     /* 0: the engine's default */
    sked_dur retention; /* of events; 0: the engine's default */
    sked_dur tick;
    char *listen;            /* NULL: no HTTP server */
    sked_http_token *tokens; /* none: no auth */
    size_t n_tokens;
    char **mcp_origins;
    size_t n_mcp_origins;
    sked_dur mcp_idle; /* 0: the server's default */
    log_format format;
    log_level level;
} server_settings;

/* The command line's options of "sked server", for cli_parse: OUT gets
 * SO_COUNT + 3 rows (the options, --config, --check-config, the end),
 * their destinations in F. */
void server_cli_opts(server_flags *f, cli_opt *out);
#define SERVER_CLI_OPTS (SO_COUNT + 3)

/* Read the configuration file of F (--config, else SKED_CONFIG_DEFAULT
 * when it exists) under F's flags and check everything into OUT. Returns
 * 0, or the exit code with the error, one line, in MSG (SIZE bytes). */
int server_settings_read(const cli_cmd *self, const server_flags *f,
                         server_settings *out, char *msg, size_t size);

/* Release what S holds and zero it. */
void server_settings_done(server_settings *s);

#endif
