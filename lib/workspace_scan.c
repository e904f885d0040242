/* The record of the tree before and after the session. */
#include "workspace_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
/* Watched for the end-of-session warning but not frozen: a placeholder there
 * would break git (an empty commondir is an error). */
static const char *const WATCHED[] = { ".git/commondir" };

/* ---- the snapshot ------------------------------------------------------ */

typedef struct pattern {
    char *slashed;           /* "/" + relative path */
    size_t len;
    bool protected;          /* else watched */
    bool root_only;          /* a symlink's target: not looked for deeper */
} pattern_t;

typedef struct walker {
    pattern_t *pats;
    size_t n_pats;
    workspace_snapshot_t *snap;
    char path[PATH_MAX];     /* "/" + relative path of the current entry */
} walker_t;

void ws_snapshot_free(workspace_snapshot_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].rel);
        free(s->v[i].link);
    }
    free(s->v);
    free(s);
}

static void patterns_free(pattern_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i].slashed);
    free(p);
}

static int patterns_build(const workspace_t *ws, pattern_t **ret, size_t *ret_n, as_error_t **err)
{
    size_t cap = ws->rules->n + ARRAY_SIZE(WATCHED) + ws->n_mounts, n = 0;
    pattern_t *p = calloc(cap ? cap : 1, sizeof(*p));
    if (p == NULL)
        return ws_oom(err);
    for (size_t i = 0; i < cap; i++) {
        const char *rel;
        bool prot = true, root_only = false;
        if (i < ws->rules->n) {
            rel = ws->rules->v[i].path;
        } else if (i < ws->rules->n + ARRAY_SIZE(WATCHED)) {
            rel = WATCHED[i - ws->rules->n];
            prot = false;
        } else {
            const workspace_mount_t *m = &ws->mounts[i - ws->rules->n - ARRAY_SIZE(WATCHED)];
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
        p[n].protected = prot;
        p[n].root_only = root_only;
        n++;
    }
    *ret = p;
    *ret_n = n;
    return 0;
}

/* Which of the W_* apply to the entry at w->path ("/a/b"). */
static unsigned classify(const walker_t *w, const struct stat *st)
{
    unsigned what = 0;
    if (S_ISREG(st->st_mode) && (st->st_mode & 0111) != 0)
        what |= W_EXEC;
    const char *path = w->path;
    for (size_t i = 0; i < w->n_pats; i++) {
        const pattern_t *p = &w->pats[i];
        for (const char *at = path; (at = strstr(at, p->slashed)) != NULL; at++) {
            if (at[p->len] != '\0' && at[p->len] != '/')
                continue;
            if (at == path)
                what |= p->protected ? W_PROTECTED : W_WATCHED;
            else if (!p->root_only)
                what |= W_NESTED;
            break;
        }
    }
    return what;
}

static int record(walker_t *w, int dirfd, const char *name, const struct stat *st, unsigned what)
{
    workspace_snapshot_t *s = w->snap;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        ws_item_t *v = realloc(s->v, cap * sizeof(*v));
        if (v == NULL)
            return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    ws_item_t it = {
        .what = what, .mode = st->st_mode, .size = st->st_size, .dev = st->st_dev,
        .ino = st->st_ino, .ctim = st->st_ctim,
    };
    if ((it.rel = strdup(w->path + 1)) == NULL)
        return -ENOMEM;
    if (S_ISLNK(st->st_mode)) {
        char buf[PATH_MAX];
        ssize_t l = readlinkat(dirfd, name, buf, sizeof(buf) - 1);
        if (l >= 0 && (it.link = strndup(buf, (size_t)l)) == NULL) {
            free(it.rel);
            return -ENOMEM;
        }
    }
    s->v[s->n++] = it;
    return 0;
}

/* Object stores hold only read-only files and can be huge. */
static bool skip_dir(const char *path)
{
    const char *base = strrchr(path, '/');
    return strcmp(base, "/objects") == 0 && strstr(path, "/.git/") != NULL;
}

static int walk(walker_t *w, int dirfd, size_t len, int level)
{
    DIR *d = fdopendir(dirfd);
    if (d == NULL) {
        close(dirfd);
        w->snap->incomplete = true;
        return 0;
    }
    int r = 0;
    struct dirent *e;
    while (r == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (++w->snap->visited > WALK_MAX_ENTRIES) {
            w->snap->incomplete = true;
            break;
        }
        size_t nl = strlen(e->d_name);
        if (len + 1 + nl >= sizeof(w->path)) {
            w->snap->incomplete = true;
            continue;
        }
        w->path[len] = '/';
        memcpy(w->path + len + 1, e->d_name, nl + 1);
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;                     /* gone meanwhile */
        unsigned what = classify(w, &st);
        if (what != 0 && (r = record(w, dirfd, e->d_name, &st, what)) < 0)
            break;
        if (!S_ISDIR(st.st_mode) || skip_dir(w->path))
            continue;
        if (level >= WALK_MAX_DEPTH) {
            w->snap->incomplete = true;
            continue;
        }
        int fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            w->snap->incomplete = true;
            continue;
        }
        r = walk(w, fd, len + 1 + nl, level + 1);
    }
    w->path[len] = '\0';
    closedir(d);
    return r;
}

static int item_cmp(const void *a, const void *b)
{
    return strcmp(((const ws_item_t *)a)->rel, ((const ws_item_t *)b)->rel);
}

int ws_snapshot_take(const workspace_t *ws, workspace_snapshot_t **ret, as_error_t **err)
{
    walker_t w = { 0 };
    int r = patterns_build(ws, &w.pats, &w.n_pats, err);
    if (r < 0)
        return r;
    w.snap = calloc(1, sizeof(*w.snap));
    if (w.snap == NULL) {
        patterns_free(w.pats, w.n_pats);
        return ws_oom(err);
    }
    int fd = open(ws->launch_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        r = as_error_errno(err, errno, "cannot read %s", ws->launch_dir);
    } else if ((r = walk(&w, fd, 0, 0)) < 0) {
        r = ws_oom(err);
    }
    patterns_free(w.pats, w.n_pats);
    if (r < 0) {
        ws_snapshot_free(w.snap);
        return r;
    }
    if (w.snap->n > 0)
        qsort(w.snap->v, w.snap->n, sizeof(ws_item_t), item_cmp);
    *ret = w.snap;
    return 0;
}
