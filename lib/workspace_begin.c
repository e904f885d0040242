/* The start of a session: the tree locked, the placeholders made, and the
 * before-state taken on a thread of its own while the sandbox is set up
 * (in a tree of a million files the walk takes as long as podman's work),
 * joined before the agent starts. */
#include "workspace_int.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "util.h"

struct workspace_pending {
    pthread_t thread;
    workspace_t *ws;
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
    p->r = ws_snapshot_take(p->ws, NULL, &p->snap, &p->err);
    return NULL;
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
    workspace_pending_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return ws_oom(err);
    p->ws = ws;
    if ((r = pthread_create(&p->thread, NULL, walk_main, p)) != 0) {
        free(p);
        return as_error_errno(err, r, "starting the workspace walk");
    }
    ws->pending = p;
    return 0;
}

int workspace_begin_wait(workspace_t *ws, as_error_t **err)
{
    workspace_pending_t *p = steal_pointer(&ws->pending);
    if (p == NULL)
        return 0;
    pthread_join(p->thread, NULL);
    int r = p->r;
    if (r == 0)
        ws->before = steal_pointer(&p->snap);
    else if (err != NULL)
        *err = steal_pointer(&p->err);
    as_error_free(&p->err);
    free(p);
    return r;
}

int workspace_begin(workspace_t *ws, as_error_t **err)
{
    int r = workspace_begin_start(ws, err);
    return r < 0 ? r : workspace_begin_wait(ws, err);
}
