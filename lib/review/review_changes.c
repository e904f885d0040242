/* The upper layer walked against the host tree (review_changes.h). */
#include "review_changes.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "base/strv.h"

/* The agent's view is the kernel's overlayfs that rootless podman mounts
 * in its user namespace, with `userxattr`: its own markers are in the
 * "user.overlay." namespace, which it keeps for itself (a process in the
 * view can neither read nor set them: they are escaped or refused). Every
 * other flavour's marker is plain data the agent wrote: a file named
 * `.wh.NAME`, `.wh..wh..opq`, an xattr `user.fuseoverlayfs.opaque`. */
static const char *const OPAQUE_XATTRS[] = { "user.overlay.opaque" };
/* With userxattr the kernel makes neither; one there is not the agent's
 * (it cannot set them) and is listed as unexamined. */
static const char *const REDIRECT_XATTRS[] = { "user.overlay.redirect" };
static const char *const METACOPY_XATTRS[] = { "user.overlay.metacopy" };

typedef struct walk {
    review_changes_t *out;
    size_t cap;
    const char *upper, *root;   /* for messages */
} walk_t;

bool review_stat_is_whiteout(const struct stat *st)
{
    return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
}

review_type_t review_type_of(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return REVIEW_FILE;
    case S_IFDIR: return REVIEW_DIR;
    case S_IFLNK: return REVIEW_SYMLINK;
    case S_IFIFO: return REVIEW_FIFO;
    case S_IFSOCK: return REVIEW_SOCKET;
    case S_IFCHR: return REVIEW_CHAR;
    case S_IFBLK: return REVIEW_BLOCK;
    default: return REVIEW_NONE;
    }
}

const char *review_type_name(review_type_t t)
{
    static const char *const names[] = {
        [REVIEW_NONE] = "nothing", [REVIEW_FILE] = "file", [REVIEW_DIR] = "directory",
        [REVIEW_SYMLINK] = "symlink", [REVIEW_FIFO] = "FIFO", [REVIEW_SOCKET] = "socket",
        [REVIEW_CHAR] = "character device", [REVIEW_BLOCK] = "block device",
    };
    return (size_t)t < ARRAY_SIZE(names) ? names[t] : "unknown";
}

bool review_change_under(const review_change_t *c, const char *path)
{
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        n--;
    if (n == 0)
        return true;
    return strncmp(c->path, path, n) == 0 && (c->path[n] == '\0' || c->path[n] == '/');
}

void review_changes_free(review_changes_t *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].path);
        free(c->v[i].target);
        free(c->v[i].host_target);
    }
    free(c->v);
    free(c);
}

static int oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

static bool has_xattr_y(int fd, const char *const *names, size_t n, bool any_value)
{
    for (size_t i = 0; i < n; i++) {
        char v[8];
        ssize_t len = fgetxattr(fd, names[i], v, sizeof(v));
        if (len >= 0 && (any_value || (len == 1 && v[0] == 'y')))
            return true;
        if (len < 0 && errno == ERANGE)
            return true;   /* a value longer than ours: present */
    }
    return false;
}

/* The entry's link target (malloc'd in *ret) when it is a symlink. */
static int read_target(int dirfd, const char *name, const struct stat *st, char **ret)
{
    *ret = NULL;
    if (!S_ISLNK(st->st_mode))
        return 0;
    char buf[PATH_MAX];
    ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf) - 1);
    if (n < 0)
        return -errno;
    buf[n] = '\0';
    return (*ret = strdup(buf)) == NULL ? -ENOMEM : 0;
}

static int push(walk_t *w, review_change_t *c, as_error_t **err)
{
    if (w->out->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        review_change_t *v = realloc(w->out->v, cap * sizeof(*v));
        if (v == NULL)
            return oom(err);
        w->out->v = v;
        w->cap = cap;
    }
    w->out->v[w->out->n++] = *c;
    return 0;
}

