/* The service's keeper: the process between the CLI and `podman system
 * service` (lib/podman/service_keeper.h). */
#include "service_keeper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/signals.h"

/* The descriptors the keeper keeps, all others closed. */
enum { KEEP_HOLD = 3, KEEP_TELL = 4 };

/* What the keeper ignores (only its pipe ends it), and the service must
 * not: an ignored signal stays ignored across exec. */
static const int keeper_ignores[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2 };
#define N_KEEPER_IGNORES (sizeof(keeper_ignores) / sizeof(keeper_ignores[0]))

__attribute__((noreturn)) static void service_exec(const char *socket_path, const char *log_path,
                                                   pid_t keeper)
{
    /* Die with the keeper, even when it is SIGKILLed (it stops the service
     * itself in every other case). */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != keeper)
        _exit(127);
    signals_reset_for_child();
    for (size_t i = 0; i < N_KEEPER_IGNORES; i++)
        signal(keeper_ignores[i], SIG_DFL);
    /* Not the launch directory: podman fails at start in one it cannot use
     * (a path over PATH_MAX), and must not pin it. The CLI checks it. */
    if (chdir("/") < 0)
        _exit(127);
    /* These would make the service a client of some other podman. */
    unsetenv("CONTAINER_HOST");
    unsetenv("CONTAINER_CONNECTION");

    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (null < 0 || log < 0 || dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
        _exit(127);
    closefrom(3);

    char uri[256];
    snprintf(uri, sizeof(uri), "unix://%s", socket_path);
    char *argv[] = { "podman", "system", "service", "--time=0", uri, NULL };
    execvp(argv[0], argv);
    dprintf(2, "agent-sandbox: cannot run podman: %s\n", strerror(errno));
    _exit(127);
}

/* Ends the way the service ended, so that the CLI's waitpid reads the
 * service's own status. */
__attribute__((noreturn)) static void end_as(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        prctl(PR_SET_PDEATHSIG, 0);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

/* Until `pidfd` is readable or `ms` pass (no limit when negative). */
static bool ended_within(int pidfd, long ms)
{
    struct pollfd p = { .fd = pidfd, .events = POLLIN };
    int r;
    while ((r = poll(&p, 1, (int)ms)) < 0 && errno == EINTR) { }
    return r > 0;
}

/* SIGTERM, and SIGKILL after `ms`; its status. */
static int stop_service(pid_t pid, int pidfd, long ms)
{
    kill(pid, SIGTERM);
    if (!ended_within(pidfd, ms))
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
    return status;
}

/* What the holders of the pipe say: a stop deadline in ms, or nothing
 * (every write end closed: the default one). -1 for a spurious wake. */
static long stop_asked(void)
{
    long ms = 0;
    ssize_t n = read(KEEP_HOLD, &ms, sizeof(ms));
    if (n == (ssize_t)sizeof(ms) && ms > 0)
        return ms;
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return -1;
    return SERVICE_KEEPER_STOP_MS;
}

__attribute__((noreturn)) void service_keeper_run(int hold_fd, int tell_fd, const char *socket_path,
                                                  const char *log_path)
{
    /* Own process group: the terminal's signals go to the CLI, which
     * decides; and no signal ends it but SIGKILL: its pipe does. */
    setpgid(0, 0);
    prctl(PR_SET_NAME, "as-keeper");
    signals_reset_for_child();
    for (size_t i = 0; i < N_KEEPER_IGNORES; i++)
        signal(keeper_ignores[i], SIG_IGN);
    /* above both first: either may be 3 or 4 */
    int hold = fcntl(hold_fd, F_DUPFD, KEEP_TELL + 1), tell = fcntl(tell_fd, F_DUPFD, KEEP_TELL + 1);
    if (hold < 0 || tell < 0 || dup2(hold, KEEP_HOLD) < 0 || dup2(tell, KEEP_TELL) < 0)
        _exit(127);
    closefrom(KEEP_TELL + 1);

    pid_t keeper = getpid(), pid = fork();
    if (pid < 0)
        _exit(127);
    if (pid == 0)
        service_exec(socket_path, log_path, keeper);
    int pidfd = pidfd_open(pid, 0);
    ssize_t told = write(KEEP_TELL, &pid, sizeof(pid));
    close(KEEP_TELL);
    if (pidfd < 0 || told != (ssize_t)sizeof(pid)) {
        kill(pid, SIGKILL);
        _exit(127);
    }
    struct pollfd p[2] = { { .fd = pidfd, .events = POLLIN }, { .fd = KEEP_HOLD, .events = POLLIN } };
    for (;;) {
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        if (p[0].revents != 0)
            break;                      /* the service ended by itself */
        long ms = p[1].revents != 0 ? stop_asked() : -1;
        if (ms > 0)
            end_as(stop_service(pid, pidfd, ms));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
    end_as(status);
}
