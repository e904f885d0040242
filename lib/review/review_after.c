/* The host tree as apply would leave it (review_after.h). */
#include "review_after.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workspace/git_repo.h"

/* One directory above the path asked last. */
typedef struct level {
    char *dir;          /* relative; "" for the top */
    bool host_dir;      /* a directory on the host now, reached through directories only */
    bool host_kept;     /* ... and still the host's after apply: its host entries stay unless changed */
    bool gone;          /* deleted by the review */
    bool repo, venv;
} level_t;

struct review_after {
    const char *root;
    const review_change_t **sorted;   /* the changes by path, for lookups */
    size_t n;
    level_t *levels;                  /* the top first */
    size_t n_levels;
};

static int oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

static int by_path(const void *a, const void *b)
{
    return strcmp((*(const review_change_t *const *)a)->path, (*(const review_change_t *const *)b)->path);
}

static const review_change_t *find(const review_after_t *a, const char *path)
{
    review_change_t key = { .path = (char *)path };
    const review_change_t *k = &key;
    const review_change_t **hit = bsearch(&k, a->sorted, a->n, sizeof(*a->sorted), by_path);
    return hit != NULL ? *hit : NULL;
}

static void levels_truncate(review_after_t *a, size_t n)
{
    while (a->n_levels > n)
        free(a->levels[--a->n_levels].dir);
}

int review_after_new(const char *root, const review_changes_t *c, review_after_t **ret, as_error_t **err)
{
    review_after_t *a = calloc(1, sizeof(*a));
    if (a == NULL || (a->sorted = calloc(c->n ? c->n : 1, sizeof(*a->sorted))) == NULL) {
        free(a);
        return oom(err);
    }
    a->root = root;
    a->n = c->n;
    for (size_t i = 0; i < c->n; i++)
        a->sorted[i] = &c->v[i];
    qsort(a->sorted, a->n, sizeof(*a->sorted), by_path);
    *ret = a;
    return 0;
}

void review_after_free(review_after_t *a)
{
    if (a == NULL)
        return;
    levels_truncate(a, 0);
    free(a->levels);
    free(a->sorted);
    free(a);
}

/* The type of l->dir/name after apply (REVIEW_NONE: not there), and of it
 * on the host now (REVIEW_NONE: not there, or not reached through
 * directories only). */
static int entry_types(const review_after_t *a, const level_t *l, const char *name, review_type_t *ret_after,
                       review_type_t *ret_host)
{
    _cleanup_free_ char *rel = NULL, *abs = NULL;
    if (asprintf(&rel, "%s%s%s", l->dir, *l->dir ? "/" : "", name) < 0 ||
        asprintf(&abs, "%s/%s", a->root, rel) < 0)
        return -ENOMEM;
    struct stat st;
    *ret_host = REVIEW_NONE;
    if (l->host_dir && lstat(abs, &st) == 0)
        *ret_host = review_type_of(st.st_mode);
    else if (l->host_dir && errno != ENOENT && errno != ENOTDIR)
        *ret_host = REVIEW_FILE;   /* cannot be examined: counted as there, the stricter verdict */
    const review_change_t *ch = find(a, rel);
    if (ch != NULL)
        *ret_after = ch->kind == REVIEW_DELETED ? REVIEW_NONE : ch->type;
    else
        *ret_after = l->host_kept ? *ret_host : REVIEW_NONE;
    return 0;
}

/* Is the level a git directory (git_repo.h) or a virtual environment after
 * apply? */
static int judge_level(const review_after_t *a, level_t *l)
{
    static const char *const git_names[] = { "HEAD", "objects", "refs", "commondir" };
    review_type_t after, host;
    unsigned flags = 0;
    for (size_t i = 0; i < ARRAY_SIZE(git_names) && !l->gone; i++) {
        if (entry_types(a, l, git_names[i], &after, &host) < 0)
            return -ENOMEM;
        if (after != REVIEW_NONE)
            flags |= git_dir_entry_flag(git_names[i]);
    }
    l->repo = git_dir_shaped(flags);
    if (entry_types(a, l, "pyvenv.cfg", &after, &host) < 0)
        return -ENOMEM;
    /* python follows a link to its pyvenv.cfg */
    l->venv = after == REVIEW_FILE || after == REVIEW_SYMLINK || host == REVIEW_FILE || host == REVIEW_SYMLINK;
    return 0;
}

/* A level for the first len bytes of dir, below the last one. */
static int push_level(review_after_t *a, const char *dir, size_t len, as_error_t **err)
{
    level_t *v = realloc(a->levels, (a->n_levels + 1) * sizeof(*v));
    if (v == NULL)
        return oom(err);
    a->levels = v;
    level_t *l = &v[a->n_levels], *parent = a->n_levels > 0 ? &v[a->n_levels - 1] : NULL;
    *l = (level_t){ .dir = strndup(dir, len), .host_dir = true, .host_kept = true };
    if (l->dir == NULL)
        return oom(err);
    a->n_levels++;
    if (parent != NULL) {
        const review_change_t *ch = find(a, l->dir);
        l->host_dir = parent->host_dir && (ch == NULL || ch->host_type == REVIEW_DIR);
        l->host_kept = parent->host_kept && l->host_dir &&
                       (ch == NULL || (ch->kind == REVIEW_MODIFIED && ch->type == REVIEW_DIR));
        l->gone = parent->gone || (ch != NULL && ch->kind == REVIEW_DELETED);
    }
    return judge_level(a, l) < 0 ? oom(err) : 0;
}

/* Level k is dir (the first len bytes of rel): kept when it is so already. */
static int ensure_level(review_after_t *a, size_t k, const char *rel, size_t len, as_error_t **err)
{
    if (k < a->n_levels && strlen(a->levels[k].dir) == len && strncmp(a->levels[k].dir, rel, len) == 0)
        return 0;
    levels_truncate(a, k);
    return push_level(a, rel, len, err);
}

int review_after_context(review_after_t *a, const char *rel, const char **ret_repo, const char **ret_venv,
                         as_error_t **err)
{
    /* the directories above rel: the top (""), then each prefix before a '/' */
    size_t k = 0, len = 0;
    for (;;) {
        int r = ensure_level(a, k++, rel, len, err);
        if (r < 0)
            return r;
        const char *slash = strchr(rel + len + (len > 0), '/');
        if (slash == NULL)
            break;
        len = (size_t)(slash - rel);
    }
    levels_truncate(a, k);
    *ret_repo = *ret_venv = NULL;
    for (size_t i = 0; i < a->n_levels; i++) {
        if (a->levels[i].repo)
            *ret_repo = a->levels[i].dir;
        if (a->levels[i].venv)
            *ret_venv = a->levels[i].dir;
    }
    return 0;
}
