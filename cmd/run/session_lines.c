/* The lines a session prints about itself on the user's terminal: at its
 * start, which session it is and how to stop it; when `~.` is typed, that
 * the CLI heard it; at the end of a stopped session, who stopped it and
 * how the agent ended (docs/faults.md, "Stopping a session"). */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cli.h"
#include "run.h"
#include "shared/session_list.h"
#include "base/escape.h"
#include "base/msg.h"
#include "base/signals.h"
#include "base/util.h"
#include "session/session_registry.h"

void session_start_line(const session_start_t *st)
{
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

const char *session_escape_heard(unsigned nth, void *ctx)
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

void session_stopped_line(const session_result_t *res, bool tty)
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