/* A change at rel/name from the two sides' stat (either may be NULL). */
static int add_change(walk_t *w, review_kind_t kind, const char *rel, const char *name, int upper_fd,
                      const struct stat *up, int host_fd, const struct stat *host, as_error_t **err)
{
    review_change_t c = { .kind = kind };
    if (asprintf(&c.path, "%s%s%s", rel, *rel ? "/" : "", name) < 0)
        return oom(err);
    int r = 0;
    if (up != NULL) {
        c.type = review_type_of(up->st_mode);
        c.mode = up->st_mode & 07777;
        c.size = S_ISREG(up->st_mode) ? up->st_size : 0;
        r = read_target(upper_fd, name, up, &c.target);
    }
    if (r == 0 && host != NULL) {
        c.host_type = review_type_of(host->st_mode);
        c.host_mode = host->st_mode & 07777;
        c.host_size = S_ISREG(host->st_mode) ? host->st_size : 0;
        r = read_target(host_fd, name, host, &c.host_target);
    }
    if (r == 0 && kind == REVIEW_MODIFIED)
        c.mode_changed = c.mode != c.host_mode && c.type != REVIEW_SYMLINK;
    if (r < 0 || push(w, &c, err) < 0) {
        int e = as_error_errno(err, -r, "%s/%s: reading the link", up ? w->upper : w->root, c.path);
        free(c.path);
        free(c.target);
        free(c.host_target);
        return r < 0 ? e : -ENOMEM;
    }
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the directory fd (not consumed), in byte order. */
static int list_names(int fd, const char *base, const char *rel, char ***ret, as_error_t **err)
{
    int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    if (d == NULL) {
        int e = errno;
        if (dfd >= 0)
            close(dfd);
        return as_error_errno(err, e, "%s/%s: cannot read the directory", base, rel);
    }
    char **v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char **nv = n + 1 < cap ? v : realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
        if (nv == NULL || (nv[n] = strdup(de->d_name)) == NULL) {
            closedir(d);
            if (nv != NULL)
                nv[n] = NULL;
            strv_free(nv ? nv : v);
            return oom(err);
        }
        v = nv;
        v[++n] = NULL;
        errno = 0;
    }
    int e = errno;
    closedir(d);
    if (e != 0) {
        strv_free(v);
        return as_error_errno(err, e, "%s/%s: cannot read the directory", base, rel);
    }
    if (v == NULL && (v = calloc(1, sizeof(char *))) == NULL)
        return oom(err);
    qsort(v, n, sizeof(*v), name_cmp);
    *ret = v;
    return 0;
}

/* rel/name on the host: 1 and *st when there, 0 when not (or no host
 * directory here), else an error. */
static int host_stat(walk_t *w, int host_fd, const char *rel, const char *name, struct stat *st, as_error_t **err)
{
    if (host_fd < 0)
        return 0;
    if (fstatat(host_fd, name, st, AT_SYMLINK_NOFOLLOW) == 0)
        return 1;
    if (errno == ENOENT)
        return 0;
    return as_error_errno(err, errno, "%s/%s%s%s: cannot examine it", w->root, rel, *rel ? "/" : "", name);
}

/* The host directory rel/name opened without following a symlink. */
static int open_dir(walk_t *w, int fd, const char *base, const char *rel, const char *name, as_error_t **err)
{
    int r = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (r < 0)
        return as_error_errno(err, errno, "%s/%s%s%s: cannot open the directory", base, rel, *rel ? "/" : "", name);
    (void)w;
    return r;
}

static int child_rel(const char *rel, const char *name, char **ret, as_error_t **err)
{
    return asprintf(ret, "%s%s%s", rel, *rel ? "/" : "", name) < 0 ? oom(err) : 0;
}

static int host_deleted(walk_t *w, int host_fd, const char *rel, const char *name, as_error_t **err);

/* Everything below the host directory rel/name, deleted. */
static int host_subtree_deleted(walk_t *w, int host_fd, const char *rel, const char *name, as_error_t **err)
{
    _cleanup_close_ int fd = open_dir(w, host_fd, w->root, rel, name, err);
    if (fd < 0)
        return fd;
    _cleanup_free_ char *sub = NULL;
    _cleanup_(strv_freep) char **names = NULL;
    int r = child_rel(rel, name, &sub, err);
    if (r < 0 || (r = list_names(fd, w->root, sub, &names, err)) < 0)
        return r;
    for (char **n = names; *n; n++)
        if ((r = host_deleted(w, fd, sub, *n, err)) < 0)
            return r;
    return 0;
}

/* The host's rel/name deleted (with what is below it), if it is there. */
static int host_deleted(walk_t *w, int host_fd, const char *rel, const char *name, as_error_t **err)
{
    struct stat st;
    int r = host_stat(w, host_fd, rel, name, &st, err);
    if (r <= 0)
        return r;
    if ((r = add_change(w, REVIEW_DELETED, rel, name, -1, NULL, host_fd, &st, err)) < 0)
        return r;
    return S_ISDIR(st.st_mode) ? host_subtree_deleted(w, host_fd, rel, name, err) : 0;
}

static int walk_dir(walk_t *w, int upper_fd, int host_fd, const char *rel, as_error_t **err);

