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
    char last;               /* its last byte: a cheap first test */
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
    for (size_t i = 0; i < s->n_unexamined; i++)
        free(s->unexamined[i].rel);
    for (size_t i = 0; i < s->n_opened; i++)
        free(s->opened[i].rel);
    free(s->v);
    free(s->unexamined);
    free(s->opened);
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
        p[n].last = p[n].slashed[p[n].len - 1];
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

#define W_INHERITED (W_PROTECTED | W_WATCHED | W_NESTED)

/* Which of the W_* apply to the entry at w->path ("/a/b", len bytes), inside
 * a directory that has the W_INHERITED bits `inherited`: what is inside a
 * protected (watched, nested) path is so too, so only the patterns that end
 * at this entry are compared. */
static unsigned classify(const walker_t *w, size_t len, const struct stat *st, unsigned inherited)
{
    unsigned what = inherited;
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
        if (p->last != path[len - 1] || p->len > len || memcmp(path + len - p->len, p->slashed, p->len) != 0)
            continue;
        if (p->len == len)
            what |= p->protected ? W_PROTECTED : W_WATCHED;
        else if (!p->root_only)
            what |= W_NESTED;
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
    unsigned inherited;  /* its W_INHERITED bits */
    unsigned git_flags;  /* GIT_HAS_* of its entries */
} dir_ctx_t;

static int walk(walker_t *w, int dirfd, dir_ctx_t *dc);

/* w->path (the current entry) is left unexamined. */
static int unexamined(walker_t *w, ws_unexamined_why_t why)
{
    workspace_snapshot_t *s = w->snap;
    ws_unexamined_t *v = realloc(s->unexamined, (s->n_unexamined + 1) * sizeof(*v));
    if (v == NULL)
        return -ENOMEM;
    s->unexamined = v;
    if ((v[s->n_unexamined].rel = strdup(w->path + 1)) == NULL)
        return -ENOMEM;
    v[s->n_unexamined++].why = why;
    s->incomplete = true;
    return 0;
}

/* A directory of ours that we could not read, search or write in (the
 * agent's `chmod 111 .git`): host git needs only to search it, so it is
 * made examinable, and its mode recorded to be put back. */
static int open_up(walker_t *w, int dirfd, const char *name, const struct stat *st)
{
    if ((st->st_mode & 0700) == 0700 || st->st_uid != geteuid())
        return 0;
    workspace_snapshot_t *s = w->snap;
    ws_opened_t *v = realloc(s->opened, (s->n_opened + 1) * sizeof(*v));
    if (v == NULL)
        return -ENOMEM;
    s->opened = v;
    if (fchmodat(dirfd, name, (st->st_mode & 07777) | 0700, 0) < 0)
        return 0;                        /* then it is unexamined */
    if ((v[s->n_opened].rel = strdup(w->path[0] != '\0' ? w->path + 1 : ".")) == NULL)
        return -ENOMEM;
    v[s->n_opened++].mode = st->st_mode & 07777;
    return 0;
}

/* Descends into the directory `name` of dirfd (its path w->path, len
 * bytes): -errno, or 0 and *ret_git the GIT_HAS_* of its entries. */
static int descend(walker_t *w, int dirfd, const char *name, const struct stat *st, bool store,
                   const dir_ctx_t *dc, size_t len, unsigned what, unsigned *ret_git)
{
    *ret_git = 0;
    /* Loose objects of a store that was there at the start: read-only
     * files, possibly many; the only place the scan does not look. */
    if (dc->in_old_store && hex_pair(name))
        return 0;
    if (dc->level >= WALK_MAX_DEPTH)
        return unexamined(w, UNEX_DEPTH);
    if (len > WALK_PATH_ROOM)
        return unexamined(w, UNEX_LENGTH);
    int r = open_up(w, dirfd, name, st);
    if (r < 0)
        return r;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0
               : unexamined(w, faccessat(dirfd, name, X_OK, AT_EACCESS) < 0 ? UNEX_CLOSED_TO_ALL : UNEX_CLOSED);
    dir_ctx_t sub = { len, dc->level + 1, store && old_store(w, st), what & W_INHERITED, 0 };
    r = walk(w, fd, &sub);
    *ret_git = sub.git_flags;
    return r;
}

