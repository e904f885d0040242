#include "session_workspace.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "labels.h"
#include "session_dir.h"
#include "base/doc_path.h"
#include "base/escape.h"
#include "base/file_write.h"
#include "base/util.h"
#include "base/user_dirs.h"
#include "podman/podman_api.h"

/* This process's session journal: at most one session per CLI. user_file:
 * the protected-paths file the workspace was loaded from, resolved once
 * (workspace_check_load) and recorded for the journal's recovery. */
static struct {
    int fd;
    char *dir;
    char *user_file;
    char id[SESSION_ID_LEN + 1];
} journal = { .fd = -1 };

static session_fault_t fail(const session_say_t *to, as_error_t **err, const char *context)
{
    int code = (*err)->code;
    if (code == WORKSPACE_EBADCONFIG || code == WORKSPACE_EBUSY) {
        /* a refusal: the message names the rule and what to do */
        say(to, SAY_PLAIN, "%s", (*err)->msg);
        as_error_free(err);
        return code == WORKSPACE_EBUSY ? SESSION_FAULT_REFUSED : SESSION_FAULT_CONFIG;
    }
    as_error_prefix(err, "%s", context);
    say_error(to, err);
    return code == ENOMEM ? SESSION_FAULT_INTERNAL : SESSION_FAULT_SETUP;
}

session_fault_t workspace_check_load(const char *workdir, const char *home, const char *host_path,
                                     const session_say_t *to, workspace_t **ret)
{
    as_error_t *err = NULL;
    free(journal.user_file);
    journal.user_file = NULL;
    if (user_config_file(WORKSPACE_USER_FILE, &journal.user_file, &err) < 0 ||
        workspace_load(workdir, home, journal.user_file, ret, &err) < 0)
        return fail(to, &err, "reading the protected paths");
    /* what the agent makes is judged against the host's commands and python */
    if (workspace_host_path(*ret, host_path, &err) < 0) {
        workspace_free(*ret);
        *ret = NULL;
        return fail(to, &err, "reading the protected paths");
    }
    return SESSION_OK;
}

char *workspace_check_describe(const workspace_t *ws, const session_say_t *to)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *text = NULL, *doc = doc_path("workspace-protection.md");
    char *all = NULL;
    if (workspace_describe(ws, &text, &err) < 0) {
        say_error(to, &err);
        return NULL;
    }
    if (asprintf(&all, "  protected paths (%s):\n%s", doc != NULL ? doc : "docs/workspace-protection.md", text) < 0)
        return NULL;
    return all;
}

/* Placeholders could not be made because the launch directory itself is
 * read-only to the user: say that, rather than which placeholder failed. */
static session_fault_t refuse_unwritable(const session_say_t *to, const char *dir, as_error_t **err)
{
    _cleanup_free_ char *name = path_escaped(dir), *doc = doc_path("workspace-protection.md");
    say(to, SAY_ERROR, "cannot launch from %s: the directory is not writable by you (%s), and the "
           "sandbox must create placeholders in it for the protected paths that do not exist yet "
           "(such as .claude; %s), so that the agent cannot create them "
           "for the host to run later. Make it writable (chmod u+w %s), or launch from a "
           "directory you can write.", name != NULL ? name : "here", strerror((*err)->code),
           doc != NULL ? doc : "docs/workspace-protection.md", name != NULL ? name : "it");
    as_error_free(err);
    return SESSION_FAULT_REFUSED;
}

