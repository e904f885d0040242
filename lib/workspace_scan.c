/* The record of the tree before and after the session. */
#include "workspace_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git_repo.h"
#include "util.h"

/* Watched at the top of the tree, not frozen (that would break ordinary
 * work): modules that `python3 -m pip` (or -m venv, -m ensurepip...) run
 * from the launch directory imports instead of the tool's own, since -m puts
 * the current directory first on sys.path. Reported when created or changed. */
static const char *const WATCHED[] = {
    "pip", "pip.py", "setuptools", "setuptools.py", "pkg_resources", "pkg_resources.py", "_distutils_hack",
    "distutils", "distutils.py", "wheel", "wheel.py", "venv", "venv.py", "ensurepip", "ensurepip.py",
    "virtualenv", "virtualenv.py", "runpy.py", "sitecustomize.py", "usercustomize.py",
};

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
    const workspace_snapshot_t *before;   /* at the end: what was there at the start */
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
            root_only = true;
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

/* Names host git reads in a git directory, and what a hooks directory holds:
 * recorded so that the end of the session can tell new from old. */
static bool git_relevant(const char *path)
{
    const char *base = strrchr(path, '/') + 1;
    if (strcmp(base, ".git") == 0 || strcmp(base, "config") == 0 || strcmp(base, "config.worktree") == 0 ||
        strcmp(base, "commondir") == 0 || strcmp(base, "objects") == 0)
        return true;
    size_t plen = (size_t)(base - 1 - path);
    return plen >= 6 && strncmp(path + plen - 6, "/hooks", 6) == 0;
}

/* Which of the W_* apply to the entry at w->path ("/a/b"). */
static unsigned classify(const walker_t *w, const struct stat *st)
{
    unsigned what = 0;
    if (S_ISREG(st->st_mode) && (st->st_mode & 0111) != 0)
        what |= W_EXEC;
    if (S_ISLNK(st->st_mode))
        what |= W_LINK;
    const char *path = w->path;
    if (git_relevant(path))
        what |= W_GIT;
    if (ws_python_relevant(path)) what |= W_PYTHON;
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
    if ((it.rel = strdup(w->path[0] != '\0' ? w->path + 1 : ".")) == NULL)
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

/* An "objects" directory beside a HEAD and refs (or a commondir): an object
 * store, whose two-hex-digit directories hold the loose objects. */
static bool object_store(int dirfd, const char *name)
{
    struct stat st;
    return strcmp(name, "objects") == 0 && fstatat(dirfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           (fstatat(dirfd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
            fstatat(dirfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0);
}

static bool hex_pair(const char *name)
{
    return strlen(name) == 2 && strspn(name, "0123456789abcdef") == 2;
}

/* Was the store at w->path there before the session, the same directory? */
static bool old_store(const walker_t *w, const struct stat *st)
{
    if (w->before == NULL)
        return true;
    const ws_item_t *b = ws_snapshot_find(w->before, w->path + 1);
    return b != NULL && (b->what & W_OBJSTORE) && b->dev == st->st_dev && b->ino == st->st_ino;
}

typedef struct dir_ctx {
    size_t len;          /* of w->path for this directory */
    int level;
    bool in_old_store;   /* an object store that existed at the start */
    unsigned git_flags;  /* GIT_HAS_* of its entries */
} dir_ctx_t;

static int walk(walker_t *w, int dirfd, dir_ctx_t *dc);

/* Descends into the directory `name` of dirfd: -errno, or 0 and *ret_git
 * the GIT_HAS_* of its entries. */
static int descend(walker_t *w, int dirfd, const char *name, const struct stat *st, bool store,
                   const dir_ctx_t *dc, size_t len, unsigned *ret_git)
{
    *ret_git = 0;
    /* Loose objects of a store that was there at the start: read-only
     * files, possibly many; the only place the scan does not look. */
    if (dc->in_old_store && hex_pair(name))
        return 0;
    if (dc->level >= WALK_MAX_DEPTH) {
        w->snap->incomplete = true;
        return 0;
    }
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        w->snap->incomplete = true;
        return 0;
    }
    dir_ctx_t sub = { len, dc->level + 1, store && old_store(w, st), 0 };
    int r = walk(w, fd, &sub);
    *ret_git = sub.git_flags;
    return r;
}

/* One entry of a directory: descend, then record it if it is of interest. */
static int visit(walker_t *w, int dirfd, const char *name, dir_ctx_t *dc)
{
    size_t nl = strlen(name), len = dc->len + 1 + nl;
    if (len >= sizeof(w->path)) {
        w->snap->incomplete = true;
        return 0;
    }
    w->path[dc->len] = '/';
    memcpy(w->path + dc->len + 1, name, nl + 1);
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0;                         /* gone meanwhile */
    dc->git_flags |= git_dir_entry_flag(name);
    unsigned what = classify(w, &st);
    if (S_ISDIR(st.st_mode)) {
        bool store = object_store(dirfd, name);
        unsigned git = 0;
        int r = descend(w, dirfd, name, &st, store, dc, len, &git);
        if (r < 0)
            return r;
        w->path[len] = '\0';
        what |= (store ? W_OBJSTORE : 0) | (git_dir_shaped(git) ? W_REPO : 0);
    }
    return what != 0 ? record(w, dirfd, name, &st, what) : 0;
}

static int walk(walker_t *w, int dirfd, dir_ctx_t *dc)
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
        r = visit(w, dirfd, e->d_name, dc);
    }
    w->path[dc->len] = '\0';
    closedir(d);
    return r;
}

static int item_cmp(const void *a, const void *b)
{
    return strcmp(((const ws_item_t *)a)->rel, ((const ws_item_t *)b)->rel);
}

int ws_snapshot_take(const workspace_t *ws, const workspace_snapshot_t *before, workspace_snapshot_t **ret,
                     as_error_t **err)
{
    walker_t w = { .before = before };
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
    } else {
        /* The launch directory itself, when git could take it for one. */
        dir_ctx_t top = { 0 };
        struct stat st;
        if ((r = fstat(fd, &st) < 0 ? -errno : 0) == 0 && (r = walk(&w, fcntl(fd, F_DUPFD_CLOEXEC, 0), &top)) == 0 &&
            git_dir_shaped(top.git_flags))
            r = record(&w, fd, ".", &st, W_REPO);
        close(fd);
        if (r < 0)
            r = r == -ENOMEM ? ws_oom(err) : as_error_errno(err, -r, "cannot read %s", ws->launch_dir);
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

const ws_item_t *ws_snapshot_find(const workspace_snapshot_t *s, const char *rel)
{
    if (s == NULL || s->n == 0)
        return NULL;
    ws_item_t key = { .rel = (char *)rel };
    return bsearch(&key, s->v, s->n, sizeof(ws_item_t), item_cmp);
}

bool ws_item_same(const ws_item_t *a, const ws_item_t *b)
{
    return a->mode == b->mode && a->size == b->size && a->dev == b->dev && a->ino == b->ino &&
           a->ctim.tv_sec == b->ctim.tv_sec && a->ctim.tv_nsec == b->ctim.tv_nsec &&
           (a->link == NULL) == (b->link == NULL) && (a->link == NULL || strcmp(a->link, b->link) == 0);
}
