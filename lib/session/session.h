/* The executor: walks a session plan (session_plan.h) as a list of steps,
 * each recording its undo before it creates anything, so that teardown can
 * undo exactly what was done, on every path (done, failed half-way,
 * interrupted). Independent steps run at once on threads of their own: the
 * router starts while the pod and the forwarder are made; the agent is
 * created (never started) while the egress path proves itself. */
#ifndef AS_SESSION_H
#define AS_SESSION_H

#include "session_plan.h"
#include "base/error.h"
#include "base/signal_source.h"
#include "base/util.h"
#include "podman/attach_stream.h"
#include "podman/podman_api.h"

typedef struct session session_t;

/* The plan is bound (session_plan_bind) during set-up: it must outlive the
 * session. `signals` (may be NULL) interrupt set-up and reach the agent. */
int session_new(podman_api_t *api, session_plan_t *plan, const signal_source_t *signals,
                session_t **ret, as_error_t **err);
void session_free(session_t *s);
DEFINE_CLEANUP_FUNC(session_t, session_free)

/* Creates the network, the router, the pod, the forwarder and the agent
 * container, and proves the egress path (the agent is not started). Stops
 * early, with -EINTR, when a terminating signal has arrived. When steps that
 * ran at once both fail, the error names each. */
int session_setup(session_t *s, as_error_t **err);

typedef enum session_end {
    SESSION_AGENT_EXITED,     /* exit_code is the agent's */
    SESSION_AGENT_REMOVED,    /* its container was removed from outside the session */
    SESSION_MONITOR_DIED,     /* its monitor (conmon) died: the exit status is lost */
} session_end_t;

typedef enum session_kill {
    SESSION_NOT_KILLED,
    SESSION_KILLED_AFTER_GRACE,   /* it outlived the grace after its signal (or its lost output) */
    SESSION_KILLED_ON_REQUEST,    /* a second signal or `~.` (`stop --now` sends two) */
} session_kill_t;

typedef struct session_result {
    session_end_t end;
    int exit_code;            /* SESSION_AGENT_EXITED: the agent's exit status
                                 (143 when it died of the SIGHUP that stood for a SIGTERM) */
    bool stopped_by_escape;   /* the user typed `~.` before any terminating signal */
    int signal_sent;          /* the first terminating signal sent to the agent, or 0 */
    session_kill_t killed;    /* whether the CLI killed the agent (SIGKILL), and why */
    attach_result_t io;       /* output write errors; the init's exec report */
} session_result_t;

/* Attaches, starts the agent and pumps its I/O until it exits. Terminating
 * signals are forwarded to the agent (a second one kills it; so does the
 * end of the grace); with a TTY a SIGTERM goes as SIGHUP, as a closed
 * terminal's would (an interactive shell ignores SIGTERM), and `~.` typed
 * on it stands for a SIGTERM (io->escape); SIGWINCH
 * resizes its terminal from io->in_fd; output that cannot be written ends
 * it (SIGPIPE for a reader gone, else SIGTERM; SIGKILL after a grace). */
int session_run(session_t *s, const attach_io_t *io, session_result_t *ret, as_error_t **err);

/* Called before a set-up step that can take seconds the first time (a new
 * home volume, the login's one-time copy), with what it does; maybe from
 * another thread. For a progress line on a terminal. */
void session_on_progress(session_t *s, void (*fn)(const char *what, void *ctx), void *ctx);

/* Called when the user types `~.` on the session's terminal (the nth
 * time), before the agent is signalled: the line it returns (the CLI's
 * words that it heard it; static, may be NULL) is written to the user's
 * stderr with the agent's output, so that a terminal nobody reads never
 * holds the stop up. */
void session_on_escape(session_t *s, const char *(*fn)(unsigned nth, void *ctx), void *ctx);

/* Called (once) when the router or the forwarder stops mid-session: egress
 * is then closed, and the line it returns is written as session_on_escape's. */
void session_on_egress_lost(session_t *s, const char *(*fn)(void *ctx), void *ctx);

/* Undoes what set-up did, newest first; the router and the pod go at once.
 * Keeps going past failures and reports every one (joined in one error);
 * what could not be removed stays recorded (session_leftovers). A resource
 * already gone counts as removed. */
int session_teardown(session_t *s, as_error_t **err);

/* Sets the API to use for teardown, when the first service died. */
void session_set_api(session_t *s, podman_api_t *api);

/* Returns the names of the resources still recorded (after a failed
 * teardown), one per line. */
char *session_leftovers(const session_t *s);

#endif
