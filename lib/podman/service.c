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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "service_keeper.h"
#include "base/util.h"

/* How much longer than the service's stop deadline the keeper may take. */
#define KEEPER_MARGIN_MS 2000L

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

bool podman_service_reap_if_ended(podman_service_t *s)
{
    if (s == NULL || s->reaped || s->keeper <= 0)
        return true;
    int status = 0;
    if (getpid() == s->parent) {
        /* The keeper is our child, so waitpid reaps it and gives its status.
         * ECHILD means another waiter reaped it: it has ended all the same. */
        if (waitpid(s->keeper, &status, WNOHANG) == 0)
            return false;
    } else if (!wait_readable(s->keeper_fd, 0)) {
        /* A forked child of the CLI (lib/session/session_finish.c) cannot wait for the
         * keeper; its pidfd turns readable when the keeper ends. */
        return false;
    }
    s->reaped = true;
    s->exit_status = status;
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
        if (podman_service_reap_if_ended(s)) {
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

/* The keeper forked (lib/podman/service_keeper.h), and the service's pid
 * it tells. */
static int fork_keeper(podman_service_t *s, as_error_t **err)
{
    int hold[2], tell[2];
    if (pipe2(hold, O_CLOEXEC) < 0)
        return as_error_errno(err, errno, "starting the podman service");
    if (pipe2(tell, O_CLOEXEC) < 0) {
        int e = errno;
        close(hold[0]);
        close(hold[1]);
        return as_error_errno(err, e, "starting the podman service");
    }
    s->parent = getpid();
    s->keeper = fork();
    if (s->keeper == 0)
        service_keeper_run(hold[0], tell[1], s->socket_path, s->log_path);
    int e = errno;
    close(hold[0]);
    close(tell[1]);
    s->hold_fd = hold[1];
    if (s->keeper < 0) {
        close(tell[0]);
        return as_error_errno(err, e, "starting the podman service");
    }
    s->keeper_fd = pidfd_open(s->keeper, 0);
    ssize_t n;
    while ((n = read(tell[0], &s->pid, sizeof(s->pid))) < 0 && errno == EINTR) { }
    close(tell[0]);
    if (s->keeper_fd < 0)
        return as_error_errno(err, errno, "watching the podman service");
    if (n != (ssize_t)sizeof(s->pid)) {
        wait_readable(s->keeper_fd, 2000);
        podman_service_reap_if_ended(s);
        return start_failed(s, err);
    }
    return 0;
}

int podman_service_start(const char *socket_path, const char *log_path, long timeout_ms,
                         const signal_source_t *signals, podman_service_t **ret,
                         podman_api_t **ret_api, as_error_t **err)
{
    _cleanup_(podman_service_freep) podman_service_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    s->hold_fd = s->keeper_fd = -1;
    s->socket_path = strdup(socket_path);
    s->log_path = strdup(log_path);
    if (s->socket_path == NULL || s->log_path == NULL)
        return as_error_make(err, ENOMEM, "out of memory");

    int r = fork_keeper(s, err);
    if (r < 0) {
        podman_service_stop(s, 2000, NULL);
        return r;
    }
    _cleanup_(podman_api_freep) podman_api_t *api = NULL;
    r = podman_api_new(socket_path, &api, err);
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

/* SIGKILL to the keeper through its pidfd, which names that process and
 * no other: its pid alone may be a stranger's by now, once the keeper has
 * been reaped (in a forked child, lib/session/session_finish.c, by the CLI that is not
 * waiting for us). Only the keeper's parent, which alone reaps it, may
 * fall back to its pid where there is no pidfd. */
static void kill_keeper(podman_service_t *s)
{
    if (s->keeper_fd >= 0)
        pidfd_send_signal(s->keeper_fd, SIGKILL, NULL, 0);
    else if (getpid() == s->parent)
        kill(s->keeper, SIGKILL);
}

int podman_service_stop(podman_service_t *s, long timeout_ms, as_error_t **err)
{
    if (podman_service_reap_if_ended(s))
        return 0;
    /* the keeper: SIGTERM, and SIGKILL after the deadline */
    if (write(s->hold_fd, &timeout_ms, sizeof(timeout_ms)) < 0) { }
    if (!wait_readable(s->keeper_fd, timeout_ms + KEEPER_MARGIN_MS)) {
        kill_keeper(s);                 /* the service: SIGTERM, its death signal */
        wait_readable(s->keeper_fd, KEEPER_MARGIN_MS);
    }
    podman_service_reap_if_ended(s);
    if (s->reaped && WIFSIGNALED(s->exit_status) && WTERMSIG(s->exit_status) == SIGKILL)
        return as_error_make(err, ETIMEDOUT, "the podman service did not stop within %ld ms; killed it",
                             timeout_ms);
    return 0;
}

void podman_service_free(podman_service_t *s)
{
    if (s == NULL)
        return;
    if (s->hold_fd >= 0)
        close(s->hold_fd);
    if (s->keeper_fd >= 0)
        close(s->keeper_fd);
    free(s->socket_path);
    free(s->log_path);
    free(s);
}
