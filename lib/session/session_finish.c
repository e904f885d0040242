/* A session's ending (session_life.h, session_finish): the workspace
 * checked or the review summed up, the egress told, and the removals: in
 * line, or after the prompt in a child (issue 28: the user waits for the
 * agent's exit and the workspace check, not for the router, the pod and
 * the networks to go). */
#include "session_life.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session_egress.h"
#include "session_registry.h"
#include "session_review.h"
#include "session_workspace.h"
#include "base/escape.h"
#include "base/file_read.h"
#include "base/signals.h"
#include "base/terminal.h"
#include "base/util.h"
#include "base/user_dirs.h"

#define TEARDOWN_LOG_MAX_BYTES 65536

/* The removals now, with the service we have or a new one when it died;
 * what fails is said with what is left. 0 when all is gone. */
static int teardown_now(session_t *s, backend_t *b, const session_say_t *to)
{
    as_error_t *err = NULL;
    if (!backend_usable(b)) {
        if (backend_restart(b, &err) < 0) {
            say_error(to, &err);
            _cleanup_free_ char *left = session_leftovers(s);
            say(to, SAY_ERROR, "could not remove this session's resources; the next start or "
                "`agent-sandbox cleanup` removes them:\n%s", left ? left : "");
            return -1;
        }
        session_set_api(s, b->api);
    }
    if (session_teardown(s, &err) < 0) {
        as_error_prefix(&err, "tearing down the session");
        say_error(to, &err);
        _cleanup_free_ char *left = session_leftovers(s);
        say(to, SAY_PLAIN, "left behind (the next start or `agent-sandbox cleanup` removes them):\n%s",
            left ? left : "");
        return -1;
    }
    return 0;
}

/* <state dir>/logs/ID (the session's kept logs, lib/egress/session_logs.h). */
static char *log_dir(const char *id)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *state = NULL;
    char *dir = NULL;
    if (user_state_dir(&state, &err) < 0 || asprintf(&dir, "%s/logs/%s", state, id) < 0 ||
        user_dir_create(dir, &err) < 0) {
        as_error_free(&err);
        free(dir);
        return NULL;
    }
    return dir;
}

/* stdin from /dev/null, stdout and stderr to the log; and every descriptor
 * this program did not open closed (ours are all close-on-exec): a reader
 * of the CLI's output (`$(...)`, a pipe, bats' fd 3) must see its end now,
 * not the removals'. */
static void child_io(const char *log)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    int out = log != NULL ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
    if (out < 0)
        out = null;
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(out, STDOUT_FILENO);
        dup2(out, STDERR_FILENO);
    }
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (fd > STDERR_FILENO && fd != dirfd(d) && (fcntl(fd, F_GETFD) & FD_CLOEXEC) == 0)
            close(fd);
    }
    if (d != NULL)
        closedir(d);
}

/* The CLI's connection is its own: the child asks on one of its own. */
static int reconnect(session_t *s, backend_t *b, as_error_t **err)
{
    podman_api_free(b->api);
    b->api = NULL;
    int r = podman_api_new(b->dir->socket_path, &b->api, err);
    if (r == 0)
        session_set_api(s, b->api);
    return r;
}

__attribute__((noreturn)) static void child(session_t *s, backend_t *b, const session_say_t *to)
{
    setsid();                  /* no terminal: its hangup is not ours */
    signals_reset_for_child(); /* a SIGTERM ends it: the sweep removes the rest */
    _cleanup_free_ char *dir = log_dir(b->dir->id), *log = NULL, *failed = NULL;
    if (dir != NULL && (asprintf(&log, "%s/" TEARDOWN_LOG, dir) < 0 ||
                        asprintf(&failed, "%s/" TEARDOWN_FAILED, dir) < 0))
        log = failed = NULL;
    child_io(log);
    as_error_t *err = NULL;
    /* the CLI's service, warm: its keeper keeps it while this child holds
     * its pipe (lib/podman/service_keeper.h); teardown_now starts another
     * if it has died */
    b->signals = NULL;
    int r = reconnect(s, b, &err);
    if (r < 0) {
        as_error_prefix(&err, "connecting to the podman service for the removals");
        say_error(to, &err);
    } else {
        r = teardown_now(s, b, to);
    }
    backend_stop(b, to);
    struct stat st;
    if (r < 0 && failed != NULL) {
        int fd = open(failed, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0)
            close(fd);
    } else if (log != NULL && fstat(STDERR_FILENO, &st) == 0 && st.st_size == 0) {
        unlink(log);           /* nothing to say */
    }
    _exit(r < 0 ? 1 : 0);
}

