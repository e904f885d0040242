#include "service.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/signals.h"
#include "base/util.h"

static void sleep_ms(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) { }
}

/* The last line the service wrote, for error messages. */
static char *last_log_line(const char *log_path)
{
    FILE *f = fopen(log_path, "re");
    if (f == NULL)
        return NULL;
    char line[1024], last[1024] = "";
    while (fgets(line, sizeof(line), f) != NULL)
        if (line[0] != '\n')
            memcpy(last, line, sizeof(last));
    fclose(f);
    last[strcspn(last, "\n")] = '\0';
    return last[0] ? strdup(last) : NULL;
}

__attribute__((noreturn)) static void child(const char *socket_path, const char *log_path, pid_t parent)
{
    /* Own process group: the terminal's signals go to the CLI, which decides. */
    setpgid(0, 0);
    /* Die with the CLI, even when it is SIGKILLed. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(127);
    signals_reset_for_child();
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

bool podman_service_alive(podman_service_t *s)
{
    if (s == NULL || s->reaped)
        return false;
    int status;
    pid_t r = waitpid(s->pid, &status, WNOHANG);
    if (r == s->pid || (r < 0 && errno == ECHILD)) {
        s->reaped = true;
        s->exit_status = r == s->pid ? status : 0;
        return false;
    }
    return true;
}

/* A watch for what is created in the directory of the service's socket:
 * the socket's appearance wakes the CLI at once (signalled, not polled;
 * the service takes 40-90 ms to bind it). -1 without inotify. */
static int socket_dir_watch(const char *socket_path)
{
    _cleanup_free_ char *copy = strdup(socket_path);
    if (copy == NULL)
        return -1;
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd >= 0 && inotify_add_watch(fd, dirname(copy), IN_CREATE | IN_MOVED_TO) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Until `fd` is readable or `ms` pass; without an fd (no inotify, no
 * pidfd), 2 ms. True when readable. */
static bool wait_readable(int fd, long ms)
{
    if (fd < 0) {
        sleep_ms(2);
        return false;
    }
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, (int)ms) > 0;
}

/* Until something is created in the watched directory or `ms` pass. */
static void wait_created(int watch, long ms)
{
    if (wait_readable(watch, ms)) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        while (read(watch, buf, sizeof(buf)) > 0) { }
    }
}

static int start_failed(podman_service_t *s, as_error_t **err)
{
    _cleanup_free_ char *last = last_log_line(s->log_path);
    return as_error_make(err, ECHILD, "the podman service exited at start (%s %d)%s%s",
                         WIFSIGNALED(s->exit_status) ? "signal" : "status",
                         WIFSIGNALED(s->exit_status) ? WTERMSIG(s->exit_status) : WEXITSTATUS(s->exit_status),
                         last ? ": " : "", last ? last : "");
}

/* Until /_ping answers on the socket, the service dies, a terminating
 * signal comes or the deadline passes. Its socket is looked for when the
 * directory changes (at the latest every 50 ms: the other conditions),
 * and pinged every 2 ms once there (bound, maybe not yet listening). */
static int wait_answering(podman_service_t *s, podman_api_t *api, long timeout_ms,
                          const signal_source_t *signals, as_error_t **err)
{
    long deadline = monotonic_ms() + timeout_ms;
    int watch = socket_dir_watch(s->socket_path), r = 0;
    for (;;) {
        as_error_t *ping_err = NULL;
        bool bound = access(s->socket_path, F_OK) == 0;
        if (bound && podman_ping(api, 2000, &ping_err) == 0)
            break;
        as_error_free(&ping_err);
        if (!podman_service_alive(s)) {
            r = start_failed(s, err);
            break;
        }
        if (signal_source_terminating(signals) != 0) {
            r = as_error_make(err, EINTR, "interrupted while the podman service was starting");
            break;
        }
        long left = deadline - monotonic_ms();
        if (left <= 0) {
            _cleanup_free_ char *last = last_log_line(s->log_path);
            r = as_error_make(err, ETIMEDOUT, "the podman service did not answer on %s within %ld ms%s%s",
                              s->socket_path, timeout_ms, last ? "; its log says: " : "", last ? last : "");
            break;
        }
        if (bound)
            sleep_ms(2);
        else
            wait_created(watch, left < 50 ? left : 50);
    }
    if (watch >= 0)
        close(watch);
    return r;
}

int podman_service_start(const char *socket_path, const char *log_path, long timeout_ms,
                         const signal_source_t *signals, podman_service_t **ret,
                         podman_api_t **ret_api, as_error_t **err)
{
    _cleanup_(podman_service_freep) podman_service_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    s->socket_path = strdup(socket_path);
    s->log_path = strdup(log_path);
    if (s->socket_path == NULL || s->log_path == NULL)
        return as_error_make(err, ENOMEM, "out of memory");

    pid_t parent = getpid();
    s->pid = fork();
    if (s->pid < 0)
        return as_error_errno(err, errno, "starting the podman service");
    if (s->pid == 0)
        child(socket_path, log_path, parent);

    _cleanup_(podman_api_freep) podman_api_t *api = NULL;
    int r = podman_api_new(socket_path, &api, err);
    if (r >= 0)
        r = wait_answering(s, api, timeout_ms, signals, err);
    if (r < 0) {
        podman_service_stop(s, 2000, NULL);
        return r;
    }
    *ret = steal_pointer(&s);
    *ret_api = steal_pointer(&api);
    return 0;
}

int podman_service_stop(podman_service_t *s, long timeout_ms, as_error_t **err)
{
    if (s == NULL || !podman_service_alive(s))
        return 0;
    int pidfd = pidfd_open(s->pid, 0), r = 0;
    kill(s->pid, SIGTERM);
    long deadline = monotonic_ms() + timeout_ms;
    while (podman_service_alive(s)) {
        long left = deadline - monotonic_ms();
        if (left <= 0) {
            kill(s->pid, SIGKILL);
            int status;
            while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR) { }
            s->reaped = true;
            s->exit_status = status;
            r = as_error_make(err, ETIMEDOUT, "the podman service did not stop within %ld ms; killed it",
                              timeout_ms);
            break;
        }
        wait_readable(pidfd, left < 50 ? left : 50);    /* its exit wakes the pidfd */
    }
    if (pidfd >= 0)
        close(pidfd);
    return r;
}

int podman_service_stop_inherited(podman_service_t *s, long timeout_ms, as_error_t **err)
{
    if (s == NULL || s->reaped)
        return 0;
    int pidfd = pidfd_open(s->pid, 0);
    if (pidfd < 0)
        return errno == ESRCH ? 0 : as_error_errno(err, errno, "watching the podman service");
    int r = 0;
    kill(s->pid, SIGTERM);
    if (!wait_readable(pidfd, timeout_ms)) {
        kill(s->pid, SIGKILL);
        wait_readable(pidfd, 2000);
        r = as_error_make(err, ETIMEDOUT, "the podman service did not stop within %ld ms; killed it",
                          timeout_ms);
    }
    close(pidfd);
    s->reaped = true;          /* its parent's to reap, not ours */
    return r;
}

void podman_service_free(podman_service_t *s)
{
    if (s == NULL)
        return;
    free(s->socket_path);
    free(s->log_path);
    free(s);
}
