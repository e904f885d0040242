/* What the CLI says of a session (run.h, run_events): at its start, on a
 * terminal, which session it is and how to stop it; when `~.` is typed,
 * that the CLI heard it; when the egress path is lost, that the sandbox has
 * no network; at the agent's end, who stopped it and how it ended
 * (docs/faults.md, "Stopping a session") and what the CLI could not do for
 * it; and the exit code of its ending. */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <errno.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "run.h"
#include "shared/session_list.h"
#include "base/escape.h"
#include "base/msg.h"
#include "base/signals.h"
#include "base/util.h"
#include "podman/exec_failure.h"
#include "session/session_registry.h"

static void session_start_line(const session_start_t *st, void *ctx)
{
    (void)ctx;
    progress_clear();
    if (!isatty(STDERR_FILENO))
        return;
    msg_t m;
    if (msg_open(&m, NULL) < 0)
        return;
    FILE *f = m.f;
    fprintf(f, "session %s (", st->id);
    if (st->agent != NULL)
        fprintf(f, "%s, autonomy %s", st->agent, st->autonomy ? "on" : "off");
    else
        fputs("--exec", f);
    fputs(") in ", f);
    session_put_dir(f, st->workdir);
    fprintf(f, "; stop: %sagent-sandbox stop %s", st->tty ? "~. or " : "", st->id);
    for (size_t i = 0; i < st->n_publish; i++)
        fprintf(f, "%s http://" PUBLISH_HOST_IP ":%u", i == 0 ? "; published:" : ",",
                (unsigned)st->publish[i].host_port);
    _cleanup_free_ char *text = NULL;
    if (msg_close(&m, &text, NULL) == 0)
        report("%s", text);
}

/* The terminal is raw then, hence \r\n. */
static const char *session_escape_heard(unsigned nth, void *ctx)
{
    (void)ctx;
    return nth == 1 ? "\r\nagent-sandbox: ~. heard: stopping the session (~. again kills the agent at once)\r\n"
                    : "\r\nagent-sandbox: ~. again: killing the agent\r\n";
}

static const char *signal_name(int signo)
{
    switch (signo) {
    case SIGTERM: return "SIGTERM";
    case SIGHUP:  return "SIGHUP";
    case SIGINT:  return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    default:      return "a signal";
    }
}

/* The terminal the process at `pid` runs on (/dev/pts/N), from its
 * standard descriptors; "" when none or not ours to see. */
static void terminal_of(pid_t pid, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int fd = 0; fd <= 2; fd++) {
        char link[64];
        snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, fd);
        ssize_t n = readlink(link, buf, size - 1);
        if (n > 0) {
            buf[n] = '\0';
            if (strncmp(buf, "/dev/pts/", 9) == 0 || strncmp(buf, "/dev/tty", 8) == 0)
                return;
        }
        buf[0] = '\0';
    }
}

/* The name of the process at `pid` (its comm), or "". */
static void name_of(pid_t pid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "re");
    buf[0] = '\0';
    if (f != NULL) {
        if (fgets(buf, (int)size, f) == NULL)
            buf[0] = '\0';
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = '\0';
}

/* Who stopped the session, for "stopped by ...". */
static void stopper(const session_result_t *res, char *buf, size_t size)
{
    signal_sender_t from;
    if (res->stopped_by_escape || !signals_first_sender(&from)) {
        snprintf(buf, size, "~. on its terminal");
        return;
    }
    char where[PATH_MAX] = "", name[64] = "";
    if (from.pid > 0) {
        terminal_of(from.pid, where, sizeof(where));
        name_of(from.pid, name, sizeof(name));
    }
    if (from.queued && from.value == SESSION_STOP_SIGNAL_VALUE)
        snprintf(buf, size, "`agent-sandbox stop` (PID %d%s%s)", (int)from.pid, where[0] ? " on " : "", where);
    else if (from.pid > 0)
        snprintf(buf, size, "%s from PID %d (%s%s%s)", signal_name(from.signo), (int)from.pid,
                 name[0] ? name : "?", where[0] ? " on " : "", where);
    else
        snprintf(buf, size, "%s%s", signal_name(from.signo),
                 from.signo == SIGHUP ? " (its terminal closed)" : "");
}

static void session_stopped_line(const session_result_t *res, bool tty)
{
    if (res->end != SESSION_AGENT_EXITED || (res->signal_sent == 0 && res->killed == SESSION_NOT_KILLED))
        return;
    signal_sender_t from;
    if (!res->stopped_by_escape && !signals_first_sender(&from))
        return;                  /* killed for its lost output: said apart */
    char who[PATH_MAX + 160];
    stopper(res, who, sizeof(who));
    const char *sent = signal_name(res->signal_sent);
    if (tty)
        fputc('\n', stderr);     /* the agent's screen may end mid-line */
    switch (res->killed) {
    case SESSION_KILLED_AFTER_GRACE:
        report("session stopped by %s; the agent ignored %s and was killed after %ld s (exit %d)", who, sent,
               ATTACH_SIGNAL_GRACE_MS / 1000, res->exit_code);
        break;
    case SESSION_KILLED_ON_REQUEST:
        report("session stopped by %s; the agent was killed at once (a second request; exit %d)", who,
               res->exit_code);
        break;
    default:
        report("session stopped by %s; the agent ended after %s (exit %d)", who, sent, res->exit_code);
        break;
    }
}