static int journal_dir(char **ret, as_error_t **err)
{
    _cleanup_free_ char *state = NULL;
    int r = user_state_dir(&state, err);
    if (r < 0)
        return r;
    if ((r = user_dir_create(state, err)) < 0)
        return r;
    if (asprintf(ret, "%s/journals", state) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

static session_fault_t journal_begin(const workspace_t *ws, const char *session_id, const session_say_t *to)
{
    as_error_t *err = NULL;
    if (journal.user_file == NULL) {
        say(to, SAY_ERROR, "internal error: a journal of a workspace not loaded (workspace_check_load)");
        return SESSION_FAULT_INTERNAL;
    }
    if (journal_dir(&journal.dir, &err) < 0 ||
        workspace_journal_begin(ws, journal.user_file, journal.dir, session_id, &journal.fd, &err) < 0) {
        as_error_prefix(&err, "recording the workspace for the end-of-session check");
        say_error(to, &err);
        return SESSION_FAULT_SETUP;
    }
    snprintf(journal.id, sizeof(journal.id), "%s", session_id);
    return SESSION_OK;
}

session_fault_t workspace_check_begin(workspace_t *ws, const session_say_t *to, bool *ret_busy)
{
    as_error_t *err = NULL;
    *ret_busy = false;
    if (workspace_begin_start(ws, &err) < 0) {
        int code = err->code;
        *ret_busy = code == WORKSPACE_EBUSY;
        if ((code == EACCES || code == EPERM || code == EROFS) &&
            faccessat(AT_FDCWD, ws->launch_dir, W_OK, AT_EACCESS) < 0)
            return refuse_unwritable(to, ws->launch_dir, &err);
        return fail(to, &err, "protecting the workspace");
    }
    for (size_t i = 0; i < ws->n_notes; i++)
        say(to, SAY_WARNING, "%s", ws->notes[i]);
    return SESSION_OK;
}

session_fault_t workspace_check_ready(workspace_t *ws, const char *session_id, const session_say_t *to)
{
    as_error_t *err = NULL;
    if (workspace_begin_wait(ws, &err) < 0)
        return fail(to, &err, "recording the workspace before the session");
    return journal_begin(ws, session_id, to);
}

void workspace_check_agent_exited(workspace_t *ws)
{
    as_error_t *err = NULL;
    if (workspace_end_start(ws, &err) < 0)
        as_error_free(&err);           /* the end-of-session check walks then */
}

/* The whole reports kept: the newest REPORTS_KEPT. */
#define REPORTS_KEPT 50

typedef struct aged {
    char name[NAME_MAX + 1];
    struct timespec mtime;
} aged_t;

static int older_first(const void *a, const void *b)
{
    const struct timespec *x = &((const aged_t *)a)->mtime, *y = &((const aged_t *)b)->mtime;
    return x->tv_sec != y->tv_sec ? (x->tv_sec < y->tv_sec ? -1 : 1)
                                  : (x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec);
}

static void prune_reports(const char *dir)
{
    _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fcntl(fd, F_DUPFD_CLOEXEC, 0)) : NULL;
    if (d == NULL)
        return;
    aged_t *v = NULL;
    size_t n = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)) != NULL) {
        aged_t *nv;
        if (e->d_name[0] == '.' || fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            !S_ISREG(st.st_mode) || (nv = realloc(v, (n + 1) * sizeof(*v))) == NULL)
            continue;
        v = nv;
        snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
        v[n++].mtime = st.st_mtim;
    }
    closedir(d);
    if (n > REPORTS_KEPT) {
        qsort(v, n, sizeof(*v), older_first);
        for (size_t i = 0; i < n - REPORTS_KEPT; i++)
            unlinkat(fd, v[i].name, 0);
    }
    free(v);
}

/* The whole report, in the state directory's reports/ID.txt (0600): the
 * printed one cuts long lists short. Its path, or NULL (said why). */
static char *save_whole_report(const session_say_t *to, const char *id, const char *whole)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *state = NULL, *dir = NULL, *name = NULL;
    char *path = NULL;
    if (user_state_dir(&state, &err) < 0 || user_dir_create(state, &err) < 0 ||
        asprintf(&dir, "%s/reports", state) < 0 || asprintf(&name, "%s.txt", id) < 0 ||
        asprintf(&path, "%s/%s", dir, name) < 0) {
        as_error_free(&err);
        say(to, SAY_WARNING, "the whole workspace report could not be kept (out of memory or no state directory)");
        return NULL;
    }
    if ((mkdir(dir, 0700) < 0 && errno != EEXIST) ||
        file_write_atomic(dir, name, whole, 0600, &err) < 0) {
        if (err == NULL)
            as_error_errno(&err, errno, "creating %s", dir);
        as_error_prefix(&err, "keeping the whole workspace report");
        say_error(to, &err);
        free(path);
        return NULL;
    }
    prune_reports(dir);
    return path;
}

