/* After the session: the metadata of the version-control tools other than
 * git (vcs_meta.h), judged as a class. Metadata the session made (a `.hg`,
 * `.svn`, `.bzr`, `_darcs`, `.jj`, `.pijul`, a Fossil checkout), anywhere in
 * the tree, is disabled whole: each of these tools obeys configuration,
 * hooks and extensions kept in it, and a list of their names would miss the
 * next one. In metadata that was there, each config file the tool reads is
 * one of the table's nested or if-exists rows (tool_configs.table), judged
 * by workspace_git.c and workspace_configs.c; what a Mercurial share reads
 * of its store is judged here: the store's `hgrc` (read with `share-safe`),
 * wherever the unchanged `.hg/sharedpath` leads in the tree. */
#include "workspace_int.h"
#include "vcs_meta.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "link_resolve.h"
#include "base/file_read.h"
#include "base/paths.h"
#include "base/util.h"

#define SHAREDPATH_MAX 4096

/* A placeholder this session made and left (written into on the host). */
static bool our_placeholder(const workspace_t *ws, const ws_item_t *it)
{
    for (size_t i = 0; i < ws->n_mounts; i++)
        if (ws->mounts[i].created && ws->mounts[i].dev == it->dev && ws->mounts[i].ino == it->ino)
            return true;
    return false;
}

/* Metadata made during the session (not there at the start, or not the
 * same directory or file: replaced) is disabled whole. Metadata that was
 * there changes with every commit; its configs are the table's rows. */
static int check_planted(const workspace_t *ws, const ws_item_t *it, ws_actions_t *acts)
{
    const char *tool = vcs_meta_tool(ws_base_name(it->rel));
    const ws_item_t *b = ws_snapshot_find(ws->before, it->rel);
    if (tool == NULL || our_placeholder(ws, it) ||
        (b != NULL && b->dev == it->dev && b->ino == it->ino && (b->mode & S_IFMT) == (it->mode & S_IFMT)))
        return 0;
    _cleanup_free_ char *why = NULL;
    if (asprintf(&why, "the metadata of a %s repository or checkout, made during the session: %s obeys the "
                 "configuration, hooks and extensions kept in it", tool, tool) < 0)
        return -ENOMEM;
    return ws_disable(ws, it->rel, why, acts);
}

/* Where the share at dir_rel (a ".hg") keeps its store: the physical path
 * its sharedpath names (relative to dir_rel when not absolute), or NULL. */
static char *share_store(const workspace_t *ws, const char *dir_rel)
{
    _cleanup_free_ char *file = NULL, *text = NULL, *joined = NULL, *end = NULL, *norm = NULL;
    size_t len = 0;
    as_error_t *e = NULL;
    if (asprintf(&file, "%s/%s/sharedpath", ws->launch_dir, dir_rel) < 0)
        return NULL;
    if (config_file_read(AT_FDCWD, file, CONFIG_NOFOLLOW, SHAREDPATH_MAX, &text, &len, &e) < 0) {
        as_error_free(&e);
        return NULL;
    }
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    if (len == 0 || (text[0] == '/' ? (joined = strdup(text)) == NULL
                                    : asprintf(&joined, "%s/%s/%s", ws->launch_dir, dir_rel, text) < 0))
        return NULL;
    link_end_t how;
    if (link_resolve(joined, NULL, &end, &how, &e) < 0 || path_normalize(end, &norm, &e) < 0) {
        as_error_free(&e);
        return NULL;
    }
    return steal_pointer(&norm);
}

/* A share's store in the tree: its hgrc, made or changed during the
 * session, is what `hg` in the share obeys (share-safe). */
static int check_share(const workspace_t *ws, const ws_item_t *it, ws_actions_t *acts)
{
    const char *base = ws_base_name(it->rel);
    if (strcmp(base, "sharedpath") != 0 || !S_ISREG(it->mode) || ws_acted_on(acts, it->rel))
        return 0;
    _cleanup_free_ char *dir = strndup(it->rel, (size_t)(base - it->rel) - (base > it->rel ? 1 : 0));
    if (dir == NULL)
        return -ENOMEM;
    if (strcmp(ws_base_name(dir), ".hg") != 0)
        return 0;
    _cleanup_free_ char *store = share_store(ws, dir), *in_tree = NULL, *hgrc = NULL;
    if (store == NULL || !ws_in_tree(ws, store))
        return 0;                        /* out of the tree: the user's own share, or the sharedpath's rule */
    if ((in_tree = ws_rel_in_tree(ws, store)) == NULL ||
        (strcmp(in_tree, ".") == 0 ? (hgrc = strdup("hgrc")) == NULL : asprintf(&hgrc, "%s/hgrc", in_tree) < 0))
        return -ENOMEM;
    if (!ws_changed(ws, hgrc))
        return 0;
    return ws_disable(ws, hgrc, "the hgrc of a Mercurial store that a share in the tree reads "
                      "(share-safe), made or changed during the session", acts);
}

int ws_vcs_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts, as_error_t **err)
{
    int r = 0;
    for (size_t i = 0; i < after->n && r == 0; i++)
        if (after->v[i].what & W_VCS)
            r = check_planted(ws, &after->v[i], acts);
    for (size_t i = 0; i < after->n && r == 0; i++)
        if (after->v[i].what & (W_NESTED | W_PROTECTED))
            r = check_share(ws, &after->v[i], acts);
    return r == -ENOMEM ? ws_oom(err) : r < 0 ? as_error_errno(err, -r, "checking version-control metadata") : 0;
}
