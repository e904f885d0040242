/* What the walk records of an entry, judged by its path, its type and mode,
 * and the session's own placeholders and object stores: pure, asked of
 * every entry of the tree (workspace_scan.c walks it). */
#include "workspace_int.h"
#include "vcs_meta.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* A path the walk looks for: a protected path or a read-only mount's
 * target. */
struct ws_pattern {
    char *slashed;           /* "/" + relative path */
    size_t len;
    char last;               /* its last byte: a cheap first test */
    bool root_only;          /* a symlink's target: not looked for deeper */
};

static void patterns_free(struct ws_pattern *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i].slashed);
    free(p);
}

void ws_patterns_clear(ws_patterns_t *pats)
{
    patterns_free(pats->v, pats->n);
    *pats = (ws_patterns_t){ 0 };
}

int ws_patterns_build(const workspace_t *ws, ws_patterns_t *ret, as_error_t **err)
{
    size_t cap = ws->rules->n + ws->n_mounts, n = 0;
    struct ws_pattern *p = calloc(cap ? cap : 1, sizeof(*p));
    if (p == NULL)
        return ws_oom(err);
    for (size_t i = 0; i < cap; i++) {
        const char *rel;
        bool root_only = false;
        if (i < ws->rules->n) {
            rel = ws->rules->v[i].path;
        } else {
            const workspace_mount_t *m = &ws->mounts[i - ws->rules->n];
            if (m->kind != WORKSPACE_READ_ONLY)
                continue;
            rel = m->rel;
            root_only = true;
        }
        if (asprintf(&p[n].slashed, "/%s", rel) < 0) {
            patterns_free(p, n);
            return ws_oom(err);
        }
        p[n].len = strlen(p[n].slashed);
        p[n].last = p[n].slashed[p[n].len - 1];
        p[n].root_only = root_only;
        n++;
    }
    *ret = (ws_patterns_t){ .v = p, .n = n };
    return 0;
}

/* Names host git reads in a git directory, and what a hooks directory holds:
 * recorded so that the end of the session can tell new from old. */
static bool git_relevant(const char *path)
{
    const char *base = strrchr(path, '/') + 1;
    if (strcmp(base, ".git") == 0 || strcmp(base, "config") == 0 || strcmp(base, "config.worktree") == 0 ||
        strcmp(base, "commondir") == 0 || strcmp(base, "objects") == 0)
        return true;
    size_t plen = (size_t)(base - 1 - path);
    return plen >= 6 && strncmp(path + plen - 6, "/hooks", 6) == 0;
}

/* Names the class checks judge, wherever they are: bytecode, which the end
 * removes when the session wrote it; a top-level entry, or an __init__ of
 * a top-level directory (a module that python run from the top imports);
 * the metadata of a version-control tool, and Mercurial's hgrc (a share's
 * store may have any name). */
static unsigned class_relevant(const char *path, size_t len)
{
    const char *base = strrchr(path, '/') + 1;
    size_t depth = ws_depth(path);
    unsigned what = 0;
    if (len >= 4 && memcmp(path + len - 4, ".pyc", 4) == 0)
        what |= W_BYTECODE;
    if (depth == 1 || (depth == 2 && strncmp(base, "__init__", 8) == 0))
        what |= W_TOP;
    if (vcs_meta_tool(base) != NULL || strcmp(base, "hgrc") == 0)
        what |= W_VCS;
    return what;
}

/* Only the patterns that end at this entry are compared: what is inside a
 * protected (nested) path is so too, and comes in `inherited`. */
unsigned ws_classify_name(const ws_patterns_t *pats, const char *path, size_t len, unsigned inherited)
{
    unsigned what = inherited | class_relevant(path, len);
    if (git_relevant(path))
        what |= W_GIT;
    if (ws_python_relevant(path))
        what |= W_PYTHON;
    for (size_t i = 0; i < pats->n; i++) {
        const struct ws_pattern *p = &pats->v[i];
        if (p->last != path[len - 1] || p->len > len || memcmp(path + len - p->len, p->slashed, p->len) != 0)
            continue;
        if (p->len == len)
            what |= W_PROTECTED;
        else if (!p->root_only)
            what |= W_NESTED;
    }
    return what;
}

unsigned ws_classify_type(const struct stat *st)
{
    return (S_ISREG(st->st_mode) && (st->st_mode & 0111) != 0 ? W_EXEC : 0) | (S_ISLNK(st->st_mode) ? W_LINK : 0);
}

bool ws_loose_objects_dir(const char *name)
{
    return strlen(name) == 2 && strspn(name, "0123456789abcdef") == 2;
}

bool ws_store_existed(const workspace_snapshot_t *before, const char *path, const struct stat *st)
{
    if (before == NULL)
        return true;
    const ws_item_t *b = ws_snapshot_find(before, path + 1);
    return b != NULL && (b->what & W_OBJSTORE) && b->dev == st->st_dev && b->ino == st->st_ino;
}

bool ws_placeholder_ours(const workspace_t *ws, const struct stat *st)
{
    if (!S_ISDIR(st->st_mode) && st->st_size != 0)
        return false;
    for (size_t i = 0; i < ws->n_mounts; i++)
        if (ws->mounts[i].created && ws->mounts[i].dev == st->st_dev && ws->mounts[i].ino == st->st_ino)
            return true;
    return false;
}
