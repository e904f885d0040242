/* A session in review mode: its review before the agent starts, its
 * summary and ID at the end (docs/review.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shared/cli.h"
#include "review.h"
#include "base/escape.h"
#include "base/msg.h"
#include "base/util.h"
#include "review/review_changes.h"
#include "review/review_filter.h"
#include "workspace/workspace.h"

/* By the coarse clock that file times come from (as the workspace's walk
 * reads it): a host edit after the start then always has a ctime at or
 * after it, and one in the same tick before it counts as a conflict too
 * (refused, never overwritten). The fine clock runs up to a tick ahead, so
 * an edit right after the start could look older. */
static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int review_session_begin(const char *id, const char *workdir, const char *image, review_info_t *ret)
{
    as_error_t *err = NULL;
    if (review_store_create(id, workdir, image, now_ns(), ret, &err) < 0) {
        as_error_prefix(&err, "review mode");
        report_error(&err);
        return EXIT_SETUP;
    }
    return 0;
}

typedef struct counts {
    size_t added, changed, deleted, modes, links, special, unexamined, git;
} counts_t;

static bool is_git(const char *path)
{
    return strcmp(path, ".git") == 0 || strncmp(path, ".git/", 5) == 0;
}

static void count(const review_changes_t *c, counts_t *n)
{
    for (size_t i = 0; i < c->n; i++) {
        const review_change_t *x = &c->v[i];
        if (is_git(x->path)) {
            n->git++;            /* lands as a branch, never as files (docs/review.md) */
            continue;
        }
        n->added += x->kind == REVIEW_ADDED;
        n->changed += x->kind == REVIEW_MODIFIED;
        n->deleted += x->kind == REVIEW_DELETED;
        n->modes += x->kind == REVIEW_MODIFIED && x->mode_changed;
        n->links += x->type == REVIEW_SYMLINK || x->host_type == REVIEW_SYMLINK;
        n->special += x->type == REVIEW_FIFO || x->type == REVIEW_SOCKET || x->type == REVIEW_CHAR ||
                      x->type == REVIEW_BLOCK;
        n->unexamined += x->unexamined != NULL;
    }
}

char *review_summary(const review_info_t *r, as_error_t **err)
{
    _cleanup_(review_changes_freep) review_changes_t *c = NULL;
    if (review_changes_list(r->upper, r->root, &c, err) < 0)
        return NULL;
    return review_summary_of(c, err);
}

char *review_summary_of(const struct review_changes *c, as_error_t **err)
{
    return review_summary_judged(c, NULL, err);
}

char *review_summary_judged(const struct review_changes *c, const struct review_verdicts *v, as_error_t **err)
{
    counts_t n = { 0 };
    count(c, &n);
    msg_t m;
    if (msg_open(&m, err) < 0)
        return NULL;
    fprintf(m.f, "%zu added, %zu changed, %zu deleted", n.added, n.changed, n.deleted);
    if (n.modes > 0)
        fprintf(m.f, ", %zu %s", n.modes, plural(n.modes, "mode change", "mode changes"));
    if (n.links > 0)
        fprintf(m.f, ", %zu %s", n.links, plural(n.links, "link", "links"));
    if (n.git > 0)
        fputs("; .git changed (commits arrive as a branch)", m.f);
    size_t refused = 0;
    for (size_t i = 0; v != NULL && i < v->n; i++)
        refused += v->v[i].refused && !v->v[i].git;
    if (v != NULL)
        fprintf(m.f, "; apply will refuse %zu", refused);
    else if (n.special + n.unexamined > 0)
        fprintf(m.f, "; apply will refuse %zu special %s and %zu it cannot examine",
                n.special, plural(n.special, "file", "files"), n.unexamined);
    char *text = NULL;
    return msg_close(&m, &text, err) < 0 ? NULL : text;
}

/* A review without a change is removed at once: nothing to show or apply. */
static bool drop_if_empty(review_info_t *r)
{
    as_error_t *err = NULL;
    _cleanup_(review_changes_freep) review_changes_t *c = NULL;
    if (review_changes_list(r->upper, r->root, &c, &err) < 0 || c->n > 0) {
        as_error_free(&err);
        return false;
    }
    report("review %s: no changes (the review is removed)", r->id);
    if (review_remove(r) != 0)
        return false;
    return true;
}

/* The summary with the filter's verdicts (the protected paths of ws),
 * and the first refusals, each in a line. */
static void report_judged(const review_info_t *r, const workspace_t *ws)
{
    as_error_t *err = NULL;
    _cleanup_(review_changes_freep) review_changes_t *c = NULL;
    _cleanup_(review_verdicts_freep) review_verdicts_t *v = NULL;
    _cleanup_free_ char **rules = calloc(ws != NULL && ws->rules != NULL ? ws->rules->n + 1 : 1, sizeof(char *));
    size_t n_rules = 0;
    for (size_t i = 0; rules != NULL && ws != NULL && ws->rules != NULL && i < ws->rules->n; i++)
        rules[n_rules++] = ws->rules->v[i].path;
    review_filter_t f = { .root = r->root, .protected_paths = rules, .n_protected = n_rules };
    _cleanup_free_ char *line = NULL;
    if (rules == NULL || review_changes_list(r->upper, r->root, &c, &err) < 0 ||
        review_filter_judge(&f, c, &v, &err) < 0 || (line = review_summary_judged(c, v, &err)) == NULL) {
        as_error_prefix(&err, "summing up review %s", r->id);
        report("warning: %s", err != NULL ? err->msg : "out of memory");
        as_error_free(&err);
        return;
    }
    report("review %s: %s", r->id, line);
    size_t shown = 0;
    for (size_t i = 0; i < v->n && shown < 5; i++) {
        if (!v->v[i].refused || v->v[i].git)
            continue;
        _cleanup_free_ char *path = path_escaped(c->v[i].path);
        report("  refused: %s: %s", path != NULL ? path : "?", v->v[i].reason);
        shown++;
    }
}

void review_session_end(review_info_t *r, const workspace_t *ws)
{
    as_error_t *err = NULL;
    if (review_store_end(r, now_ns(), &err) < 0) {
        as_error_prefix(&err, "recording the end of review %s", r->id);
        report("warning: %s", err->msg);
        as_error_free(&err);
    }
    if (drop_if_empty(r))
        return;
    report_judged(r, ws);
    _cleanup_free_ char *root = path_escaped(r->root);
    report("nothing of %s was written: agent-sandbox diff %s shows the changes, apply %s brings them "
           "in, discard %s drops them", root != NULL ? root : "the tree", r->id, r->id, r->id);
}
