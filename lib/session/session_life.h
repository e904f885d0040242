/* One session's life, from its loaded inputs (session_load.h) to its end:
 * the launch decided (session_launch.h), the one start of the private
 * service, the workspace loaded and begun (or the review made), the images
 * checked, the plan built, set up, the agent run, and the ending
 * (session_finish.c): the workspace checked or the review summed up, the
 * egress told, the removals now or, once the agent has exited, after the
 * prompt in a child. Everything said goes through the caller's events
 * (lib/ never prints); what happened comes back typed (session_ending_t),
 * and the caller reports it and picks the exit code. */
#ifndef AS_SESSION_LIFE_H
#define AS_SESSION_LIFE_H

#include <stdbool.h>

#include "backend.h"
#include "session.h"
#include "session_egress.h"
#include "session_inputs.h"
#include "session_say.h"
#include "review/review_store.h"
#include "workspace/workspace.h"

/* What a session says about itself as it starts (on a terminal). */
typedef struct session_start {
    const char *id;
    const char *agent;       /* NULL: --exec */
    bool autonomy;           /* the agent's unattended mode is on */
    const char *workdir;
    bool tty;                /* `~.` works */
    const publish_t *publish;
    size_t n_publish;
} session_start_t;

/* How a session ended: typed, for the caller to tell and to map to its
 * exit code. */
typedef struct session_ending {
    session_fault_t fault;   /* SESSION_OK: the agent ran (`agent` says how it ended) */
    int signal;              /* SESSION_FAULT_SIGNALLED: the terminating signal */
    bool ran;                /* the agent started: `agent` is filled */
    session_result_t agent;
    char *command;           /* the command that ran (its first word, for an exec failure's words) */
    bool tty;                /* the session had a terminal */
    bool busy;               /* refused: another session runs in the tree (workdir) */
    char *workdir;
    bool teardown_failed;    /* something of it could not be removed (said; the next start removes it) */
    bool teardown_later;     /* the removals go on after the prompt, in a child */
    char *plan_text;         /* --dry-run: the plan, described */
} session_ending_t;

void session_ending_clear(session_ending_t *e);

/* The caller's side: every line (say), and the moments that are the
 * caller's to tell. Each may be NULL. */
typedef struct session_events {
    session_say_t say;
    /* the agent is about to start (set-up done) */
    void (*started)(const session_start_t *st, void *ctx);
    /* the agent's run is over, before the ending: its result in e */
    void (*agent_ended)(const session_ending_t *e, void *ctx);
    /* lines written with the agent's output (session_on_escape) */
    const char *(*escape_heard)(unsigned nth, void *ctx);
    const char *(*egress_lost)(void *ctx);
} session_events_t;

/* The lifecycle object: who owns what. The request and the inputs are the
 * caller's; the inputs are filled further at the launch (id, directories,
 * workspace, review, home, what the request decides) and freed by the
 * caller (session_inputs_clear). The rest is the life's own. */
typedef struct session_life {
    const session_request_t *req;
    session_inputs_t *in;
    const session_events_t *ev;
    const signal_source_t *signals;
    backend_t backend;
    workspace_t *ws;
    review_info_t review;
    bool reviewing;          /* review mode: no workspace guard, a review instead */
    session_plan_t *plan;
    session_t *s;
    bool exited;             /* the agent's exit seen: its processes are gone */
    egress_notices_t *notices;
    session_ending_t *end;
} session_life_t;

/* The session on loaded inputs, to its end (*ret filled; clear it). */
void session_life_run(const session_request_t *req, session_inputs_t *in, const signal_source_t *signals,
                      const session_events_t *ev, session_ending_t *ret);

/* The ending, whatever happened before (session_finish.c): the agent's
 * processes are gone once it has exited, so the user's part ends with the
 * workspace check (or the review's summary) and the egress lines, and the
 * removals go on after the prompt, in a child that keeps the session
 * directory's lock; before it, when the next command needs them done (a
 * review is summed up from an upper directory no container holds, a
 * published port stays bound until the pod goes), when the agent did not
 * exit, or when no child can be had. Frees the session and the plan. */
void session_finish(session_life_t *l);

/* What the removals after earlier sessions' prompts could not do: said
 * once (the sweep that follows removes what they left). */
void session_finish_failures_tell(const session_say_t *to);

#define TEARDOWN_LOG "teardown.log"
#define TEARDOWN_FAILED "teardown.failed"

#endif
