#include "workspace_check.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_env.h"
#include "session_list.h"
#include "base/doc_path.h"
#include "base/file_write.h"
#include "base/paths.h"
#include "base/util.h"
#include "base/user_dirs.h"
#include "podman/podman_api.h"
#include "session/labels.h"
#include "session/session_dir.h"

/* This process's session journal: at most one session per CLI. user_file:
 * the protected-paths file the workspace was loaded from, resolved once
 * (workspace_check_load) and recorded for the journal's recovery. */
static struct {
    int fd;
    char *dir;
    char *user_file;
    char id[SESSION_ID_LEN + 1];
} journal = { .fd = -1 };

static int fail(as_error_t **err, const char *context)
{
    int code = (*err)->code;
    if (code == WORKSPACE_EBADCONFIG || code == WORKSPACE_EBUSY) {
        /* a refusal: the message names the rule and what to do */
        report("%s", (*err)->msg);
        as_error_free(err);
        return code == WORKSPACE_EBUSY ? EXIT_REFUSED : EXIT_CONFIG;
    }
    as_error_prefix(err, "%s", context);
    report_error(err);
    return code == ENOMEM ? EXIT_INTERNAL : EXIT_SETUP;
}

int workspace_check_load(const char *workdir, workspace_t **ret)
{
    as_error_t *err = NULL;
    const char *home = cli_env()->home;     /* launch_check() made sure it is absolute */
    free(journal.user_file);
    journal.user_file = NULL;
    if (user_config_file(WORKSPACE_USER_FILE, &journal.user_file, &err) < 0 ||
        workspace_load(workdir, home, journal.user_file, ret, &err) < 0)
        return fail(&err, "reading the protected paths");
    /* what the agent makes is judged against the host's commands and python */
    if (workspace_host_path(*ret, cli_env()->path, &err) < 0) {
        workspace_free(*ret);
        *ret = NULL;
        return fail(&err, "reading the protected paths");
    }
    return 0;
}

void workspace_check_describe(const workspace_t *ws, FILE *out)
{
    as_error_t *err = NULL;
    char *text = NULL;
    if (workspace_describe(ws, &text, &err) < 0) {
        report_error(&err);
        return;
    }
    _cleanup_free_ char *doc = doc_path("workspace-protection.md");
    fprintf(out, "  protected paths (%s):\n%s", doc != NULL ? doc : "docs/workspace-protection.md", text);
    free(text);
}

/* Placeholders could not be made because the launch directory itself is
 * read-only to the user: say that, rather than which placeholder failed. */
static int refuse_unwritable(const char *dir, as_error_t **err)
{
    _cleanup_free_ char *name = path_escaped(dir), *doc = doc_path("workspace-protection.md");
    report("error: cannot launch from %s: the directory is not writable by you (%s), and the "
           "sandbox must create placeholders in it for the protected paths that do not exist yet "
           "(such as .claude; %s), so that the agent cannot create them "
           "for the host to run later. Make it writable (chmod u+w %s), or launch from a "
           "directory you can write.", name != NULL ? name : "here", strerror((*err)->code),
           doc != NULL ? doc : "docs/workspace-protection.md", name != NULL ? name : "it");
    as_error_free(err);
    return EXIT_REFUSED;
}

/* The sessions whose tree overlaps `dir` (lib/session/session_registry.h): the
 * one holding the lock that refused this one is among them. */
static void name_busy_sessions(const char *dir)
{
    session_entry_t **v = NULL;
    size_t n = 0;
    as_error_t *err = NULL;
    _cleanup_free_ char *base = NULL;
    if (session_base_dir(&base, &err) < 0 || session_registry_list(base, &v, &n, &err) < 0) {
        as_error_free(&err);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (v[i]->pid == getpid() || path_relation(dir, v[i]->launch_dir) == PATH_UNRELATED)
            continue;
        _cleanup_free_ char *what = session_describe(v[i]);
        report("it is %s; `agent-sandbox stop %s` ends it", what != NULL ? what : v[i]->id, v[i]->id);
    }
    session_entries_free(v, n);
}

