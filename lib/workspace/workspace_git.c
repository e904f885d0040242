/* After the session: what host git would run from the tree. Every directory
 * git could take for a git directory (git_repo.h) is looked at, new or old;
 * only what is new or changed since the start is disabled:
 *   - its config (in the common directory) and config.worktree, when a key is
 *     not one a plain init or clone writes (git_config.h) or the file cannot
 *     be read as git config;
 *   - every hook git could run in its hooks directories;
 *   - a commondir naming a place outside the launch directory;
 * and every .git file (or link to one) naming a place outside it. Outside
 * means anything that does not resolve into the tree: /proc's links, any
 * place that cannot be resolved. Git's reading of each file: git_repo.h. See "Repositories" in
 * docs/workspace-protection.md. */
#include "workspace_int.h"

#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git_repo.h"
#include "tool_configs.h"
#include "link_resolve.h"
#include "base/file_read.h"
#include "base/paths.h"
#include "base/util.h"
#include "config/git_config.h"

#define GIT_FILE_MAX (1024 * 1024)

bool ws_in_tree(const workspace_t *ws, const char *abs)
{
    path_relation_t rel = path_relation(abs, ws->launch_dir);
    return rel == PATH_SAME || rel == PATH_INSIDE;
}

char *ws_rel_in_tree(const workspace_t *ws, const char *abs)
{
    size_t l = strlen(ws->launch_dir);
    if (abs[l] == '\0')
        return strdup(".");
    return strdup(abs + l + (strcmp(ws->launch_dir, "/") == 0 ? 0 : 1));
}

