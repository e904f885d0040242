/* A session in review mode (session_review.h): its review before the
 * agent starts, its summary and ID at the end, its removal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "session_review.h"
#include "backend.h"
#include "labels.h"
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

session_fault_t review_session_begin(const char *id, const char *workdir, const char *image,
                                     const session_say_t *to, review_info_t *ret)
{
    as_error_t *err = NULL;
    if (review_store_create(id, workdir, image, now_ns(), ret, &err) < 0) {
        as_error_prefix(&err, "review mode");
        say_error(to, &err);
        return SESSION_FAULT_SETUP;
    }
    return SESSION_OK;
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
static bool drop_if_empty(review_info_t *r, const session_say_t *to)
{
    as_error_t *err = NULL;
    _cleanup_(review_changes_freep) review_changes_t *c = NULL;
    if (review_changes_list(r->upper, r->root, &c, &err) < 0 || c->n > 0) {
        as_error_free(&err);
        return false;
    }
    say(to, SAY_PLAIN, "review %s: no changes (the review is removed)", r->id);
    return review_remove(r, to) == SESSION_OK;
}

/* The summary with the filter's verdicts (the protected paths of ws),
 * and the first refusals, each in a line. */
static void say_judged(const review_info_t *r, const workspace_t *ws, const session_say_t *to)
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
        say(to, SAY_WARNING, "%s", err != NULL ? err->msg : "out of memory");
        as_error_free(&err);
        return;
    }
    say(to, SAY_PLAIN, "review %s: %s", r->id, line);
    size_t shown = 0;
    for (size_t i = 0; i < v->n && shown < 5; i++) {
        if (!v->v[i].refused || v->v[i].git)
            continue;
        _cleanup_free_ char *path = path_escaped(c->v[i].path);
        say(to, SAY_PLAIN, "  refused: %s: %s", path != NULL ? path : "?", v->v[i].reason);
        shown++;
    }
}

void review_session_end(review_info_t *r, const workspace_t *ws, const session_say_t *to)
{
    as_error_t *err = NULL;
    if (review_store_end(r, now_ns(), &err) < 0) {
        as_error_prefix(&err, "recording the end of review %s", r->id);
        say(to, SAY_WARNING, "%s", err->msg);
        as_error_free(&err);
    }
    if (drop_if_empty(r, to))
        return;
    say_judged(r, ws, to);
    _cleanup_free_ char *root = path_escaped(r->root);
    say(to, SAY_PLAIN, "nothing of %s was written: agent-sandbox diff %s shows the changes, apply %s brings them "
           "in, discard %s drops them", root != NULL ? root : "the tree", r->id, r->id, r->id);
}

#define SCRUB_DIR "/scrub"

/* What the overlay left in the review's work/work belongs to the
 * container's root (keep-id maps it to a subordinate id the user cannot
 * write as): a short container as that root, with only the leftover
 * mounted and no capability but DAC_OVERRIDE, empties it. */
static int scrub(const char *left, const char *image, as_error_t **err)
{
    static char *const command[] = { "find", SCRUB_DIR, "-mindepth", "1", "-delete", NULL };
    static char *const cap_drop_all[] = { "all", NULL };
    static char *const cap_add[] = { "DAC_OVERRIDE", NULL };
    static char *const bind_rw[] = { "rw", "rbind", "rprivate", NULL };
    backend_t b = { 0 };
    char id[SESSION_ID_LEN + 1];
    if (session_id_generate(id, err) < 0 || backend_start(id, NULL, &b, err) < 0)
        return as_error_prefix(err, "no podman service to run it in");
    _cleanup_free_ char *name = NULL;
    int exit_code = -1, r = -ENOMEM;
    if (asprintf(&name, "agent-sandbox-%s-scrub", b.dir->id) >= 0) {
        podman_mount_t mount = { .source = left, .destination = SCRUB_DIR, .type = "bind", .options = bind_rw };
        podman_label_t label = { LABEL_SESSION, b.dir->id };
        podman_container_spec_t spec = {
            .name = name, .image = image, .command = command, .user = "0:0", .work_dir = "/",
            .read_only = true, .no_new_privileges = true, .cap_drop = cap_drop_all, .cap_add = cap_add,
            .mounts = &mount, .n_mounts = 1, .no_network = true, .userns_keep_id = true,
            .labels = &label, .n_labels = 1,
        };
        r = backend_run_once(&b, &spec, &exit_code, err);
    } else {
        as_error_make(err, ENOMEM, "out of memory");
    }
    backend_stop(&b, NULL);
    if (r == 0 && exit_code != 0)
        r = as_error_make(err, EIO, "find -delete in image %s exited %d", image, exit_code);
    if (r == 0 && rmdir(left) < 0)
        r = as_error_errno(err, errno, "removing %s", left);
    return r;
}

session_fault_t review_remove(const review_info_t *r, const session_say_t *to)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *left = NULL;
    if (review_store_remove(r, &left, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_CONFIG;
    }
    if (left == NULL)
        return SESSION_OK;
    if (r->image != NULL && scrub(left, r->image, &err) == 0)
        return SESSION_OK;
    _cleanup_free_ char *shown = path_escaped(left);
    say(to, SAY_NOTE, "the overlay's scratch of review %s belongs to the container's root%s%s: "
           "`podman unshare rm -rf %s` removes it", r->id, err != NULL ? " and could not be removed: " : "",
           err != NULL ? err->msg : "", shown != NULL ? shown : "?");
    as_error_free(&err);
    return SESSION_OK;
}
