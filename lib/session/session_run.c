/* The agent's run. The agent is attached and started (only after set-up
 * proved the egress path), its I/O is pumped and signals are forwarded to
 * it, and its end is told apart from a removal from outside or a lost
 * monitor, so that the CLI reports the right exit. */
#include "session_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/terminal.h"
#include "base/util.h"

void session_on_escape(session_t *s, const char *(*fn)(unsigned nth, void *ctx), void *ctx)
{
    s->escape_heard = fn;
    s->escape_heard_ctx = ctx;
}

void session_on_egress_lost(session_t *s, const char *(*fn)(void *ctx), void *ctx)
{
    s->egress_lost = fn;
    s->egress_lost_ctx = ctx;
}

/* When the router or the forwarder stops, the other is stopped too, so
 * that nothing of the egress path is left half up (the router is reachable
 * from the pod without the forwarder); then the user is told. */
static const char *on_watch(void *ctx)
{
    session_t *s = ctx;
    const char *parts[] = { s->plan->router, s->plan->forwarder };
    for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
        as_error_t *e = NULL;
        podman_container_kill(s->api, parts[i], SIGKILL, &e);
        as_error_free(&e);        /* the one that died fails here, and that is fine */
    }
    return s->egress_lost != NULL ? s->egress_lost(s->egress_lost_ctx) : NULL;
}

static void resize_agent(session_t *s)
{
    unsigned rows, cols;
    if (s->agent_id != NULL && s->io != NULL && terminal_size(s->io->in_fd, &rows, &cols)) {
        as_error_t *e = NULL;
        podman_container_resize(s->api, s->agent_id, rows, cols, &e);
        as_error_free(&e);       /* a lost resize only misdraws the screen */
    }
}

static void kill_agent(session_t *s, session_kill_t why)
{
    if (s->killed == SESSION_NOT_KILLED)
        s->killed = why;
    as_error_t *e = NULL;
    podman_container_kill(s->api, s->agent_id, SIGKILL, &e);
    as_error_free(&e);           /* the agent may already be gone */
}

static void on_signal(int signo, void *ctx)
{
    session_t *s = ctx;
    if (signo == SIGWINCH) {
        if (s->plan->in.tty)
            resize_agent(s);
        return;
    }
    /* The first signal is passed on, so that the agent can finish in order;
     * a second one kills it. */
    if (s->forwarded++ > 0) {
        kill_agent(s, SESSION_KILLED_ON_REQUEST);
        return;
    }
    if (s->plan->in.tty && signo == SIGTERM) {
        signo = SIGHUP;
        s->hup_for_term = true;
    }
    s->signal_sent = signo;
    as_error_t *e = NULL;
    podman_container_kill(s->api, s->agent_id, signo, &e);
    as_error_free(&e);           /* the agent may already be gone */
}

/* `~.` typed on the session's terminal: the first stops the agent as
 * `agent-sandbox stop` does (a SIGTERM to the CLI), and the next one kills
 * it at once. */
static const char *on_escape(unsigned nth, void *ctx)
{
    session_t *s = ctx;
    if (nth == 1 && s->forwarded == 0)
        s->by_escape = true;
    const char *line = s->escape_heard != NULL ? s->escape_heard(nth, s->escape_heard_ctx) : NULL;
    on_signal(SIGTERM, s);
    return line;
}

/* Kills the agent when it outlived the grace after the signal it was
 * passed: an agent that ignores SIGHUP would otherwise keep the CLI of a
 * closed terminal, which sends no second signal, waiting for ever. */
static void on_signal_overdue(void *ctx)
{
    session_t *s = ctx;
    s->forwarded++;
    kill_agent(s, SESSION_KILLED_AFTER_GRACE);
}

/* Ends the agent when its output cannot be written, as a shell pipeline
 * ends a writer whose reader went away (SIGPIPE), or as a lost output
 * should (SIGTERM); it gets SIGKILL when it is still there after the grace. */
static void on_output_lost(int errnum, bool again, void *ctx)
{
    session_t *s = ctx;
    s->output_lost = true;
    as_error_t *e = NULL;
    if (again && s->killed == SESSION_NOT_KILLED)
        s->killed = SESSION_KILLED_AFTER_GRACE;
    podman_container_kill(s->api, s->agent_id, again ? SIGKILL : errnum == EPIPE ? SIGPIPE : SIGTERM, &e);
    as_error_free(&e);           /* the agent may already be gone */
}