/* The report (a warning), and where the whole of it is. */
static void put_report(const session_say_t *to, const char *prefix, const char *id, const char *text,
                       const char *whole)
{
    _cleanup_free_ char *path = whole != NULL ? save_whole_report(to, id, whole) : NULL;
    _cleanup_free_ char *shown = path != NULL ? path_escaped(path) : NULL;
    if (shown != NULL)
        say(to, SAY_WARNING, "%s%s\nThe whole report: %s", prefix, text, shown);
    else
        say(to, SAY_WARNING, "%s%s", prefix, text);
}

void workspace_check_end(workspace_t *ws, bool container_gone, const session_say_t *to)
{
    if (ws == NULL || (ws->before == NULL && ws->pending == NULL))
        return;
    as_error_t *err = NULL;
    char *text = NULL, *whole = NULL;
    if (workspace_end(ws, container_gone, &text, &whole, &err) < 0) {
        as_error_prefix(&err, "checking the workspace after the session");
        say_error(to, &err);
        return;
    }
    if (text != NULL)
        put_report(to, "", journal.id, text, whole);
    free(text);
    free(whole);
    /* Checked: the journal has served. Kept when the sandbox may still run,
     * so that a later CLI checks once it is gone. */
    if (container_gone)
        workspace_journal_end(journal.fd, journal.dir, journal.id);
    else if (journal.fd >= 0)
        close(journal.fd);
    journal.fd = -1;
    free(journal.dir);
    free(journal.user_file);
    journal.user_file = NULL;
    journal.dir = NULL;
}

typedef struct recovery {
    podman_api_t *api;
    const session_say_t *to;
} recovery_t;

static bool session_gone(void *ctx, const char *id)
{
    podman_api_t *api = ((recovery_t *)ctx)->api;
    as_error_t *err = NULL;
    podman_labelled_t *list = NULL;
    size_t n = 0;
    if (podman_list_labelled(api, PODMAN_CONTAINERS, LABEL_SESSION, &list, &n, &err) < 0) {
        as_error_free(&err);
        return false;                     /* cannot tell: check later */
    }
    bool gone = true;
    for (size_t i = 0; i < n && gone; i++)
        gone = strcmp(list[i].label_value, id) != 0;
    podman_labelled_free(list, n);
    return gone;
}

static void recovered(void *ctx, const char *id, const char *launch_dir, const char *text, const char *whole)
{
    const session_say_t *to = ((recovery_t *)ctx)->to;
    _cleanup_free_ char *dir = launch_dir != NULL ? path_escaped(launch_dir) : NULL, *prefix = NULL;
    if (launch_dir == NULL)
        say(to, SAY_WARNING, "the journal of session %s could not be read; removed it", id);
    else if (text != NULL && asprintf(&prefix, "session %s in %s ended without its end-of-session "
                                      "check (its CLI was killed); checked now: ", id, dir != NULL ? dir : "?") >= 0)
        put_report(to, prefix, id, text, whole);
    else if (text != NULL)
        say(to, SAY_WARNING, "%s", text);
    else
        say(to, SAY_NOTE, "session %s in %s ended without its end-of-session check (its CLI was "
            "killed); checked now: nothing to report", id, dir != NULL ? dir : "?");
}

bool workspace_check_pending(void)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *dir = NULL;
    if (journal_dir(&dir, &err) < 0) {
        as_error_free(&err);
        return true;                      /* workspace_check_recover says why */
    }
    return workspace_journal_pending(dir);
}

void workspace_check_recover(podman_api_t *api, const char *host_path, const session_say_t *to)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *dir = NULL;
    recovery_t ctx = { .api = api, .to = to };
    workspace_recovery_t rc = { .is_gone = session_gone, .on_report = recovered, .ctx = &ctx,
                                .host_path = host_path };
    if (journal_dir(&dir, &err) < 0 || workspace_journal_recover(dir, &rc, &err) < 0) {
        as_error_prefix(&err, "checking the workspace of an earlier, killed session");
        say_error(to, &err);
    }
}
