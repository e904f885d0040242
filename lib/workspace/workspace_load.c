/* The module's life: a workspace loaded (both files read, the rules built,
 * the paths planned) and freed. The top of the module: it calls the others,
 * none of them calls it. */
#include "workspace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/paths.h"
#include "base/util.h"

static int unreadable(const char *launch_dir, const char *home, const char *file, const char *reason,
                      bool project, as_error_t **err)
{
    msg_t m;
    int r = ws_refusal_start(&m, launch_dir, home, err);
    if (r < 0)
        return r;
    fputs("cannot read ", m.f);
    ws_put_path(m.f, home, file);
    fprintf(m.f, ": %s [rule: %s].\n", reason, RULE_READ);
    if (project)
        fputs("Make it a regular file, or remove it (it can only add protected paths).", m.f);
    else
        fputs("Make it a readable regular file, or delete it to protect the default set only; "
              "while it exists but cannot be read, no session starts.", m.f);
    return msg_fail(&m, WORKSPACE_EBADCONFIG, err);
}

/* The project's file: inside the launch directory, so the agent may have put
 * a symlink there (to a key, to /dev/zero): never followed. */
static int read_project_file(const char *launch_dir, char **ret, size_t *ret_len, as_error_t **err)
{
    _cleanup_close_ int top = open(launch_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return as_error_make(err, errno, "%s", strerror(errno));
    char dir_name[] = WORKSPACE_PROJECT_FILE;
    char *slash = strchr(dir_name, '/');
    *slash = '\0';
    struct stat st;
    if (fstatat(top, dir_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return as_error_make(err, errno, "%s", strerror(errno));
    if (S_ISLNK(st.st_mode))
        return as_error_make(err, ELOOP, "it is a symlink, which is never followed for this file");
    if (!S_ISDIR(st.st_mode))
        return as_error_make(err, ENOENT, "%s", strerror(ENOENT));
    _cleanup_close_ int dfd = openat(top, dir_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return as_error_make(err, errno, "%s", strerror(errno));
    return config_file_read(dfd, slash + 1, CONFIG_NOFOLLOW, WORKSPACE_FILE_MAX, ret, ret_len, err);
}

/* Either file: absent is fine, unreadable refuses. */
static int read_or_refuse(int r, const char *launch_dir, const char *home, const char *file,
                          bool project, as_error_t **read_err, as_error_t **err)
{
    if (r == 0 || r == -ENOENT) {
        as_error_free(read_err);
        return 0;
    }
    if (r == -ENOMEM) {
        as_error_free(read_err);
        return ws_oom(err);
    }
    r = unreadable(launch_dir, home, file, (*read_err)->msg, project, err);
    as_error_free(read_err);
    return r;
}

int workspace_plan(const char *launch_dir, const char *home, workspace_rules_t *rules,
                   workspace_t **ret, as_error_t **err)
{
    _cleanup_(workspace_rules_freep) workspace_rules_t *owned_rules = rules;   /* taken either way */
    if (launch_dir == NULL || launch_dir[0] != '/' || home == NULL || rules == NULL)
        return as_error_make(err, EINVAL, "protected paths: bad input");
    _cleanup_(workspace_freep) workspace_t *ws = calloc(1, sizeof(*ws));
    if (ws == NULL)
        return ws_oom(err);
    ws->rules = steal_pointer(&owned_rules);
    _cleanup_(as_error_freep) as_error_t *e = NULL;
    if ((ws->home = strdup(home)) == NULL || path_normalize(launch_dir, &ws->launch_dir, &e) < 0)
        return ws_oom(err);
    int r = ws_plan_all(ws, err);
    if (r < 0)
        return r;
    *ret = steal_pointer(&ws);
    return 0;
}

int workspace_load(const char *launch_dir, const char *home, const char *user_file,
                   workspace_t **ret, as_error_t **err)
{
    if (launch_dir == NULL || launch_dir[0] != '/' || home == NULL || home[0] != '/' ||
        user_file == NULL || user_file[0] != '/')
        return as_error_make(err, EINVAL, "protected paths: the launch directory, $HOME and the "
                             "user's file must be absolute");
    _cleanup_free_ char *project_file = NULL, *user_text = NULL, *project_text = NULL;
    size_t user_len = 0, project_len = 0;
    if (asprintf(&project_file, "%s/%s", launch_dir, WORKSPACE_PROJECT_FILE) < 0)
        return ws_oom(err);
    /* The user's file: symlinks followed (it is the user's own). */
    as_error_t *read_err = NULL;
    int r = config_file_read(AT_FDCWD, user_file, CONFIG_FOLLOW, WORKSPACE_FILE_MAX, &user_text,
                             &user_len, &read_err);
    if ((r = read_or_refuse(r, launch_dir, home, user_file, false, &read_err, err)) < 0)
        return r;
    r = read_project_file(launch_dir, &project_text, &project_len, &read_err);
    if ((r = read_or_refuse(r, launch_dir, home, project_file, true, &read_err, err)) < 0)
        return r;

    workspace_config_t cfg = {
        .launch_dir = launch_dir, .home = home, .user_file = user_file,
        .user_text = user_text, .user_len = user_len, .project_file = project_file,
        .project_text = project_text, .project_len = project_len,
    };
    workspace_rules_t *rules = NULL;
    if ((r = workspace_rules_build(&cfg, &rules, err)) < 0)
        return r;
    return workspace_plan(launch_dir, home, rules, ret, err);
}

int workspace_host_path(workspace_t *ws, const char *path, as_error_t **err)
{
    char *copy = path != NULL ? strdup(path) : NULL;
    if (path != NULL && copy == NULL)
        return ws_oom(err);
    free(ws->host_path);
    ws->host_path = copy;
    return 0;
}

void workspace_free(workspace_t *ws)
{
    if (ws == NULL)
        return;
    ws_walks_cancel(ws);
    workspace_unlock(ws);
    ws_mounts_clear(ws);
    ws_snapshot_free(ws->before);
    workspace_rules_free(ws->rules);
    free(ws->launch_dir);
    free(ws->home);
    free(ws->host_path);
    free(ws);
}