/* One entry of a directory: descend, then record it if it is of interest. */
static int visit(walker_t *w, int dirfd, const char *name, dir_ctx_t *dc)
{
    size_t nl = strlen(name), len = dc->len + 1 + nl;
    w->path[dc->len] = '/';
    memcpy(w->path + dc->len + 1, name, nl + 1);   /* fits: descend() kept WALK_PATH_ROOM */
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        /* gone meanwhile, or in a directory we may list but not search */
        return errno == ENOENT ? 0 : unexamined(w, UNEX_CLOSED);
    dc->git_flags |= git_dir_entry_flag(name);
    unsigned what = classify(w, len, &st, dc->inherited);
    if (S_ISDIR(st.st_mode)) {
        bool store = object_store(dirfd, name);
        unsigned git = 0;
        int r = descend(w, dirfd, name, &st, store, dc, len, what, &git);
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
        return errno == ENOMEM ? -ENOMEM : unexamined(w, UNEX_CLOSED);
    }
    int r = 0;
    struct dirent *e;
    errno = 0;
    while (r == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        w->snap->visited++;
        r = visit(w, dirfd, e->d_name, dc);
        errno = 0;
    }
    int read_error = r == 0 ? errno : 0;
    w->path[dc->len] = '\0';
    closedir(d);
    /* a listing cut short hides the rest of the directory */
    if (read_error != 0)
        r = read_error == ENOMEM ? -ENOMEM : unexamined(w, UNEX_CLOSED);
    return r;
}

static int item_cmp(const void *a, const void *b)
{
    return strcmp(((const ws_item_t *)a)->rel, ((const ws_item_t *)b)->rel);
}

/* The launch directory itself: opened up like any other (the agent can
 * chmod the mount point), then walked, then recorded when git could take it
 * for a git directory. */
static int walk_top(walker_t *w, const workspace_t *ws)
{
    struct stat st;
    if (lstat(ws->launch_dir, &st) < 0)
        return -errno;
    w->path[0] = '\0';
    int r = open_up(w, AT_FDCWD, ws->launch_dir, &st);
    if (r < 0)
        return r;
    _cleanup_close_ int fd = open(ws->launch_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup < 0)
        return -errno;
    dir_ctx_t top = { 0 };
    if ((r = walk(w, dup, &top)) == 0 && git_dir_shaped(top.git_flags))
        r = record(w, fd, ".", &st, W_REPO);
    return r;
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
    r = walk_top(&w, ws);
    patterns_free(w.pats, w.n_pats);
    if (before == NULL || r < 0)
        ws_snapshot_restore_modes(ws, w.snap);
    if (r < 0) {
        ws_snapshot_free(w.snap);
        return r == -ENOMEM ? ws_oom(err) : as_error_errno(err, -r, "cannot read %s", ws->launch_dir);
    }
    if (w.snap->n > 0)
        qsort(w.snap->v, w.snap->n, sizeof(ws_item_t), item_cmp);
    *ret = w.snap;
    return 0;
}

void ws_snapshot_restore_modes(const workspace_t *ws, workspace_snapshot_t *s)
{
    for (size_t i = s->n_opened; i-- > 0;) {
        _cleanup_free_ char *abs = NULL;
        struct stat st;
        if (strcmp(s->opened[i].rel, ".") == 0 ? (abs = strdup(ws->launch_dir)) == NULL
                                               : asprintf(&abs, "%s/%s", ws->launch_dir, s->opened[i].rel) < 0)
            continue;
        if (lstat(abs, &st) == 0 && S_ISDIR(st.st_mode))
            (void)chmod(abs, s->opened[i].mode);
        free(s->opened[i].rel);
    }
    free(s->opened);
    s->opened = NULL;
    s->n_opened = 0;
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
