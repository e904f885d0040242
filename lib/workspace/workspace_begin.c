/* The walks on a thread of their own, beside podman's work (in a tree of a
 * million files a walk takes as long): the before-state while the sandbox
 * is set up, joined before the agent starts; the after-state once the
 * agent's container has exited, while the rest is torn down. And the start
 * of a session: the tree locked, the placeholders made. */
#include "workspace_int.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct workspace_pending {
    pthread_t thread;
    workspace_t *ws;
    const workspace_snapshot_t *before;   /* NULL: the start */
    workspace_snapshot_t *snap;
    as_error_t *err;
    int r;
};

static void *walk_main(void *arg)
{
    workspace_pending_t *p = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);    /* signals are the main thread's */
    p->r = ws_snapshot_take(p->ws, p->before, &p->snap, &p->err);
    return NULL;
}

static int walk_start(workspace_t *ws, const workspace_snapshot_t *before, workspace_pending_t **ret,
                      as_error_t **err)
{
    workspace_pending_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return ws_oom(err);
    p->ws = ws;
    p->before = before;
    int r = pthread_create(&p->thread, NULL, walk_main, p);
    if (r != 0) {
        free(p);
        return as_error_errno(err, r, "starting the workspace walk");
    }
    *ret = p;
    return 0;
}

/* Joins the walk: 0 and *ret its snapshot, or its error. */
static int walk_join(workspace_pending_t *p, workspace_snapshot_t **ret, as_error_t **err)
{
    pthread_join(p->thread, NULL);
    int r = p->r;
    if (r == 0)
        *ret = steal_pointer(&p->snap);
    else if (err != NULL)
        *err = steal_pointer(&p->err);
    as_error_free(&p->err);
    free(p);
    return r;
}

int workspace_begin_start(workspace_t *ws, as_error_t **err)
{
    if (ws->before != NULL || ws->pending != NULL)
        return as_error_make(err, EALREADY, "internal error: workspace_begin called twice");
    int r = ws_lock_tree(ws, err);
    if (r < 0)
        return r;
    ws_remove_stale_placeholders(ws);
    if ((r = ws_plan_all(ws, err)) < 0)
        return r;
    /* made first, so that the plan's mounts exist; the walk leaves them out
     * (they are ours, not the user's) */
    for (size_t i = 0; i < ws->n_mounts; i++)
        if (ws->mounts[i].placeholder && (r = ws_create_placeholder(&ws->mounts[i], err)) < 0)
            return r;
    return walk_start(ws, NULL, &ws->pending, err);
}

int workspace_begin_wait(workspace_t *ws, as_error_t **err)
{
    workspace_pending_t *p = steal_pointer(&ws->pending);
    return p == NULL ? 0 : walk_join(p, &ws->before, err);
}

int workspace_begin(workspace_t *ws, as_error_t **err)
{
    int r = workspace_begin_start(ws, err);
    return r < 0 ? r : workspace_begin_wait(ws, err);
}

int workspace_end_start(workspace_t *ws, as_error_t **err)
{
    int r = workspace_begin_wait(ws, err);
    if (r < 0 || ws->before == NULL || ws->pending_end != NULL)
        return r;
    return walk_start(ws, ws->before, &ws->pending_end, err);
}

/* Drops the placeholders removed since the walk: they were ours. */
static void drop_removed_placeholders(const workspace_t *ws, workspace_snapshot_t *s)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i++) {
        bool drop = false;
        for (size_t k = 0; k < ws->n_mounts && !drop; k++) {
            const workspace_mount_t *m = &ws->mounts[k];
            struct stat st;
            drop = m->placeholder && strcmp(m->rel, s->v[i].rel) == 0 && lstat(m->path, &st) < 0 && errno == ENOENT;
        }
        if (drop) {
            free(s->v[i].rel);
            free(s->v[i].link);
        } else {
            s->v[kept++] = s->v[i];
        }
    }
    s->n = kept;
}

int ws_end_snapshot(workspace_t *ws, workspace_snapshot_t **ret, as_error_t **err)
{
    workspace_pending_t *p = steal_pointer(&ws->pending_end);
    if (p == NULL)
        return ws_snapshot_take(ws, ws->before, ret, err);
    int r = walk_join(p, ret, err);
    if (r == 0)
        drop_removed_placeholders(ws, *ret);
    return r;
}

void ws_walks_cancel(workspace_t *ws)
{
    _cleanup_(ws_snapshot_freep) workspace_snapshot_t *s = NULL;
    (void)workspace_begin_wait(ws, NULL);
    workspace_pending_t *p = steal_pointer(&ws->pending_end);
    if (p != NULL && walk_join(p, &s, NULL) == 0)
        ws_snapshot_restore_modes(ws, s);
}
