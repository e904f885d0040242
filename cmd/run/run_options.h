/* The options of the default command (a session), in one table that the
 * parser and the usage text both read (cmd/run/run_options.c). Parsing stops at
 * the first argument that is not one of them, at `--` or after `--exec`:
 * the rest is the agent's arguments, or the command. --help/-h and --version
 * win over anything before them that is malformed. */
#ifndef AS_RUN_OPTIONS_H
#define AS_RUN_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "session/session_inputs.h"
#include "session/session_load.h"


typedef struct run_options {
    bool help, version;      /* print that and exit; nothing else is set */
    bool args_verbatim;      /* the command came after `--` or --exec: never judged */
    bool args_first;         /* the agent's arguments start at argv[1] (a command's place) */
    session_request_t req;   /* what the session is asked to be (owned: its command, env,
                              * secrets and toolchains) */
} run_options_t;

/* 0 and *ret filled; -EINVAL after reporting a usage error; -ENOMEM. */
int run_options_parse(int argc, char **argv, run_options_t *ret);
void run_options_clear(run_options_t *o);
/* --toolchain NAME, checked against the toolchains this build knows and
 * added; and --image with --toolchain refused. -EINVAL after reporting. */
int toolchain_option(char ***toolchains, const char *name);
int image_options_check(char *const *toolchains, const char *image);

/* The agent's first argument (run_options_parse stopped there) judged as
 * a mistyped option or command (docs/cli.md has the rule), and the --env
 * names the sandbox sets itself, against the agent's profile. 0, or
 * -EINVAL after reporting. */
struct agent_profile;
int run_options_check(const run_options_t *o, const struct agent_profile *agent);

/* The option lines of the usage text, made from the table. */
void run_options_usage(FILE *f);

#endif
