/* A session's removals: in line, or after the prompt in a child (issue 28:
 * the user waits for the agent's exit and the workspace check, not for
 * the router, the pod and the networks to go). */
#include "teardown.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cli.h"
#include "base/escape.h"
#include "base/file_read.h"
#include "base/signals.h"
#include "base/util.h"
#include "base/user_dirs.h"
#include "session/session_registry.h"

#define TEARDOWN_LOG_MAX_BYTES 65536

int teardown_now(session_t *s, cli_backend_t *b)
{
    as_error_t *err = NULL;
    if (!backend_usable(b)) {
        if (backend_restart(b, &err) < 0) {
            report_error(&err);
            _cleanup_free_ char *left = session_leftovers(s);
            report("error: could not remove this session's resources; the next start or "
                   "`agent-sandbox cleanup` removes them:\n%s", left ? left : "");
            return -1;
        }
        session_set_api(s, b->api);
    }
    if (session_teardown(s, &err) < 0) {
        as_error_prefix(&err, "tearing down the session");
        report_error(&err);
        _cleanup_free_ char *left = session_leftovers(s);
        report("left behind (the next start or `agent-sandbox cleanup` removes them):\n%s",
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
static int reconnect(session_t *s, cli_backend_t *b, as_error_t **err)
{
    podman_api_free(b->api);
    b->api = NULL;
    int r = podman_api_new(b->dir->socket_path, &b->api, err);
    if (r == 0)
        session_set_api(s, b->api);
    return r;
}

__attribute__((noreturn)) static void child(session_t *s, cli_backend_t *b)
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
        report_error(&err);
    } else {
        r = teardown_now(s, b);
    }
    backend_stop(b);
    struct stat st;
    if (r < 0 && failed != NULL) {
        int fd = open(failed, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0)
            close(fd);
    } else if (log != NULL && fstat(STDERR_FILENO, &st) == 0 && st.st_size == 0) {
        unlink(log);           /* nothing to say */
    }
    _exit(r < 0 ? EXIT_SETUP : 0);
}

bool teardown_later(session_t *s, cli_backend_t *b, workspace_t *ws)
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
        child(s, b);
    backend_detach(b);
    return true;
}

/* One failed session's log, on stderr, then no longer marked. */
static void tell_one(const char *dir, const char *id)
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
    report("warning: the removals after session %s ended could not remove everything (%s):\n%s"
           "what is left is removed now", id, name != NULL ? name : "its log",
           text != NULL ? text : "");
    unlink(failed);
}

void teardown_failures_tell(void)
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
            tell_one(dir, e->d_name);
    if (d != NULL)
        closedir(d);
}
