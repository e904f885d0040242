#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int pipe_fds[2] = { -1, -1 };
static volatile sig_atomic_t terminating;

static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };

/* Who sent the first terminating signal (written once, before `terminating`). */
static volatile sig_atomic_t first_code, first_pid, first_value;

static void on_signal(int signo, siginfo_t *info, void *uctx)
{
    (void)uctx;
    int saved = errno;
    unsigned char b = (unsigned char)signo;
    if (signo != SIGWINCH && terminating == 0) {
        first_code = info->si_code;
        first_pid = info->si_code <= 0 ? info->si_pid : 0;
        first_value = info->si_code == SI_QUEUE ? info->si_value.sival_int : 0;
        terminating = signo;
    }
    /* a full pipe drops the byte: the flag above still records it */
    if (write(pipe_fds[1], &b, 1) < 0) { }
    errno = saved;
}

int signals_install(as_error_t **err)
{
    if (pipe_fds[0] < 0 && pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) < 0)
        return as_error_errno(err, errno, "creating the signal pipe");
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
        if (sigaction(caught[i], &sa, NULL) < 0)
            return as_error_errno(err, errno, "installing a signal handler");
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

static int next_caught(void *ctx)
{
    (void)ctx;
    unsigned char b;
    if (pipe_fds[0] < 0 || read(pipe_fds[0], &b, 1) != 1)
        return 0;
    return b;
}

static int terminating_seen(void *ctx)
{
    (void)ctx;
    return terminating;
}

bool signals_first_sender(signal_sender_t *ret)
{
    if (terminating == 0)
        return false;
    *ret = (signal_sender_t){ .signo = terminating, .pid = (pid_t)first_pid,
                              .queued = first_code == SI_QUEUE, .value = first_value };
    return true;
}

static signal_source_t source = { .fd = -1, .next = next_caught, .terminating = terminating_seen };

const signal_source_t *signals_source(void)
{
    source.fd = pipe_fds[0];
    return &source;
}

void signals_reset_for_child(void)
{
    for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
        signal(caught[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}