/* Mid-session, possibly with the terminal raw: one line, then go on. */
static const char *egress_lost(void *ctx)
{
    (void)ctx;
    return "\r\nagent-sandbox: the egress router stopped: the sandbox has no network access now (it "
           "fails closed)\r\n";
}

/* The init could not execute the command: whether a shell would say 127
 * (not found) or 126 (not executable); NULL when it could. */
static const char *exec_failed(const session_ending_t *e, char *reason, size_t size)
{
    if (e->agent.exit_code != 1 || exec_failure_reason(&e->agent.io.exec, reason, size) == NULL)
        return NULL;
    return reason;
}

/* How the agent ended, told: who stopped it, what the CLI could not do for
 * it (its output, its status), a command that could not be executed. */
static void agent_ended(const session_ending_t *e, void *ctx)
{
    const session_request_t *req = ctx;
    const session_result_t *res = &e->agent;
    const attach_result_t *out = &res->io;
    char reason[EXEC_FAILURE_HELD_MAX];
    session_stopped_line(res, e->tty);
    if (res->end == SESSION_AGENT_REMOVED)
        report("error: the agent's container was removed from outside the session "
               "(podman rm); the agent did not finish");
    else if (res->end == SESSION_MONITOR_DIED)
        report("error: the agent's monitor (conmon) died mid-session; the agent's exit status is lost");
    if (res->end != SESSION_AGENT_EXITED)
        return;
    if (out->output_dropped > 0)
        report("note: the last %zu bytes of the agent's output were dropped at the stop: their reader "
               "had stopped taking any", out->output_dropped);
    if (out->output_errno != 0 && out->output_errno != EPIPE) {
        report("error: writing the agent's output to %s failed: %s; the agent was stopped",
               out->output_errno_on_err ? "stderr" : "stdout", strerror(out->output_errno));
    } else if (exec_failed(e, reason, sizeof(reason)) != NULL) {
        _cleanup_free_ char *name = e->command != NULL ? path_escaped(e->command) : NULL;
        report("error: cannot run %s in the sandbox: %s%s", name != NULL ? name : "the command", reason,
               exec_failure_not_found(reason) ? " (no such command on the image's PATH or in the launch "
                                                "directory)" : "");
    } else if (exec_failure_reason(&out->exec, reason, sizeof(reason)) != NULL &&
               write(e->tty ? req->out_fd : req->err_fd, out->exec.held, out->exec.len) < 0) {
        /* the command ran after all and wrote this itself: passed on */
    }
}

/* The exit code of a session whose agent ran: its own, or the CLI's when it
 * was ended from outside, its status was lost, its output could not be
 * written, or its command could not be executed (EPIPE: the reader went
 * away and the agent ended as a shell's writer would; its own status, 141
 * for SIGPIPE, is the answer). */
static int agent_exit_code(const session_ending_t *e)
{
    const session_result_t *res = &e->agent;
    char reason[EXEC_FAILURE_HELD_MAX];
    if (res->end == SESSION_AGENT_REMOVED)
        return EXIT_AGENT_REMOVED;
    if (res->end == SESSION_MONITOR_DIED)
        return EXIT_SERVICE_LOST;
    if (res->io.output_errno != 0 && res->io.output_errno != EPIPE)
        return EXIT_OUTPUT;
    if (exec_failed(e, reason, sizeof(reason)) != NULL)
        return exec_failure_not_found(reason) ? EXIT_NOT_FOUND : EXIT_NOT_EXEC;
    return res->exit_code;
}

int run_exit_code(const session_request_t *req, const session_ending_t *e)
{
    (void)req;
    int rc = e->fault == SESSION_FAULT_SIGNALLED ? 128 + e->signal
             : e->fault != SESSION_OK          ? exit_code_of(e->fault)
             : e->ran                           ? agent_exit_code(e)
                                                : 0;
    /* what could not be removed is said; a session that else succeeded fails */
    return rc == 0 && e->teardown_failed ? EXIT_SETUP : rc;
}

/* The events' context (say.ctx) is the session's request (run_loaded). */
const session_events_t run_events = {
    .say = { .line = cli_say_line, .progress = cli_say_progress },
    .started = session_start_line,
    .agent_ended = agent_ended,
    .escape_heard = session_escape_heard,
    .egress_lost = egress_lost,
};
