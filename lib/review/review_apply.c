/* Changes landing on the host tree, and taken back (review_apply.h). */
#include "review_apply.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "review_journal.h"
#include "workspace/link_resolve.h"

typedef struct apply {
    const review_apply_ctx_t *ctx;
    int root_fd, upper_fd;
    review_journal_t journal;
    char tmp[64];
} apply_t;

static void fail_with(review_result_t *res, review_outcome_t o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_with(review_result_t *res, review_outcome_t o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    res->outcome = o;
    free(res->why);
    if (vasprintf(&res->why, fmt, ap) < 0)
        res->why = NULL;
    va_end(ap);
}

/* Changed on the host since the review started (its ctime says so). */
static bool conflicts(const apply_t *a, const review_change_t *c)
{
    struct stat st;
    const char *name;
    _cleanup_close_ int pfd = review_open_parent(a->root_fd, c->path, &name);
    if (c->kind == REVIEW_ADDED)   /* the host had none when the list was made: one there now is new */
        return pfd >= 0 && fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (pfd < 0 || fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return true;    /* gone, or moved behind a link: not what the change assumed */
    int64_t ctime = (int64_t)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
    return ctime >= a->ctx->started_ns || review_type_of(st.st_mode) != c->host_type;
}

/* The upper layer's file rel, read through no symlink. */
static int open_upper(const apply_t *a, const char *rel)
{
    return review_open_beneath(a->upper_fd, rel, O_RDONLY | O_NOFOLLOW);
}

/* The new entry at pfd/a->tmp: the upper file's bytes, or the link.
 * *made: the temporary name is ours now (an old one is never removed). */
static int make_tmp(apply_t *a, const review_change_t *c, const review_verdict_t *v, int pfd, bool *made)
{
    if (c->type == REVIEW_SYMLINK)
        return symlinkat(c->target, pfd, a->tmp) < 0 ? -errno : (*made = true, 0);
    _cleanup_close_ int in = open_upper(a, c->path);
    if (in < 0)
        return in;
    _cleanup_close_ int out = openat(pfd, a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0)
        return -errno;
    *made = true;
    int r = review_copy_bytes(in, out);
    return r < 0 ? r : fchmod(out, v->mode) < 0 ? -errno : 0;
}

/* Writes one change at pfd/name; the journal has its prior state. */
static int write_change(apply_t *a, const review_change_t *c, const review_verdict_t *v, int pfd, const char *name)
{
    struct stat st;
    bool there = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    bool is_dir = there && S_ISDIR(st.st_mode);
    if (c->kind == REVIEW_DELETED)
        return !there || unlinkat(pfd, name, is_dir ? AT_REMOVEDIR : 0) == 0 ? 0 : -errno;
    if (c->type == REVIEW_DIR) {
        if (there && !is_dir && unlinkat(pfd, name, 0) < 0)
            return -errno;
        if (!is_dir && mkdirat(pfd, name, 0700) < 0)
            return -errno;
        /* through the directory itself: a name swapped for a link meanwhile is not followed */
        _cleanup_close_ int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        return dfd < 0 || fchmod(dfd, v->mode) < 0 ? -errno : 0;
    }
    bool made = false;
    int r = make_tmp(a, c, v, pfd, &made);
    if (r == 0 && is_dir && unlinkat(pfd, name, AT_REMOVEDIR) < 0)
        r = -errno;     /* a directory replaced: what was in it went first */
    if (r == 0 && renameat(pfd, a->tmp, pfd, name) < 0)
        r = -errno;
    if (r < 0 && made)
        unlinkat(pfd, a->tmp, 0);
    return r;
}

/* One change: its prior state journaled, written, its new state journaled. */
static int apply_one(apply_t *a, const review_change_t *c, const review_verdict_t *v, review_result_t *res,
                     as_error_t **err)
{
    const char *name;
    _cleanup_close_ int pfd = review_open_parent(a->root_fd, c->path, &name);
    if (pfd < 0) {
        fail_with(res, REVIEW_FAILED, "its directory cannot be opened without following a link: %s",
                  strerror(-pfd));
        return 0;
    }
    as_error_t *e = NULL;
    int r = review_journal_prior(&a->journal, pfd, name, c->path, &e);
    if (r < 0 && e->code == EPERM) {          /* a special file on the host: left alone */
        fail_with(res, REVIEW_FAILED, "%s", e->msg);
        as_error_free(&e);
        return 0;
    }
    if (r < 0) {
        *err = e;
        return r;
    }
    if ((r = write_change(a, c, v, pfd, name)) < 0) {
        fail_with(res, REVIEW_FAILED, "cannot be written: %s", strerror(-r));
        return 0;
    }
    res->outcome = REVIEW_APPLIED;
    return review_journal_after(&a->journal, pfd, name, c->path, err);
}

static bool wanted(const review_changes_t *c, const review_verdicts_t *v, const bool *chosen, size_t i)
{
    return i < c->n && !v->v[i].refused && chosen[i];
}

/* Deletions deepest first, then the rest parents first. */
static int apply_all(apply_t *a, const review_changes_t *c, const review_verdicts_t *v, const bool *chosen,
                     review_result_t *res, as_error_t **err)
{
    int r = 0;
    for (size_t i = c->n; r == 0 && i-- > 0;)
        if (wanted(c, v, chosen, i) && res[i].outcome == REVIEW_SKIPPED && c->v[i].kind == REVIEW_DELETED)
            r = apply_one(a, &c->v[i], &v->v[i], &res[i], err);
    for (size_t i = 0; r == 0 && i < c->n; i++)
        if (wanted(c, v, chosen, i) && res[i].outcome == REVIEW_SKIPPED && c->v[i].kind != REVIEW_DELETED)
            r = apply_one(a, &c->v[i], &v->v[i], &res[i], err);
    return r < 0 ? r : 0;
}

/* Where the link at rel now leads, on the tree as apply left it: NULL in
 * *ret when inside the tree. */
static int leads_out(const apply_t *a, const char *rel, char **ret)
{
    _cleanup_free_ char *abs = NULL, *end_path = NULL, *norm = NULL;
    *ret = NULL;
    if (asprintf(&abs, "%s/%s", a->ctx->root, rel) < 0)
        return -ENOMEM;
    as_error_t *e = NULL;
    link_end_t end;
    if (link_resolve(abs, NULL, &end_path, &end, &e) < 0 || path_normalize(end_path, &norm, &e) < 0) {
        as_error_free(&e);
        return (*ret = strdup("a place that cannot be resolved")) ? 0 : -ENOMEM;
    }
    struct stat st;
    bool system = end == LINK_FOUND && stat(norm, &st) == 0 && st.st_uid == 0 && access(norm, W_OK) < 0;
    if (strcmp(norm, a->ctx->root) == 0 || path_is_inside(norm, a->ctx->root) || system)
        return 0;
    *ret = steal_pointer(&norm);
    return 0;
}

/* Each link written, judged again now that every change is in place; one
 * that leads out is taken back, and the others judged again after it. */
static int recheck_links(apply_t *a, const review_changes_t *c, review_result_t *res, as_error_t **err)
{
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < c->n; i++) {
            if (res[i].outcome != REVIEW_APPLIED || c->v[i].type != REVIEW_SYMLINK)
                continue;
            _cleanup_free_ char *out = NULL, *problems = NULL;
            if (leads_out(a, c->v[i].path, &out) < 0)
                return as_error_make(err, ENOMEM, "out of memory");
            if (out == NULL)
                continue;
            int r = review_journal_undo(a->ctx->journal_dir, a->root_fd, c->v[i].path, &problems, err);
            const char *name;
            _cleanup_close_ int pfd = r < 0 ? -1 : review_open_parent(a->root_fd, c->v[i].path, &name);
            if (r < 0 || (pfd >= 0 && review_journal_after(&a->journal, pfd, name, c->v[i].path, err) < 0))
                return -EIO;
            fail_with(&res[i], REVIEW_FAILED, "a link that leads out of the tree once applied (to %s); taken back",
                      out);
            again = true;
        }
    }
    return 0;
}