/* Do two regular files (same size) hold the same bytes? 1 yes, 0 no. */
static int same_bytes(walk_t *w, int upper_fd, int host_fd, const char *rel, const char *name, as_error_t **err)
{
    _cleanup_close_ int a = openat(upper_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    _cleanup_close_ int b = openat(host_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (a < 0 || b < 0)
        return as_error_errno(err, errno, "%s/%s%s%s: cannot read it", a < 0 ? w->upper : w->root, rel,
                              *rel ? "/" : "", name);
    static __thread char x[65536], y[65536];
    for (;;) {
        ssize_t n = read(a, x, sizeof(x));
        if (n < 0)
            return as_error_errno(err, errno, "%s/%s%s%s: cannot read it", w->upper, rel, *rel ? "/" : "", name);
        ssize_t got = 0;
        while (got < n) {
            ssize_t m = read(b, y + got, (size_t)(n - got));
            if (m < 0)
                return as_error_errno(err, errno, "%s/%s%s%s: cannot read it", w->root, rel, *rel ? "/" : "",
                                      name);
            if (m == 0)
                return 0;
            got += m;
        }
        if (n == 0)
            return read(b, y, 1) == 0;
        if (memcmp(x, y, (size_t)n) != 0)
            return 0;
    }
}

#define DIFF_CONTENT 1
#define DIFF_MODE    2

/* Same type on both sides, neither a directory: what changed (DIFF_*). */
static int differs(walk_t *w, int upper_fd, const struct stat *up, int host_fd, const struct stat *host,
                   const char *rel, const char *name, as_error_t **err)
{
    int what = (up->st_mode & 07777) != (host->st_mode & 07777) && !S_ISLNK(up->st_mode) ? DIFF_MODE : 0;
    if (S_ISCHR(up->st_mode) || S_ISBLK(up->st_mode))
        return what | (up->st_rdev != host->st_rdev ? DIFF_CONTENT : 0);
    if (S_ISLNK(up->st_mode)) {
        _cleanup_free_ char *a = NULL, *b = NULL;
        if (read_target(upper_fd, name, up, &a) < 0 || read_target(host_fd, name, host, &b) < 0)
            return as_error_errno(err, errno, "%s/%s%s%s: cannot read the link", w->root, rel, *rel ? "/" : "", name);
        return strcmp(a, b) != 0 ? DIFF_CONTENT : 0;
    }
    if (!S_ISREG(up->st_mode))
        return what;
    if (up->st_size != host->st_size)
        return what | DIFF_CONTENT;
    int r = same_bytes(w, upper_fd, host_fd, rel, name, err);
    return r < 0 ? r : what | (r ? 0 : DIFF_CONTENT);
}

/* The upper directory rel/name: added, or over a host directory, or over
 * something else that it replaces. */
static int upper_dir(walk_t *w, int upper_fd, const struct stat *up, int host_fd, int on_host,
                     const struct stat *host, const char *rel, const char *name, as_error_t **err)
{
    bool host_dir = on_host && S_ISDIR(host->st_mode);
    review_kind_t kind = on_host ? REVIEW_MODIFIED : REVIEW_ADDED;
    /* One the agent closed (chmod 111 d): listed, for the filter to refuse
     * with all it holds; the rest of the review stays applicable. */
    if (faccessat(upper_fd, name, R_OK | X_OK, AT_EACCESS) < 0 && errno == EACCES) {
        size_t at = w->out->n;
        int r = add_change(w, kind, rel, name, upper_fd, up, host_fd, on_host ? host : NULL, err);
        if (r == 0 && w->out->n > at)
            w->out->v[at].unexamined = "a directory that cannot be read or searched (what it holds is unknown)";
        return r;
    }
    _cleanup_close_ int ufd = open_dir(w, upper_fd, w->upper, rel, name, err);
    if (ufd < 0)
        return ufd;
    bool changed = !host_dir || (up->st_mode & 07777) != (host->st_mode & 07777);
    size_t at = w->out->n;
    int r = 0;
    if (has_xattr_y(ufd, REDIRECT_XATTRS, ARRAY_SIZE(REDIRECT_XATTRS), true))
        changed = true;
    if (changed && (r = add_change(w, kind, rel, name, upper_fd, up, host_fd, on_host ? host : NULL, err)) < 0)
        return r;
    if (changed && w->out->n > at) {
        review_change_t *c = &w->out->v[at];
        c->content_changed = on_host && !host_dir;
        if (has_xattr_y(ufd, REDIRECT_XATTRS, ARRAY_SIZE(REDIRECT_XATTRS), true))
            c->unexamined = "an overlay redirect (a renamed directory whose content lies elsewhere)";
    }
    /* a file or link replaced by a directory: nothing below it on the host */
    _cleanup_close_ int hfd = -1;
    if (host_dir && (hfd = open_dir(w, host_fd, w->root, rel, name, err)) < 0)
        return hfd;
    _cleanup_free_ char *sub = NULL;
    if ((r = child_rel(rel, name, &sub, err)) < 0)
        return r;
    return walk_dir(w, ufd, hfd, sub, err);
}

/* One entry of the upper layer that is no whiteout. */
static int upper_entry(walk_t *w, int upper_fd, int host_fd, const char *rel, const char *name, as_error_t **err)
{
    struct stat up, host;
    if (fstatat(upper_fd, name, &up, AT_SYMLINK_NOFOLLOW) < 0)
        return as_error_errno(err, errno, "%s/%s%s%s: cannot examine it", w->upper, rel, *rel ? "/" : "", name);
    if (review_stat_is_whiteout(&up))
        return host_deleted(w, host_fd, rel, name, err);
    int on_host = host_stat(w, host_fd, rel, name, &host, err);
    if (on_host < 0)
        return on_host;
    if (S_ISDIR(up.st_mode))
        return upper_dir(w, upper_fd, &up, host_fd, on_host, &host, rel, name, err);
    if (!on_host)
        return add_change(w, REVIEW_ADDED, rel, name, upper_fd, &up, -1, NULL, err);
    bool same_type = (up.st_mode & S_IFMT) == (host.st_mode & S_IFMT);
    int what = same_type ? differs(w, upper_fd, &up, host_fd, &host, rel, name, err) : DIFF_CONTENT | DIFF_MODE;
    if (what <= 0)
        return what;
    size_t at = w->out->n;
    int r = add_change(w, REVIEW_MODIFIED, rel, name, upper_fd, &up, host_fd, &host, err);
    if (r < 0)
        return r;
    review_change_t *c = &w->out->v[at];
    c->content_changed = (what & DIFF_CONTENT) != 0;
    c->mode_changed = (what & DIFF_MODE) != 0 && c->mode != c->host_mode && c->type != REVIEW_SYMLINK;
    if (S_ISREG(up.st_mode)) {
        _cleanup_close_ int fd = openat(upper_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && has_xattr_y(fd, METACOPY_XATTRS, ARRAY_SIZE(METACOPY_XATTRS), true))
            c->unexamined = "an overlay metacopy (its data lies in the lower layer)";
    }
    if (S_ISDIR(host.st_mode))
        return host_subtree_deleted(w, host_fd, rel, name, err);
    return 0;
}

/* In an opaque directory, each host entry the upper layer does not have is
 * deleted. `upper` holds the upper names, sorted. */
static int opaque_sweep(walk_t *w, int host_fd, const char *rel, char **upper, as_error_t **err)
{
    _cleanup_(strv_freep) char **names = NULL;
    int r = list_names(host_fd, w->root, rel, &names, err);
    if (r < 0)
        return r;
    for (char **n = names; *n; n++) {
        char *key = *n;
        if (bsearch(&key, upper, strv_length(upper), sizeof(char *), name_cmp) != NULL)
            continue;
        if ((r = host_deleted(w, host_fd, rel, *n, err)) < 0)
            return r;
    }
    return 0;
}

static int walk_dir(walk_t *w, int upper_fd, int host_fd, const char *rel, as_error_t **err)
{
    _cleanup_(strv_freep) char **names = NULL;
    int r = list_names(upper_fd, w->upper, rel, &names, err);
    if (r < 0)
        return r;
    bool opaque = has_xattr_y(upper_fd, OPAQUE_XATTRS, ARRAY_SIZE(OPAQUE_XATTRS), false);
    for (char **n = names; *n; n++)
        if ((r = upper_entry(w, upper_fd, host_fd, rel, *n, err)) < 0)
            return r;
    return opaque && host_fd >= 0 ? opaque_sweep(w, host_fd, rel, names, err) : 0;
}

int review_changes_list(const char *upper, const char *root, review_changes_t **ret, as_error_t **err)
{
    _cleanup_(review_changes_freep) review_changes_t *out = calloc(1, sizeof(*out));
    if (out == NULL)
        return oom(err);
    walk_t w = { .out = out, .upper = upper, .root = root };
    _cleanup_close_ int ufd = open(upper, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ufd < 0)
        return as_error_errno(err, errno, "%s: cannot open the review's upper directory", upper);
    _cleanup_close_ int hfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (hfd < 0)
        return as_error_errno(err, errno, "%s: cannot open the tree", root);
    int r = walk_dir(&w, ufd, hfd, "", err);
    if (r < 0)
        return r;
    *ret = steal_pointer(&out);
    return 0;
}
