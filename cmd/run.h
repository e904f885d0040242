/* One session from its request to its end (cmd/cmd_run.c). */
#ifndef AS_RUN_H
#define AS_RUN_H

#include <stdbool.h>
#include <stddef.h>

struct session_plan;

/* One session: the command, its environment and where its I/O goes. */
typedef struct run_request {
    const char *agent;       /* --agent NAME, or NULL (agent_config_load) */
    bool exec;               /* command replaces the agent's; else it is its arguments */
    char **command;          /* NULL-terminated; may be NULL without exec */
    char **env;              /* KEY=VALUE, NULL-terminated, may be NULL */
    bool dry_run;
    int in_fd, out_fd, err_fd;   /* in_fd -1: no input */
    bool allow_tty;          /* a TTY when in_fd and out_fd are terminals */
    bool private_home;       /* an empty home of its own, no volume (verify) */
    bool no_notices;         /* no desktop notifications (verify: its probes are refused on purpose) */
    const char *memory, *pids, *cpus;   /* command-line limits, or NULL */
    const struct publish *publish;      /* --publish, n_publish of them */
    size_t n_publish;
    const char *ps_command;  /* what `ps` shows instead of the command, or NULL */
    /* Called with the complete plan before set-up (verify derives what it
     * expects from it); may be NULL. */
    void (*on_plan)(const struct session_plan *plan, void *ctx);
    void *on_plan_ctx;
} run_request_t;

/* Runs a session to its end; returns the agent's exit code or the CLI's. */
int run_session(const run_request_t *req);

#endif