int review_apply(const review_apply_ctx_t *ctx, const review_changes_t *c, const review_verdicts_t *v,
                 const bool *chosen, review_result_t *results, as_error_t **err)
{
    apply_t a = { .ctx = ctx, .root_fd = -1, .upper_fd = -1 };
    snprintf(a.tmp, sizeof(a.tmp), ".agent-sandbox-apply.%d", (int)getpid());
    int r = 0;
    if ((a.root_fd = open(ctx->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        (a.upper_fd = open(ctx->upper, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        r = as_error_errno(err, errno, "%s: cannot open it", a.root_fd < 0 ? ctx->root : ctx->upper);
    for (size_t i = 0; r == 0 && i < c->n; i++)
        if (wanted(c, v, chosen, i) && conflicts(&a, &c->v[i]))
            fail_with(&results[i], REVIEW_CONFLICT, "%s", "changed on the host since the review started");
    if (r == 0)
        r = review_journal_create(ctx->journal_dir, &a.journal, err);
    if (r == 0)
        r = apply_all(&a, c, v, chosen, results, err);
    if (r == 0)
        r = recheck_links(&a, c, results, err);
    review_journal_close(&a.journal);
    if (a.root_fd >= 0)
        close(a.root_fd);
    if (a.upper_fd >= 0)
        close(a.upper_fd);
    return r;
}

int review_undo(const char *journal_dir, const char *root, char **ret_problems, as_error_t **err)
{
    _cleanup_close_ int root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0)
        return as_error_errno(err, errno, "%s: cannot open it", root);
    int r = review_journal_undo(journal_dir, root_fd, NULL, ret_problems, err);
    if (r < 0)
        return r;
    _cleanup_free_ char *done = NULL;
    if (asprintf(&done, "%s.undone", journal_dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if (rename(journal_dir, done) < 0)
        return as_error_errno(err, errno, "%s: cannot mark it undone", journal_dir);
    return 0;
}
