/* The executor's inside, shared by its files: session.c (the steps of
 * set-up), session_run.c (the agent's run) and session_teardown.c (the
 * undo). It is apart from session.h so that callers see only the contract. */
#ifndef AS_SESSION_INT_H
#define AS_SESSION_INT_H

#include <pthread.h>
#include <stdbool.h>

#include "router_held.h"
#include "session.h"

/* What undoes a step: removing what it created. A container in the pod
 * goes with the pod's forced removal: one API call instead of one per
 * container. */
typedef enum { UNDO_NETWORK, UNDO_POD, UNDO_CONTAINER, UNDO_POD_CONTAINER } undo_kind_t;

typedef struct undo {
    undo_kind_t kind;
    char *name;
} undo_t;

#define SESSION_MAX_UNDO 8

/* A job runs one API call sequence on a thread of its own, with its own
 * connection, so that independent steps overlap: the router starts while
 * the pod is made, the agent is created while the egress path proves
 * itself, and the router goes while the pod goes. */
typedef struct bg_job {
    pthread_t thread;
    podman_api_t *api;       /* NULL: not running */
    int (*fn)(podman_api_t *api, void *arg, as_error_t **err);
    void *arg;
    const char *what;        /* its error's prefix; NULL: none */
    int rc;
    as_error_t *err;
} bg_job_t;

struct session {
    podman_api_t *api;
    session_plan_t *plan;
    const signal_source_t *signals;
    undo_t done[SESSION_MAX_UNDO];   /* what set-up created, oldest first */
    size_t n_done;
    bg_job_t router_job, agent_job;
    router_held_job_t held_job;      /* the router's start with held secrets */
    char *forwarder_id;
    http_stream_t *forwarder_output; /* attached before its start, until it is ready */
    char *agent_id;
    http_stream_t *agent_out, *agent_in;   /* attached in set-up, taken by session_run */
    /* while the agent runs */
    const attach_io_t *io;
    int forwarded;           /* terminating signals forwarded to the agent so far */
    bool hup_for_term;       /* a SIGTERM (or `~.`) went to a TTY agent as SIGHUP */
    session_kill_t killed;   /* the CLI sent the agent SIGKILL, and why */
    bool by_escape;          /* the first stop was the user's `~.` */
    int signal_sent;         /* the first terminating signal sent to the agent, or 0 */
    bool output_lost;        /* the agent was stopped because its output could not be written */
    const char *(*escape_heard)(unsigned nth, void *ctx);
    void *escape_heard_ctx;
    const char *(*egress_lost)(void *ctx);
    void *egress_lost_ctx;
    void (*progress)(const char *what, void *ctx);
    void *progress_ctx;
};

int bg_start(bg_job_t *j, podman_api_t *api, int (*fn)(podman_api_t *, void *, as_error_t **),
             void *arg, const char *what, as_error_t **err);
/* Waits for the job; its error (prefixed with its `what`) is added to *err. */
int bg_join(bg_job_t *j, as_error_t **err);

/* Attaches to the agent's container (not started): its output, and
 * without a TTY its stdin on a connection of its own (attach_pump). */
int session_attach_agent(podman_api_t *api, session_t *s, as_error_t **err);

#endif