static int journal_dir(char **ret, as_error_t **err)
{
    _cleanup_free_ char *state = NULL;
    int r = user_state_dir(&state, err);
    if (r < 0)
        return r;
    if (user_dir_create(state, err) < 0)
        return -EIO;
    if (asprintf(ret, "%s/journals", state) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

static int journal_begin(const workspace_t *ws, const char *session_id)
{
    as_error_t *err = NULL;
    if (journal.user_file == NULL) {
        report("error: internal error: a journal of a workspace not loaded (workspace_check_load)");
        return EXIT_INTERNAL;
    }
    if (journal_dir(&journal.dir, &err) < 0 ||
        workspace_journal_begin(ws, journal.user_file, journal.dir, session_id, &journal.fd, &err) < 0) {
        as_error_prefix(&err, "recording the workspace for the end-of-session check");
        report_error(&err);
        return EXIT_SETUP;
    }
    snprintf(journal.id, sizeof(journal.id), "%s", session_id);
    return 0;
}

int workspace_check_begin(workspace_t *ws)
{
    as_error_t *err = NULL;
    if (workspace_begin_start(ws, &err) < 0) {
        int code = err->code;
        if (code == WORKSPACE_EBUSY) {
            report("%s", err->msg);
            as_error_free(&err);
            name_busy_sessions(ws->launch_dir);
            return EXIT_REFUSED;
        }
        if ((code == EACCES || code == EPERM || code == EROFS) &&
            faccessat(AT_FDCWD, ws->launch_dir, W_OK, AT_EACCESS) < 0)
            return refuse_unwritable(ws->launch_dir, &err);
        return fail(&err, "protecting the workspace");
    }
    for (size_t i = 0; i < ws->n_notes; i++)
        report("warning: %s", ws->notes[i]);
    return 0;
}

int workspace_check_ready(workspace_t *ws, const char *session_id)
{
    as_error_t *err = NULL;
    if (workspace_begin_wait(ws, &err) < 0)
        return fail(&err, "recording the workspace before the session");
    return journal_begin(ws, session_id);
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
static char *save_whole_report(const char *id, const char *whole)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *state = NULL, *dir = NULL, *name = NULL;
    char *path = NULL;
    if (user_state_dir(&state, &err) < 0 || user_dir_create(state, &err) < 0 ||
        asprintf(&dir, "%s/reports", state) < 0 || asprintf(&name, "%s.txt", id) < 0 ||
        asprintf(&path, "%s/%s", dir, name) < 0) {
        as_error_free(&err);
        report("warning: the whole workspace report could not be kept (out of memory or no state directory)");
        return NULL;
    }
    if ((mkdir(dir, 0700) < 0 && errno != EEXIST) ||
        file_write_atomic(dir, name, whole, 0600, &err) < 0) {
        if (err == NULL)
            as_error_errno(&err, errno, "creating %s", dir);
        as_error_prefix(&err, "keeping the whole workspace report");
        report_error(&err);
        free(path);
        return NULL;
    }
    prune_reports(dir);
    return path;
}

/* The report, and where the whole of it is. */
static void put_report(const char *prefix, const char *id, const char *text, const char *whole)
{
    _cleanup_free_ char *path = whole != NULL ? save_whole_report(id, whole) : NULL;
    _cleanup_free_ char *shown = path != NULL ? path_escaped(path) : NULL;
    if (shown != NULL)
        report("%s%s\nThe whole report: %s", prefix, text, shown);
    else
        report("%s%s", prefix, text);
}

void workspace_check_end(workspace_t *ws, bool container_gone)
{
    if (ws == NULL || (ws->before == NULL && ws->pending == NULL))
        return;
    as_error_t *err = NULL;
    char *text = NULL, *whole = NULL;
    if (workspace_end(ws, container_gone, &text, &whole, &err) < 0) {
        as_error_prefix(&err, "checking the workspace after the session");
        report_error(&err);
        return;
    }
    if (text != NULL)
        put_report("warning: ", journal.id, text, whole);
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

static bool session_gone(void *ctx, const char *id)
{
    podman_api_t *api = ctx;
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
    (void)ctx;
    _cleanup_free_ char *dir = launch_dir != NULL ? path_escaped(launch_dir) : NULL, *prefix = NULL;
    if (launch_dir == NULL)
        report("warning: the journal of session %s could not be read; removed it", id);
    else if (text != NULL && asprintf(&prefix, "warning: session %s in %s ended without its end-of-session "
                                      "check (its CLI was killed); checked now: ", id, dir != NULL ? dir : "?") >= 0)
        put_report(prefix, id, text, whole);
    else if (text != NULL)
        report("warning: %s", text);
    else
        report("note: session %s in %s ended without its end-of-session check (its CLI was "
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

void workspace_check_recover(podman_api_t *api)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *dir = NULL;
    workspace_recovery_t rc = { .is_gone = session_gone, .on_report = recovered, .ctx = api,
                                .host_path = cli_env()->path };
    if (journal_dir(&dir, &err) < 0 || workspace_journal_recover(dir, &rc, &err) < 0) {
        as_error_prefix(&err, "checking the workspace of an earlier, killed session");
        report_error(&err);
    }
}
