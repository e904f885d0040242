/* Begin and end of a session: the before-state, the placeholders, the report. */
#include "workspace_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "util.h"
/* ---- begin, end, the report -------------------------------------------- */

int workspace_begin(workspace_t *ws, as_error_t **err)
{
    if (ws->before != NULL)
        return as_error_make(err, EALREADY, "internal error: workspace_begin called twice");
    int r = ws_lock_tree(ws, err);
    if (r < 0)
        return r;
    ws_remove_stale_placeholders(ws);
    if ((r = ws_plan_all(ws, err)) < 0 || (r = ws_snapshot_take(ws, &ws->before, err)) < 0)
        return r;
    for (size_t i = 0; i < ws->n_mounts; i++)
        if (ws->mounts[i].placeholder && (r = ws_create_placeholder(&ws->mounts[i], err)) < 0)
            return r;
    return 0;
}

typedef enum { CH_CREATED, CH_REMOVED, CH_CHANGED } change_t;

typedef struct change {
    const ws_item_t *it;        /* the after item, or the before one when removed */
    change_t kind;
    unsigned what;
} change_entry_t;

static bool item_changed(const ws_item_t *a, const ws_item_t *b)
{
    return a->mode != b->mode || a->size != b->size || a->dev != b->dev || a->ino != b->ino ||
           a->ctim.tv_sec != b->ctim.tv_sec || a->ctim.tv_nsec != b->ctim.tv_nsec ||
           (a->link == NULL) != (b->link == NULL) || (a->link != NULL && strcmp(a->link, b->link) != 0);
}

static int rank(unsigned what)
{
    return (what & W_PROTECTED) ? 0 : (what & W_WATCHED) ? 1 : (what & W_NESTED) ? 2 : 3;
}

static int change_cmp(const void *a, const void *b)
{
    const change_entry_t *x = a, *y = b;
    int rx = rank(x->what), ry = rank(y->what);
    if (rx != ry)
        return rx - ry;
    return strcmp(x->it->rel, y->it->rel);
}

/* A change worth reporting? Only executables that appear or change count;
 * for the rest, any change. */
static bool relevant(change_t kind, unsigned what)
{
    if (what & (W_PROTECTED | W_WATCHED | W_NESTED))
        return true;
    return kind != CH_REMOVED;
}

static void put_change(FILE *f, const change_entry_t *c)
{
    fputs("  ", f);
    path_put_escaped(f, c->it->rel, strlen(c->it->rel));
    if (c->what & (W_PROTECTED | W_WATCHED | W_NESTED)) {
        fprintf(f, ": %s", c->kind == CH_CREATED ? "created" : c->kind == CH_REMOVED ? "removed" : "changed");
        if (c->what & W_PROTECTED)
            fputs(" (protected)", f);
        else if (c->what & W_WATCHED)
            fputs(" (git reads it to find its config)", f);
        else
            fputs(" (a copy of a protected path)", f);
        if ((c->what & W_EXEC) && c->kind != CH_REMOVED)
            fputs(", executable", f);
    } else {
        fputs(c->kind == CH_CREATED ? ": new, or made executable" : ": changed, executable", f);
    }
    fputc('\n', f);
}

static int report(const workspace_t *ws, const workspace_snapshot_t *after, const char *kept,
                  char **ret, as_error_t **err)
{
    const workspace_snapshot_t *before = ws->before;
    change_entry_t *ch = calloc(before->n + after->n + 1, sizeof(*ch));
    if (ch == NULL)
        return ws_oom(err);
    size_t n = 0, i = 0, j = 0;
    while (i < before->n || j < after->n) {
        int c = i == before->n ? 1 : j == after->n ? -1 : strcmp(before->v[i].rel, after->v[j].rel);
        change_entry_t e;
        if (c < 0) {
            e = (change_entry_t){ &before->v[i], CH_REMOVED, before->v[i].what };
            i++;
        } else if (c > 0) {
            e = (change_entry_t){ &after->v[j], CH_CREATED, after->v[j].what };
            j++;
        } else {
            const ws_item_t *a = &before->v[i++], *b = &after->v[j++];
            if (!item_changed(a, b))
                continue;
            /* became executable: as good as new */
            e = (change_entry_t){ b, (b->what & W_EXEC) && !(a->what & W_EXEC) ? CH_CREATED : CH_CHANGED,
                                  a->what | b->what };
            if (!(e.what & (W_PROTECTED | W_WATCHED | W_NESTED)) && !(b->what & W_EXEC))
                continue;         /* no longer executable */
        }
        if (relevant(e.kind, e.what))
            ch[n++] = e;
    }
    if (n == 0 && kept == NULL && !after->incomplete && !before->incomplete) {
        free(ch);
        *ret = NULL;
        return 0;
    }
    qsort(ch, n, sizeof(*ch), change_cmp);
    ws_msg_t m;
    int r = ws_msg_open(&m, err);
    if (r < 0) {
        free(ch);
        return r;
    }
    if (n > 0) {
        fputs("files that can run on this machine changed in ", m.f);
        ws_put_path(m.f, ws->home, ws->launch_dir);
        fputs(" during the session:\n", m.f);
        for (size_t k = 0; k < n && k < REPORT_MAX_LINES; k++)
            put_change(m.f, &ch[k]);
        if (n > REPORT_MAX_LINES)
            fprintf(m.f, "  ... and %zu more\n", n - REPORT_MAX_LINES);
        fputs("Look at them before you run git, open the project in an editor or run its tools "
              "outside the sandbox.", m.f);
    }
    if (kept != NULL)
        fprintf(m.f, "%s%s", n > 0 ? "\n" : "", kept);
    if (after->incomplete || before->incomplete)
        fprintf(m.f, "%sthe check of executable files was partial: the tree has more than %d entries, "
                "is deeper than %d levels or has unreadable directories.",
                n > 0 || kept != NULL ? "\n" : "", WALK_MAX_ENTRIES, WALK_MAX_DEPTH);
    free(ch);
    return ws_msg_close(&m, ret, err);
}

int workspace_end(workspace_t *ws, bool remove_placeholders, char **ret_report, as_error_t **err)
{
    if (ws->before == NULL)
        return as_error_make(err, EINVAL, "internal error: workspace_end without workspace_begin");
    ws_msg_t m;
    int r = ws_msg_open(&m, err);
    if (r < 0)
        return r;
    size_t n_kept = 0;
    for (size_t i = 0; i < ws->n_mounts; i++) {
        workspace_mount_t *mt = &ws->mounts[i];
        if (!mt->created)
            continue;
        if (remove_placeholders && ws_remove_placeholder(mt)) {
            mt->created = false;
            continue;
        }
        fputs(n_kept++ == 0 ? "left in place, the placeholders made for the session: " : ", ", m.f);
        path_put_escaped(m.f, mt->rel, strlen(mt->rel));
    }
    if (n_kept > 0)
        fputs(remove_placeholders ? " (no longer empty: they hold what was written on the host)"
                                  : " (the sandbox may still be running; remove them once it is gone "
                                    "if they are still empty)", m.f);
    _cleanup_free_ char *kept = NULL;
    if ((r = ws_msg_close(&m, &kept, err)) < 0)
        return r;
    workspace_snapshot_t *after = NULL;
    if ((r = ws_snapshot_take(ws, &after, err)) < 0)
        return r;
    r = report(ws, after, n_kept > 0 ? kept : NULL, ret_report, err);
    ws_snapshot_free(after);
    return r;
}

