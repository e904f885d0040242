#include "session_router.h"
#include "base/file_write.h"
#include "egress/session_logs.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "labels.h"
#include "session_dir.h"
#include "base/util.h"
#include "podman/attach_stream.h"

static int make_dir(const char *path, mode_t mode, as_error_t **err)
{
    if (mkdir(path, mode) < 0 && errno != EEXIST)
        return as_error_errno(err, errno, "creating %s", path);
    /* The router reads and writes as another uid, so the modes must be
     * exactly these, whatever the umask. */
    if (chmod(path, mode) < 0)
        return as_error_errno(err, errno, "setting the mode of %s", path);
    return 0;
}

int egress_files_write(const egress_spec_t *e, as_error_t **err)
{
    if (!e->bound)
        return as_error_make(err, EINVAL, "internal error: the egress path is not bound yet");
    int r;
    if ((r = make_dir(e->conf_dir, 0755, err)) < 0 || (r = make_dir(e->log_dir, 0755, err)) < 0 ||
        (r = make_dir(e->view_dir, 0755, err)) < 0 || (r = make_dir(e->state_dir, 0700, err)) < 0)
        return r;
    /* The router's log writers run as nobody (a subordinate uid on the
     * host) and write these files. They are made here so that they stay
     * the user's own and readable. Each log has a count of the lines past
     * its ceiling, and the router answers changes in the reload file. */
    for (size_t i = 0; i < ROUTER_LOG_FILES; i++) {
        _cleanup_free_ char *dropped = NULL;
        if (asprintf(&dropped, "%s" LOG_DROPPED_SUFFIX, router_log_files[i]) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        if ((r = file_write_atomic(e->log_dir, router_log_files[i], "", 0666, err)) < 0 ||
            (r = file_write_atomic(e->log_dir, dropped, "", 0666, err)) < 0)
            return r;
    }
    if ((r = file_write_atomic(e->log_dir, ROUTER_LOG_RELOAD, "", 0666, err)) < 0 ||
        (r = file_write_atomic(e->log_dir, ROUTER_LOG_STARTED, "", 0666, err)) < 0)
        return r;
    for (size_t i = 0; i < EGRESS_FILES && e->files[i].dir != NULL; i++) {
        const egress_file_t *f = &e->files[i];
        if ((r = file_write_atomic(f->dir, f->name, f->text != NULL ? f->text : f->borrowed,
                                             0644, err)) < 0)
            return as_error_prefix(err, "writing the router's configuration");
    }
    return 0;
}

int egress_network_ensure(podman_api_t *api, const char *name, as_error_t **err)
{
    bool present = false;
    int r = podman_network_exists(api, name, &present, err);
    if (r < 0 || present)
        return r;
    static const podman_label_t labels[] = { { LABEL_EGRESS, "true" } };
    podman_network_spec_t spec = {
        .name = name, .internal = false, .dns_enabled = false, .labels = labels, .n_labels = 1,
    };
    r = podman_network_create(api, &spec, NULL, err);
    if (r == -EEXIST) {          /* another session made it meanwhile, which is as good */
        as_error_free(err);
        return 0;
    }
    return r;
}

#define READY_LINE ROUTER_PROTO_READY_LINE "\n"

typedef struct {
    char text[4096];
    size_t len;
} collected_t;

static int collect(int stream, const char *data, size_t len, void *ctx)
{
    (void)stream;
    collected_t *c = ctx;
    size_t room = sizeof(c->text) - 1 - c->len;
    if (len > room)
        len = room;
    memcpy(c->text + c->len, data, len);
    c->len += len;
    c->text[c->len] = '\0';
    return 0;
}

/* Returns the last non-empty line of what the forwarder said, the one that
 * says why it stopped. */
static const char *last_line(collected_t *c)
{
    while (c->len > 0 && c->text[c->len - 1] == '\n')
        c->text[--c->len] = '\0';
    char *nl = strrchr(c->text, '\n');
    return nl != NULL ? nl + 1 : c->text;
}

/* Copies the last non-empty line of a host-side log file into buf, for
 * error messages: the session directory is gone by the time the user reads
 * them. */
static void log_tail(const char *dir, const char *name, char *buf, size_t size)
{
    char path[PATH_MAX];
    buf[0] = '\0';
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL)
        if (line[0] != '\n') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(buf, size, "%s: %s", name, line);
        }
    fclose(f);
}

static int router_stopped(const egress_spec_t *e, as_error_t **err)
{
    char why[600];
    log_tail(e->log_dir, ROUTER_LOG_NGINX_ERROR, why, sizeof(why));
    if (why[0] == '\0')
        log_tail(e->log_dir, ROUTER_LOG_DNS, why, sizeof(why));
    return as_error_make(err, ECHILD, "the router stopped while starting%s%s", why[0] ? "; " : "",
                         why[0] ? why : "it left no log line");
}