/* How long a removal from outside may take to finish after the exit it caused. */
#define REMOVAL_WAIT_MS 3000L

/* Whether the container is gone, or goes within wait_ms: a `podman rm`
 * from outside stops the agent first and removes it only after we hear of
 * its exit, so a removal is seen only by waiting a little. */
static bool container_removed(session_t *s, long wait_ms)
{
    long deadline = monotonic_ms() + wait_ms;
    for (;;) {
        bool running = false;
        as_error_t *e = NULL;
        int r = podman_container_running(s->api, s->agent_id, &running, &e);
        as_error_free(&e);
        if (r == -ENOENT)
            return true;
        if (r < 0 || monotonic_ms() >= deadline)
            return false;
        struct timespec pause = { .tv_nsec = 50 * 1000000L };
        nanosleep(&pause, NULL);
    }
}

/* Fills in the agent's exit status, or why there is none. A SIGTERM or
 * SIGKILL that the CLI did not send is what `podman rm` or `stop` from
 * outside gives, so such an exit is checked for a removal. */
static int agent_end(session_t *s, session_result_t *res, as_error_t **err)
{
    int r = podman_container_wait(s->api, s->agent_id, &res->exit_code, err);
    if (r == -ENOENT) {
        /* There is no exit code: the container was removed and forgotten,
         * or its monitor died before writing one. */
        as_error_free(err);
        res->end = container_removed(s, 0) ? SESSION_AGENT_REMOVED : SESSION_MONITOR_DIED;
        return 0;
    }
    if (r < 0)
        return r;
    bool outside = s->forwarded == 0 && !s->output_lost &&
                   (res->exit_code == 128 + SIGTERM || res->exit_code == 128 + SIGKILL);
    res->end = outside && container_removed(s, REMOVAL_WAIT_MS) ? SESSION_AGENT_REMOVED
                                                                : SESSION_AGENT_EXITED;
    /* The session was stopped as by SIGTERM; SIGHUP was only its form for
     * a TTY, so the exit reads as SIGTERM's. */
    if (s->hup_for_term && s->killed == SESSION_NOT_KILLED && res->exit_code == 128 + SIGHUP)
        res->exit_code = 128 + SIGTERM;
    res->stopped_by_escape = s->by_escape;
    res->signal_sent = s->signal_sent;
    res->killed = s->killed;
    return 0;
}

int session_run(session_t *s, const attach_io_t *io, session_result_t *ret, as_error_t **err)
{
    /* The agent was attached during set-up, before its start, so that no
     * output is missed; only a session made otherwise attaches here. */
    int r = s->agent_out == NULL ? session_attach_agent(s->api, s, err) : 0;
    if (r < 0)
        return r;
    http_stream_t *stream = steal_pointer(&s->agent_out), *input = steal_pointer(&s->agent_in);
    r = podman_container_start(s->api, s->agent_id, err);
    if (r < 0) {
        http_stream_free(stream);
        http_stream_free(input);
        return r;
    }
    s->io = io;
    if (s->plan->in.tty)
        resize_agent(s);
    /* A signal that came between set-up and start is forwarded now. */
    int sig = signal_source_terminating(s->signals);
    if (sig != 0)
        on_signal(sig, s);

    /* The egress path is watched: if it dies, egress is closed (nothing
     * falls back to another route) and the user is told. */
    http_stream_t *events = NULL;
    if (s->plan->in.router_image != NULL) {
        char *watched[] = { s->plan->router, s->plan->forwarder, NULL };
        as_error_t *werr = NULL;
        if (podman_events_died(s->api, watched, &events, &werr) < 0)
            as_error_free(&werr);     /* only the notice is lost, never the confinement */
    }
    attach_hooks_t hooks = { .signals = s->signals, .on_signal = on_signal, .watch = events, .on_watch = on_watch,
                             .on_output_lost = on_output_lost, .on_signal_overdue = on_signal_overdue,
                             .on_escape = on_escape, .ctx = s };
    session_result_t res = {0};
    r = attach_pump(stream, input, io, &hooks, &res.io, err);
    http_stream_free(stream);
    http_stream_free(input);
    http_stream_free(events);
    s->io = NULL;
    if (r < 0 || (r = agent_end(s, &res, err)) < 0)
        return r;
    *ret = res;
    return 0;
}