/* Once the user's part of the session is done: the removals handed to a
 * child that keeps the session directory's lock (the stale sweep leaves
 * its resources alone); the tree's lock is let go of first (the next
 * session in the tree starts at once). True in the CLI when the child took
 * them (`b` is then detached: nothing to stop); false when it could not be
 * started (do them now). The child never returns: it removes through the
 * CLI's service, which its keeper keeps for it
 * (lib/podman/service_keeper.h), stops it, writes what failed to the
 * session's log directory (TEARDOWN_LOG) and marks it for the next start
 * (session_finish_failures_tell). */
static bool teardown_later(session_t *s, backend_t *b, workspace_t *ws, const session_say_t *to)
{
    as_error_t *err = NULL;
    if (b->service == NULL || session_registry_end(b->dir->path, &err) < 0) {
        as_error_free(&err);
        return false;
    }
    /* the tree is checked and no process of the agent is left: the next
     * session in it need not wait for these removals (let go of before
     * the fork: the child holds no copy of the lock) */
    workspace_unlock(ws);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0)
        child(s, b, to);
    backend_detach(b);
    return true;
}

/* One failed session's log, said, then no longer marked. */
static void tell_one(const char *dir, const char *id, const session_say_t *to)
{
    _cleanup_free_ char *failed = NULL, *log = NULL, *text = NULL;
    if (asprintf(&failed, "%s/%s/" TEARDOWN_FAILED, dir, id) < 0 ||
        asprintf(&log, "%s/%s/" TEARDOWN_LOG, dir, id) < 0 || access(failed, F_OK) < 0)
        return;
    size_t len = 0;
    _cleanup_close_ int fd = open(log, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || read_fd_bounded(fd, TEARDOWN_LOG_MAX_BYTES, &text, &len) < 0)
        text = NULL;
    _cleanup_free_ char *name = path_escaped(log);
    say(to, SAY_WARNING, "the removals after session %s ended could not remove everything (%s):\n%s"
           "what is left is removed now", id, name != NULL ? name : "its log",
           text != NULL ? text : "");
    unlink(failed);
}

void session_finish_failures_tell(const session_say_t *to)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *state = NULL, *dir = NULL;
    if (user_state_dir(&state, &err) < 0 || asprintf(&dir, "%s/logs", state) < 0) {
        as_error_free(&err);
        return;
    }
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
        if (session_id_valid(e->d_name))
            tell_one(dir, e->d_name, to);
    if (d != NULL)
        closedir(d);
}

void session_finish(session_life_t *l)
{
    const session_say_t *to = &l->ev->say;
    backend_t *b = &l->backend;
    session_ending_t *e = l->end;
    backend_sweep_end(b, to);
    terminal_restore();
    /* the removals after the prompt only when nothing that follows needs
     * them done (session_life.h) */
    bool later = l->exited && !l->reviewing && l->in->n_publish == 0;
    bool gone = l->s == NULL || later || teardown_now(l->s, b, to) == 0;
    e->teardown_failed = !gone;
    if (!l->reviewing)
        workspace_check_end(l->ws, gone, to);
    else if (l->review.dir != NULL)
        review_session_end(&l->review, l->ws, to);
    if (l->s != NULL)
        session_egress_end(b->dir, to);
    if (l->s != NULL && later) {
        e->teardown_later = teardown_later(l->s, b, l->ws, to);
        if (!e->teardown_later && teardown_now(l->s, b, to) < 0)
            e->teardown_failed = true;
    }
    session_free(l->s);
    l->s = NULL;
    session_plan_free(l->plan);
    l->plan = NULL;
}
