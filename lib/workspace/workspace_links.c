/* After the session: symlinks. A link on the way to a protected path that
 * was re-pointed (or replaced) is put back; a link that is new or re-pointed
 * and leads out of the launch directory is replaced by a note, since host
 * tools that save in place write through it (npm's lockfile, an editor).
 * Links to files of the system that the user cannot write stay. */
#include "workspace_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "link_resolve.h"
#include "base/paths.h"
#include "base/util.h"

static bool is_chain_link(const workspace_t *ws, const char *rel)
{
    for (size_t i = 0; i < ws->n_links; i++)
        if (strcmp(ws->links[i].rel, rel) == 0)
            return true;
    return false;
}

int ws_chain_check(const workspace_t *ws, ws_actions_t *acts, as_error_t **err)
{
    for (size_t i = 0; i < ws->n_links; i++) {
        const workspace_link_t *l = &ws->links[i];
        _cleanup_free_ char *abs = NULL, *why = NULL;
        if (asprintf(&abs, "%s/%s", ws->launch_dir, l->rel) < 0)
            return ws_oom(err);
        char buf[PATH_MAX];
        ssize_t n = readlink(abs, buf, sizeof(buf) - 1);
        if (n >= 0 && (size_t)n == strlen(l->target) && memcmp(buf, l->target, (size_t)n) == 0)
            continue;
        if (asprintf(&why, "a symlink on the way to the protected %s, %s during the session", l->leads_to,
                     n >= 0 ? "re-pointed" : "replaced or removed") < 0 ||
            ws_link_restore(ws, l->rel, l->target, why, acts) < 0)
            return ws_oom(err);
    }
    return 0;
}

/* A file of the system: owned by root and not writable by us. */
static bool system_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_uid == 0 && access(path, W_OK) < 0 && errno == EACCES;
}

/* Where the link at rel leads: NULL when it stays in the tree or reaches a
 * system file, else the place (malloc'd). */
static int leads_out(const workspace_t *ws, const char *rel, char **ret)
{
    _cleanup_free_ char *abs = NULL, *end_path = NULL, *norm = NULL;
    if (asprintf(&abs, "%s/%s", ws->launch_dir, rel) < 0)
        return -ENOMEM;
    as_error_t *e = NULL;
    link_end_t end;
    *ret = NULL;
    if (link_resolve(abs, NULL, &end_path, &end, &e) < 0) {
        /* a loop, an unreadable place: nothing a tool writes through, but no
         * telling where it leads either */
        as_error_free(&e);
        return (*ret = strdup("(a place that cannot be resolved)")) == NULL ? -ENOMEM : 0;
    }
    if (path_normalize(end_path, &norm, &e) < 0) {
        as_error_free(&e);
        return -ENOMEM;
    }
    if (ws_in_tree(ws, norm) || (end == LINK_FOUND && system_file(norm)))
        return 0;
    *ret = steal_pointer(&norm);
    return 0;
}

int ws_outside_links_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts,
                           as_error_t **err)
{
    for (size_t i = 0; i < after->n; i++) {
        const ws_item_t *it = &after->v[i];
        if (!(it->what & W_LINK) || it->link == NULL || is_chain_link(ws, it->rel) || ws_unchanged(ws, it->rel))
            continue;
        _cleanup_free_ char *out = NULL, *why = NULL;
        if (leads_out(ws, it->rel, &out) < 0)
            return ws_oom(err);
        if (out == NULL)
            continue;
        if (asprintf(&why, "a symlink made or re-pointed during the session, to %s, outside the launch "
                     "directory", it->link) < 0 ||
            ws_link_to_note(ws, it->rel, it->link, why, acts) < 0)
            return ws_oom(err);
    }
    return 0;
}
