/* Shared by every subcommand: the exit codes, reporting, and the table of
 * subcommands. The rest has a header by concern: backend.h (session
 * directory, private service), inputs.h (a session's inputs, loaded and
 * reported), run.h (one session), egress_report.h, session_list.h. */
#ifndef AS_CLI_H
#define AS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

/* The CLI's own failures; the agent's exit code is passed through as is.
 * Kept apart from the shell's 126/127 and 128+N, and documented in README
 * and in --help (usage()): one table, kept in step with tests/e2e. */
enum {
    EXIT_USAGE         = 64,  /* bad arguments */
    EXIT_CONFIG        = 65,  /* a config file is unreadable or malformed */
    EXIT_NO_IMAGE      = 66,  /* the sandbox or router image is missing, or refused by the image check */
    EXIT_NO_SERVICE    = 69,  /* the private podman service did not start */
    EXIT_INTERNAL      = 70,  /* a bug or an unexpected answer */
    EXIT_SETUP         = 71,  /* the confinement could not be set up */
    EXIT_OUTPUT        = 74,  /* the agent's output could not be written (ENOSPC, EIO) */
    EXIT_SERVICE_LOST  = 75,  /* the agent's exit status is lost: the podman service or its conmon died */
    EXIT_AGENT_REMOVED = 76,  /* the agent's container was removed from outside the session */
    EXIT_REFUSED       = 77,  /* the launch directory was refused */
    EXIT_NO_RUNTIME_DIR = 78, /* no usable XDG_RUNTIME_DIR, nor /run/user/UID */
    EXIT_NOT_FOUND     = 127, /* the command does not exist in the sandbox */
    EXIT_NOT_EXEC      = 126, /* the command exists but cannot be executed */
};

/* AGENT_SANDBOX_TRACE=1: every API call with its time, on stderr. */
void trace_enable(void);

void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A progress line for a slow step, on a terminal only (cmd/shared/progress.c);
 * erased by the next report and before the agent starts. */
void progress_show(const char *what, void *ctx);
void progress_clear(void);
/* Prints "agent-sandbox: error: <err>" and frees it. */
void report_error(as_error_t **err);
/* Reports an error whose message holds one error per line (a config
 * file's), each as a line of its own, and frees it. */
void report_config_errors(as_error_t **err);
/* After a failure this host may be the cause of: where to look. */
void report_doctor_hint(void);

/* The subcommands (cmd/main.c): each one's --help is its synopsis and help. */
typedef struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *synopsis;    /* after "agent-sandbox NAME " */
    const char *summary;     /* one line in the tool's --help */
    const char *help;        /* what it does, and its options */
} cli_command_t;
extern const cli_command_t cli_commands[];
extern const size_t cli_n_commands;

/* A subcommand's usage errors (cmd/shared/arg_errors.c), reported; each returns
 * EXIT_USAGE. An unknown option names the nearest of the `known` ones
 * (lib/base/suggest.h); each ends with the command's synopsis. */
int cli_bad_argument(const char *command, const char *arg, const char *const *known, size_t n);
int cli_missing_value(const char *command, const char *option, const char *what);
int cli_missing_argument(const char *command, const char *what);

/* The tool's --help; one command's (cmd/usage.c). */
void cli_usage(FILE *f);
void cli_command_usage(FILE *f, const cli_command_t *c);
/* --version: the tool's, the images' and the agents' pins. */
int cmd_version(void);

int cmd_run(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_allow(int argc, char **argv);
int cmd_deny(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_reviews(int argc, char **argv);
int cmd_discard(int argc, char **argv);

#endif
