/* The running sessions as the commands show them (ps, stop, the refusal of
 * a second session in a tree): read from the registry (lib/session_registry),
 * every text in them escaped. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "cli_env.h"
#include "session_list.h"
#include "base/msg.h"
#include "base/paths.h"
#include "base/util.h"

/* Whether dir is root or below it (both resolved paths). */
static bool path_within(const char *dir, const char *root)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    return strncmp(dir, root, n) == 0 && (dir[n] == '\0' || dir[n] == '/' || n == 1);
}

/* AGENT_SANDBOX_TEST_ROOT, resolved into buf: a test suite sees only its
 * own sessions, so its `stop --all` never ends a session the user runs
 * meanwhile. NULL when unset; "" (matching nothing) when it does not
 * resolve. */
static const char *test_root(char buf[PATH_MAX])
{
    const char *root = cli_env()->test_root;
    if (root == NULL)
        return NULL;
    if (realpath(root, buf) == NULL)
        buf[0] = '\0';
    return buf;
}

static bool launched_within(const char *launch_dir, const char *root)
{
    return root[0] != '\0' && launch_dir != NULL && path_within(launch_dir, root);
}

static void keep_under_test_root(session_entry_t **v, size_t *n)
{
    char buf[PATH_MAX];
    const char *root = test_root(buf);
    if (root == NULL)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        if (launched_within(v[i]->launch_dir, root))
            v[kept++] = v[i];
        else
            session_entry_free(v[i]);
    }
    *n = kept;
}

void sessions_found_keep_test_root(session_found_t *v, size_t *n)
{
    char buf[PATH_MAX];
    const char *root = test_root(buf);
    if (root == NULL)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        session_entry_t *e = NULL;
        as_error_t *err = NULL;
        bool in = session_registry_read(v[i].path, &e, &err) == 0 && launched_within(e->launch_dir, root);
        session_entry_free(e);
        as_error_free(&err);
        if (in)
            v[kept++] = v[i];
        else
            free(v[i].path);
    }
    *n = kept;
}

int sessions_load(session_entry_t ***ret, size_t *ret_n)
{
    int rc = runtime_dir_settle();
    if (rc != 0)
        return rc;
    as_error_t *err = NULL;
    _cleanup_free_ char *base = NULL;
    if (session_base_dir(&base, &err) < 0 || session_registry_list(base, ret, ret_n, &err) < 0) {
        report_error(&err);
        return EXIT_SETUP;
    }
    keep_under_test_root(*ret, ret_n);
    return 0;
}

void session_put_dir(FILE *f, const char *dir)
{
    const char *home = cli_env()->vars.home;
    char resolved[PATH_MAX];
    bool have = home != NULL && home[0] == '/' && realpath(home, resolved) != NULL;
    path_put_for_user(f, dir, have ? resolved : NULL, home != NULL && home[0] == '/' ? home : NULL);
}

void session_put_command(FILE *f, char *const *command)
{
    for (size_t i = 0; command != NULL && command[i] != NULL; i++) {
        if (i > 0)
            fputc(' ', f);
        path_put_escaped(f, command[i], strlen(command[i]));
    }
}

long long session_age(const session_entry_t *e)
{
    long long age = (long long)time(NULL) - e->started;
    return age > 0 ? age : 0;
}

void session_put_age(FILE *f, long long s)
{
    if (s < 60)
        fprintf(f, "%llds", s);
    else if (s < 3600)
        fprintf(f, "%lldm%02llds", s / 60, s % 60);
    else if (s < 86400)
        fprintf(f, "%lldh%02lldm", s / 3600, s % 3600 / 60);
    else
        fprintf(f, "%lldd%02lldh", s / 86400, s % 86400 / 3600);
}

char *session_describe(const session_entry_t *e)
{
    msg_t m;
    as_error_t *err = NULL;
    char *text = NULL;
    if (msg_open(&m, &err) < 0) {
        as_error_free(&err);
        return NULL;
    }
    fprintf(m.f, "session %s (PID %d, in ", e->id, (int)e->pid);
    session_put_dir(m.f, e->launch_dir);
    fputs(", started ", m.f);
    session_put_age(m.f, session_age(e));
    fputs(" ago)", m.f);
    if (msg_close(&m, &text, &err) < 0)
        as_error_free(&err);
    return text;
}

char *cwd_resolved(void)
{
    _cleanup_free_ char *cwd = getcwd(NULL, 0);
    return cwd != NULL ? realpath(cwd, NULL) : NULL;
}

int session_default(const char *command, const char *const *ids, const char *const *dirs, size_t n,
                    bool only_ok, size_t *ret_index)
{
    if (n == 0)
        return -ENOENT;
    _cleanup_free_ char *cwd = cwd_resolved();
    if (cwd != NULL && session_pick_by_dir(dirs, n, cwd, ret_index) == 0)
        return 0;
    if (n == 1 && only_ok) {
        *ret_index = 0;
        return 0;
    }
    if (n == 1)
        report("error: %s: which session? One is running, not started in this directory or above "
               "it; name it with its ID:", command);
    else
        report("error: %s: which session? %zu are running, none started in this directory or above "
               "it; name one with its ID:", command, n);
    for (size_t i = 0; i < n; i++) {
        msg_t m;
        as_error_t *err = NULL;
        _cleanup_free_ char *text = NULL;
        if (msg_open(&m, &err) < 0) {
            report_error(&err);
            return EXIT_INTERNAL;
        }
        fprintf(m.f, "  %s  in ", ids[i]);
        if (dirs[i] != NULL)
            session_put_dir(m.f, dirs[i]);
        else
            fputs("(a directory not known yet: the session is starting)", m.f);
        if (msg_close(&m, &text, &err) < 0) {
            report_error(&err);
            return EXIT_INTERNAL;
        }
        report("%s", text);
    }
    return EXIT_USAGE;
}

int session_found_default(const char *command, const session_found_t *v, size_t n, size_t *ret_index)
{
    _cleanup_free_ const char **ids = calloc(n + 1, sizeof(char *)), **dirs = calloc(n + 1, sizeof(char *));
    if (ids == NULL || dirs == NULL)
        return EXIT_INTERNAL;
    for (size_t i = 0; i < n; i++) {
        ids[i] = v[i].id;
        dirs[i] = v[i].launch_dir;
    }
    return session_default(command, ids, dirs, n, true, ret_index);
}

void session_list_name_busy(const char *dir)
{
    session_entry_t **v = NULL;
    size_t n = 0;
    as_error_t *err = NULL;
    _cleanup_free_ char *base = NULL;
    if (dir == NULL || session_base_dir(&base, &err) < 0 || session_registry_list(base, &v, &n, &err) < 0) {
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
