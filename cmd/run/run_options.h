/* The options of the default command (a session), in one table that the
 * parser and the usage text both read (cmd/run/run_options.c). Parsing stops at
 * the first argument that is not one of them, at `--` or after `--exec`:
 * the rest is the agent's arguments, or the command. --help/-h and --version
 * win over anything before them that is malformed. */
#ifndef AS_RUN_OPTIONS_H
#define AS_RUN_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "config/publish.h"

struct session_plan;

#ifndef AS_IMAGE_TAG
#define AS_IMAGE_TAG "dev"
#endif
#define DEFAULT_IMAGE "localhost/agent-sandbox:" AS_IMAGE_TAG
#define DEFAULT_ROUTER_IMAGE "localhost/agent-sandbox-router:" AS_IMAGE_TAG
#define DEFAULT_EGRESS_NETWORK "agent-sandbox-egress"

typedef struct run_options {
    bool help, version;      /* print that and exit; nothing else is set */
    bool exec;
    bool dry_run;
    bool review;             /* --review: the writes kept in a review (docs/review.md) */
    const char *agent;       /* --agent NAME, or NULL */
    enum { AUTONOMY_SETTING, AUTONOMY_ON, AUTONOMY_OFF } autonomy;   /* --autonomy, --no-autonomy */
    char **toolchains;       /* --toolchain NAME..., owned, or NULL */
    const char *image;       /* --image NAME (a derived image's name), or NULL */
    const char *memory, *pids, *cpus;   /* as given, or NULL */
    char **command;          /* NULL-terminated, owned: the agent's ARGS... (NULL when none),
                              * or COMMAND ARGS... with exec */
    bool args_verbatim;      /* the command came after `--` or --exec: never judged */
    bool args_first;         /* the agent's arguments start at argv[1] (a command's place) */
    char **env;              /* KEY=VALUE, NULL-terminated, owned */
    char **secrets;          /* --secret NAME..., owned, or NULL (docs/secrets.md) */
    publish_t publish[PUBLISH_MAX];     /* --publish, in order */
    size_t n_publish;
    /* Not options of the command line: where the session's I/O goes
     * (run_options_parse: the standard fds, a TTY when they are
     * terminals), and what verify asks of its probe's session. */
    int in_fd, out_fd, err_fd;   /* in_fd -1: no input */
    bool allow_tty;
    bool private_home;       /* an empty home of its own, no volume */
    bool no_notices;         /* no desktop notifications (its probes are refused on purpose) */
    bool verify;             /* verify's probe session: its egress is verify's, not an agent's */
    const char *ps_command;  /* what `ps` shows instead of the command, or NULL */
    /* Called with the complete plan before set-up (verify derives what it
     * expects from it); may be NULL. */
    void (*on_plan)(const struct session_plan *plan, void *ctx);
    void *on_plan_ctx;
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