/* Waits until the stream or a signal has something, or wait_ms pass. */
static int wait_readable(http_stream_t *stream, const signal_source_t *signals, long wait_ms,
                         bool *ret_readable, as_error_t **err)
{
    struct pollfd pfd[2] = {
        { .fd = http_stream_fd(stream), .events = POLLIN },
        { .fd = signal_source_fd(signals), .events = POLLIN },
    };
    if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, (int)wait_ms) < 0 && errno != EINTR)
        return as_error_errno(err, errno, "waiting for the forwarder");
    if (pfd[1].revents & POLLIN)
        while (signal_source_next(signals) != 0) { }   /* the terminating flag keeps what matters */
    *ret_readable = (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
    return 0;
}

/* Whether the router has stopped; if so, its own last words
 * (router_stopped) say why. */
static bool router_gone(podman_api_t *api, const char *router)
{
    bool running = true;
    as_error_t *e = NULL;
    if (podman_container_running(api, router, &running, &e) < 0)
        as_error_free(&e);
    return !running;
}

int router_wait_ready(podman_api_t *api, const router_wait_t *w, http_stream_t *forwarder_output,
                      as_error_t **err)
{
    long deadline = monotonic_ms() + w->timeout_ms, next_check = monotonic_ms() + 1000;
    frame_parser_t parser = {0};
    collected_t c = { .len = 0 };
    c.text[0] = '\0';
    bool readable = true;
    int r;
    for (;;) {
        if (strstr(c.text, READY_LINE) != NULL)
            return 0;
        int sig = signal_source_terminating(w->signals);
        if (sig != 0)
            return as_error_make(err, EINTR, "interrupted by %s while the egress path came up",
                                 strsignal(sig));
        long now = monotonic_ms();
        if (now >= deadline)
            return as_error_make(err, ETIMEDOUT, "the egress path did not come up within %ld ms%s%s",
                                 w->timeout_ms, c.len ? ": " : "", last_line(&c));
        if (now >= next_check) {
            /* A router that died will not come up, so this says so now
             * instead of at the timeout. */
            if (router_gone(api, w->router))
                return router_stopped(w->egress, err);
            next_check = now + 1000;
        }
        long wait = next_check - now < deadline - now ? next_check - now : deadline - now;
        if (!readable && (r = wait_readable(forwarder_output, w->signals, wait, &readable, err)) < 0)
            return r;
        if (!readable)
            continue;
        char buf[4096];
        ssize_t got = http_stream_recv(forwarder_output, buf, sizeof(buf), err);
        readable = got > 0;          /* read on until it has no more (some may have come with the head) */
        if (got == -EAGAIN)
            continue;
        if (got < 0)
            return as_error_prefix(err, "reading the forwarder's output");
        if (got == 0) {
            /* The forwarder stopped: the router's state or the forwarder's
             * own words say why. */
            if (router_gone(api, w->router))
                return router_stopped(w->egress, err);
            return as_error_make(err, EPERM, "the egress path is not confined as planned: %s",
                                 c.len ? last_line(&c) : "the forwarder stopped without a word");
        }
        if ((r = frame_parser_feed(&parser, buf, (size_t)got, collect, &c, err)) < 0)
            return r;
    }
}

/* Whether the router's answer in log_dir/started is `word`. */
static bool marked_as(const char *log_dir, const char *word)
{
    char path[PATH_MAX], line[32] = "";
    snprintf(path, sizeof(path), "%s/" ROUTER_LOG_STARTED, log_dir);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    bool got = fgets(line, sizeof(line), f) != NULL;
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    return got && strcmp(line, word) == 0;
}

int router_mark_start(podman_api_t *api, const router_wait_t *w, bool verify, as_error_t **err)
{
    const char *word = verify ? ROUTER_MARK_VERIFY : ROUTER_MARK_AGENT;
    int sig = verify ? ROUTER_MARK_VERIFY_SIGNAL : ROUTER_MARK_AGENT_SIGNAL;
    long deadline = monotonic_ms() + w->timeout_ms, next_signal = 0;
    for (;;) {
        int stop = signal_source_terminating(w->signals);
        if (stop != 0)
            return as_error_make(err, EINTR, "interrupted by %s while the router marked the "
                                 "agent's start", strsignal(stop));
        long now = monotonic_ms();
        if (now >= next_signal) {
            /* The signal is sent again every second: one that comes just
             * before the router waits for it would otherwise be lost. */
            int r = podman_container_kill(api, w->router, sig, err);
            if (r < 0)
                return as_error_prefix(err, "telling the router that the agent starts");
            next_signal = now + 1000;
        }
        if (marked_as(w->egress->log_dir, word))
            return 0;
        if (now >= deadline)
            return as_error_make(err, ETIMEDOUT, "the router did not mark where the agent's "
                                 "events begin within %ld ms", w->timeout_ms);
        struct timespec ts = { .tv_nsec = 20 * 1000000L };
        nanosleep(&ts, NULL);
    }
}