static char *join_rel(const char *dir, const char *name)
{
    char *p = NULL;
    if (strcmp(dir, ".") == 0)
        return strdup(name);
    return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* Reads the file at rel, never through a symlink: -ELOOP for one. */
/* Reads the regular file at rel, at most GIT_FILE_MAX bytes (-EFBIG past
 * that, as read_gitfile_gently() refuses more); through a symlink only when
 * follow (as git reads .git files), else -ELOOP for one. */
static int read_rel(const workspace_t *ws, const char *rel, bool follow, char **ret, size_t *ret_len)
{
    _cleanup_free_ char *abs = NULL;
    if (asprintf(&abs, "%s/%s", ws->launch_dir, rel) < 0)
        return -ENOMEM;
    _cleanup_close_ int fd = open(abs, O_RDONLY | (follow ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return -EINVAL;
    if (st.st_size > GIT_FILE_MAX)
        return -EFBIG;
    return read_fd_bounded(fd, GIT_FILE_MAX, ret, ret_len);
}

/* Where the path a git file names leads: physical and absolute, relative
 * ones taken from `dir_rel`. NULL on failure. */
static char *resolve_named(const workspace_t *ws, const char *dir_rel, const char *named)
{
    _cleanup_free_ char *joined = NULL, *out = NULL;
    if (named[0] == '/' ? (joined = strdup(named)) == NULL
                        : asprintf(&joined, "%s/%s/%s", ws->launch_dir, dir_rel, named) < 0)
        return NULL;
    as_error_t *e = NULL;
    link_end_t end;
    if (link_resolve(joined, NULL, &out, &end, &e) < 0) {
        as_error_free(&e);
        return NULL;
    }
    _cleanup_free_ char *norm = NULL;
    if (path_normalize(out, &norm, &e) < 0)
        as_error_free(&e);
    return steal_pointer(&norm);
}

typedef struct key_check {
    const workspace_t *ws;
    const char *dir_rel;     /* the git directory, for core.worktree */
    char *bad;               /* the first key refused */
} key_check_t;

static int check_key(void *ctx, const char *key, const char *value)
{
    key_check_t *k = ctx;
    /* what init and clone write, less what makes a read command fetch */
    bool ok = git_config_key_allowed(key) && !git_config_key_fetches(key);
    if (ok && strcmp(key, "core.worktree") == 0) {
        _cleanup_free_ char *where = value ? resolve_named(k->ws, k->dir_rel, value) : NULL;
        ok = where != NULL && ws_in_tree(k->ws, where);
    }
    if (ok)
        return 0;
    k->bad = strdup(key);
    return k->bad != NULL ? 1 : -ENOMEM;
}

/* The config file at rel (of the git directory dir_rel): disabled when new
 * or changed and not plainly harmless. */
static int check_config(const workspace_t *ws, const char *dir_rel, const char *name, ws_actions_t *acts)
{
    _cleanup_free_ char *rel = join_rel(dir_rel, name), *text = NULL, *why = NULL;
    if (rel == NULL)
        return -ENOMEM;
    if (!ws_changed(ws, rel))
        return 0;
    size_t len = 0;
    int r = read_rel(ws, rel, false, &text, &len);
    if (r == -ENOMEM)
        return r;
    key_check_t k = { ws, dir_rel, NULL };
    unsigned line = 0;
    if (r == 0)
        r = git_config_parse(text, len, check_key, &k, &line);
    if (r == -ENOMEM)
        return r;
    if (r == 0)
        return 0;
    if (k.bad != NULL && git_config_key_fetches(k.bad))
        r = asprintf(&why, "a git config with %s, a partial clone's key by which a command that only reads "
                     "(git status, git log) fetches from the network", k.bad);
    else if (k.bad != NULL)
        r = asprintf(&why, "a git config with %s, which a plain git init or clone never writes", k.bad);
    else if (r == -EBADMSG)
        r = asprintf(&why, "a git config that cannot be read safely (line %u)", line);
    else
        r = asprintf(&why, "a git config that is not a regular file");
    free(k.bad);
    if (r < 0)
        return -ENOMEM;
    return ws_disable(ws, rel, why, acts);
}

/* Every hook git could run in dir_rel/hooks, new or changed: disabled.
 * Judged where the hooks directory really is (a .git/hooks link into the
 * tree leads to the user's tools/hooks, recorded under that name). */
static int check_hooks(const workspace_t *ws, const char *dir_rel, ws_actions_t *acts)
{
    _cleanup_free_ char *hooks = join_rel(dir_rel, "hooks"), *phys = NULL, *abs = NULL;
    if (hooks == NULL)
        return -ENOMEM;
    /* A hooks link leading out of the tree (the user's own template
     * directory): nothing there is the agent's, nothing there is touched. */
    _cleanup_free_ char *where = resolve_named(ws, dir_rel, "hooks");
    if (where == NULL)
        return ws_unchanged(ws, hooks) ? 0 : ws_disable(ws, hooks, "a git hooks directory leading to a place "
                                                         "the check cannot judge", acts);
    if (!ws_in_tree(ws, where))
        return 0;
    if ((phys = ws_rel_in_tree(ws, where)) == NULL || asprintf(&abs, "%s/%s", ws->launch_dir, phys) < 0)
        return -ENOMEM;
    DIR *d = opendir(abs);
    if (d == NULL)
        /* none (git runs no hooks), or one the check cannot list: git may
         * still run what is in it */
        return errno == ENOENT || errno == ENOTDIR ? 0
               : ws_disable(ws, phys, "a git hooks directory the check cannot list", acts);
    int r = 0;
    struct dirent *e;
    errno = 0;
    while (r == 0 && (e = readdir(d)) != NULL) {
        /* git runs hooks by their names: never one renamed aside */
        if (git_hook_name_live(e->d_name) && strstr(e->d_name, DISABLED_SUFFIX) == NULL) {
            _cleanup_free_ char *rel = join_rel(phys, e->d_name);
            if (rel == NULL)
                r = -ENOMEM;
            else if (!ws_unchanged(ws, rel))
                r = ws_disable(ws, rel, "a git hook", acts);
        }
        errno = 0;
    }
    int read_error = r == 0 ? errno : 0;
    closedir(d);
    /* a listing cut short hides the hooks after it: git may still run them */
    if (read_error != 0)
        return read_error == ENOMEM ? -ENOMEM
               : ws_disable(ws, phys, "a git hooks directory the check could not list to its end", acts);
    return r;
}

/* A commondir (new or changed) naming a place outside the tree: disabled.
 * *ret_common is the common directory to check (rel), or NULL. */
static int check_commondir(const workspace_t *ws, const char *dir_rel, ws_actions_t *acts, char **ret_common)
{
    _cleanup_free_ char *rel = join_rel(dir_rel, "commondir"), *text = NULL, *named = NULL, *where = NULL;
    if (rel == NULL)
        return -ENOMEM;
    *ret_common = NULL;
    size_t len = 0;
    int r = read_rel(ws, rel, false, &text, &len);
    if (r == -ENOENT)
        return 0;
    if (r == -ENOMEM)
        return r;
    if (r == 0 && (r = git_commondir_parse(text, len, &named)) == -ENOMEM)
        return r;
    if (r == 0 && (where = resolve_named(ws, dir_rel, named)) != NULL && ws_in_tree(ws, where))
        return (*ret_common = ws_rel_in_tree(ws, where)) == NULL ? -ENOMEM : 0;
    if (ws_unchanged(ws, rel))
        return 0;            /* the user's own, leading where it always did */
    return ws_disable(ws, rel, "a git commondir naming a place outside the launch directory, "
                      "from which git would read a config and hooks", acts);
}

static int check_gitdir(const workspace_t *ws, const char *dir_rel, ws_actions_t *acts)
{
    _cleanup_free_ char *common = NULL;
    int r = check_commondir(ws, dir_rel, acts, &common);
    if (r < 0 || (r = check_config(ws, dir_rel, "config", acts)) < 0 ||
        (r = check_config(ws, dir_rel, "config.worktree", acts)) < 0 || (r = check_hooks(ws, dir_rel, acts)) < 0)
        return r;
    if (common == NULL || strcmp(common, dir_rel) == 0)
        return 0;
    if ((r = check_config(ws, common, "config", acts)) < 0)
        return r;
    return check_hooks(ws, common, acts);
}

/* A ".git" that is not a directory, new or changed, judged as git's
 * read_gitfile_gently() reads it: followed with stat(); a directory there
 * is walked where it is (and a link out of the tree was made a note); a
 * regular file is a gitfile, its path taken as git takes it (git_repo.h)
 * and relative to the directory of the ".git" itself, not of the link's
 * target. One naming a place in the tree leads to a git directory checked
 * here; anything else — outside, unresolvable, unreadable, too large, or
 * a form git might read otherwise than we do — is disabled. */
static int check_dot_git(const workspace_t *ws, const char *rel, ws_actions_t *acts)
{
    if (ws_unchanged(ws, rel))
        return 0;
    _cleanup_free_ char *abs = NULL, *text = NULL, *named = NULL, *dir = strdup(rel), *where = NULL;
    if (dir == NULL || asprintf(&abs, "%s/%s", ws->launch_dir, rel) < 0)
        return -ENOMEM;
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    struct stat st;
    if (stat(abs, &st) < 0 || !S_ISREG(st.st_mode))
        return 0;                /* git looks further up, or uses the directory */
    size_t len = 0;
    int r = read_rel(ws, rel, true, &text, &len);
    if (r == -ENOMEM)
        return r;
    if (r < 0)
        return ws_disable(ws, rel, "a .git file the check cannot read (git would)", acts);
    if ((r = git_gitfile_parse(text, len, &named)) == -ENOMEM)
        return r;
    if (r < 0)
        return ws_disable(ws, rel, "a .git file not in the form gitdir: PATH", acts);
    where = resolve_named(ws, slash != NULL ? dir : ".", named);
    if (where != NULL && ws_in_tree(ws, where)) {
        _cleanup_free_ char *target = ws_rel_in_tree(ws, where);
        return target != NULL ? check_gitdir(ws, target, acts) : -ENOMEM;
    }
    return ws_disable(ws, rel, "a .git file naming a git directory outside the launch directory", acts);
}

/* Copies of tool configs deeper in the tree (the table's nested rows): the
 * tool obeys them when run in that directory (npm, yarn and cargo look
 * upwards from there). */
static const tool_config_t *nested_tool_config(const ws_item_t *it)
{
    if (!(it->what & W_NESTED) || S_ISDIR(it->mode))
        return NULL;
    return tool_config_nested(it->rel);
}

int ws_git_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts, as_error_t **err)
{
    int r = 0;
    for (size_t i = 0; i < after->n && r >= 0; i++) {
        const ws_item_t *it = &after->v[i];

        const char *base = strrchr(it->rel, '/');
        base = base != NULL ? base + 1 : it->rel;
        if (it->what & W_REPO)
            r = check_gitdir(ws, it->rel, acts);
        else if (!S_ISDIR(it->mode) && strcmp(base, ".git") == 0)
            r = check_dot_git(ws, it->rel, acts);
        else if (nested_tool_config(it) != NULL && !ws_unchanged(ws, it->rel))
            r = ws_disable(ws, it->rel, "a tool config the tool obeys when run in that directory", acts);
    }
    return r == -ENOMEM ? ws_oom(err) : r < 0 ? as_error_errno(err, -r, "checking the git repositories") : 0;
}
