/* The undo journal of one apply (review_journal.h). */
#include "review_journal.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/msg.h"
#include "base/util.h"
#include "review_changes.h"

#define FIELDS 6
#define JOURNAL_MAX (256L * 1024 * 1024)

static int oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

/* openat2's answer walked by hand, where the kernel (or valgrind) has no
 * openat2: each directory opened with O_NOFOLLOW from the one above, ".."
 * refused as RESOLVE_BENEATH would. */
static int open_by_components(int root_fd, const char *rel, int flags)
{
    char buf[PATH_MAX];
    if (strlen(rel) >= sizeof(buf))
        return -ENAMETOOLONG;
    strcpy(buf, rel);
    int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *save = NULL;
    for (char *c = strtok_r(buf, "/", &save); fd >= 0 && c != NULL;) {
        char *next = strtok_r(NULL, "/", &save);
        if (strcmp(c, "..") == 0) {
            close(fd);
            return -EXDEV;
        }
        int sub = openat(fd, c, next ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : flags | O_NOFOLLOW);
        int e = errno;
        close(fd);
        if (sub < 0)
            return e == ELOOP || e == ENOTDIR ? -ELOOP : -e;
        fd = sub;
        c = next;
    }
    return fd < 0 ? -errno : fd;
}

int review_open_beneath(int root_fd, const char *rel, int flags)
{
    struct open_how how = { .flags = (unsigned)flags | O_CLOEXEC,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
    long fd = syscall(SYS_openat2, root_fd, rel, &how, sizeof(how));
    if (fd < 0 && errno == ENOSYS)
        return open_by_components(root_fd, rel, flags | O_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

int review_open_parent(int root_fd, const char *rel, const char **ret_name)
{
    const char *slash = strrchr(rel, '/');
    *ret_name = slash ? slash + 1 : rel;
    char dir[PATH_MAX];
    if (slash == NULL)
        strcpy(dir, ".");
    else if ((size_t)(slash - rel) >= sizeof(dir))
        return -ENAMETOOLONG;
    else
        memcpy(dir, rel, (size_t)(slash - rel)), dir[slash - rel] = '\0';
    return review_open_beneath(root_fd, dir, O_RDONLY | O_DIRECTORY);
}

int review_journal_create(const char *dir, review_journal_t *j, as_error_t **err)
{
    *j = (review_journal_t){ .dir_fd = -1, .file_fd = -1 };
    if (mkdir(dir, 0700) < 0)
        return as_error_errno(err, errno, "%s: cannot make the undo journal", dir);
    if ((j->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || mkdirat(j->dir_fd, "saved", 0700) < 0 ||
        (j->file_fd = openat(j->dir_fd, "journal", O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600)) < 0) {
        int e = as_error_errno(err, errno, "%s: cannot make the undo journal", dir);
        review_journal_close(j);
        return e;
    }
    return 0;
}

void review_journal_close(review_journal_t *j)
{
    if (j->file_fd >= 0)
        close(j->file_fd);
    if (j->dir_fd >= 0)
        close(j->dir_fd);
    j->file_fd = j->dir_fd = -1;
}

int review_copy_bytes(int in, int out)
{
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof(buf))) > 0)
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0)
                return -errno;
            done += w;
        }
    return n < 0 ? -errno : 0;
}

/* Copies the open file `in` to a new file dirfd/name (mode 0600). */
static int copy_to(int in, int dirfd, const char *name)
{
    _cleanup_close_ int out = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    return out < 0 ? -errno : review_copy_bytes(in, out);
}

/* The old file's bytes under saved/: a hard link when it is the only name
 * of its inode on the same file system (the rename leaves it untouched),
 * else a copy. */
static int save_bytes(review_journal_t *j, int parent_fd, const char *name, const struct stat *st, char *ret_name)
{
    snprintf(ret_name, 32, "%u", j->n_saved++);
    char dst[48];
    snprintf(dst, sizeof(dst), "saved/%s", ret_name);
    if (st->st_nlink == 1 && linkat(parent_fd, name, j->dir_fd, dst, 0) == 0)
        return 0;
    _cleanup_close_ int in = openat(parent_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    return in < 0 ? -errno : copy_to(in, j->dir_fd, dst);
}

static int append(review_journal_t *j, char kind, const char *rel, const struct stat *st, bool there,
                  const char *target, const char *extra, as_error_t **err)
{
    _cleanup_free_ char *rec = NULL;
    int n = asprintf(&rec, "%c%c%s%c%d%c%o%c%s%c%s%c", kind, 0, rel, 0, there ? (int)review_type_of(st->st_mode) : 0,
                     0, there ? (unsigned)(st->st_mode & 07777) : 0u, 0, target, 0, extra, 0);
    if (n < 0)
        return oom(err);
    if (write(j->file_fd, rec, (size_t)n) != n)
        return as_error_errno(err, errno, "writing the undo journal");
    return 0;
}

static int record(review_journal_t *j, char kind, int parent_fd, const char *name, const char *rel, as_error_t **err)
{
    struct stat st;
    bool there = fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!there && errno != ENOENT)
        return as_error_errno(err, errno, "%s: cannot examine it", rel);
    char target[PATH_MAX] = "", extra[64] = "";
    if (there && S_ISLNK(st.st_mode)) {
        ssize_t n = readlinkat(parent_fd, name, target, sizeof(target) - 1);
        if (n < 0)
            return as_error_errno(err, errno, "%s: cannot read the link", rel);
        target[n] = '\0';
    }
    int r = 0;
    if (kind == 'W' && there)
        snprintf(extra, sizeof(extra), "%llu:%lld", (unsigned long long)st.st_ino,
                 (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec);
    else if (kind == 'P' && there && S_ISREG(st.st_mode))
        r = save_bytes(j, parent_fd, name, &st, extra);
    if (r < 0)
        return as_error_errno(err, -r, "%s: cannot save it for undo", rel);
    if (there && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
        return as_error_make(err, EPERM, "%s: a %s on the host: not replaced", rel,
                             review_type_name(review_type_of(st.st_mode)));
    return append(j, kind, rel, &st, there, target, extra, err);
}

int review_journal_prior(review_journal_t *j, int parent_fd, const char *name, const char *rel, as_error_t **err)
{
    return record(j, 'P', parent_fd, name, rel, err);
}

int review_journal_after(review_journal_t *j, int parent_fd, const char *name, const char *rel, as_error_t **err)
{
    return record(j, 'W', parent_fd, name, rel, err);
}

typedef struct rec {
    char kind;
    const char *rel;
    review_type_t type;
    mode_t mode;
    const char *target, *extra;
} rec_t;

/* The journal's records, pointing into *ret_text. */
static int read_records(int dir_fd, char **ret_text, rec_t **ret, size_t *ret_n, as_error_t **err)
{
    _cleanup_close_ int fd = openat(dir_fd, "journal", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0)
        return as_error_errno(err, errno, "reading the undo journal");
    if (st.st_size > JOURNAL_MAX)
        return as_error_make(err, EFBIG, "the undo journal is larger than %ld bytes", JOURNAL_MAX);
    _cleanup_free_ char *text = malloc((size_t)st.st_size + 1);
    _cleanup_free_ rec_t *v = calloc((size_t)st.st_size / FIELDS + 1, sizeof(*v));
    if (text == NULL || v == NULL)
        return oom(err);
    ssize_t got = 0;
    for (ssize_t n; got < st.st_size && (n = read(fd, text + got, (size_t)(st.st_size - got))) > 0;)
        got += n;
    if (got != st.st_size)
        return as_error_make(err, EIO, "reading the undo journal: short read");
    size_t n = 0;
    for (char *p = text, *end = text + got; p < end; n++) {
        const char *f[FIELDS];
        for (int i = 0; i < FIELDS; i++) {
            char *z = memchr(p, '\0', (size_t)(end - p));
            if (z == NULL)
                return as_error_make(err, EBADMSG, "the undo journal ends inside a record (an apply cut short "
                                     "while writing it): its last record is dropped");
            f[i] = p;
            p = z + 1;
        }
        v[n] = (rec_t){ .kind = f[0][0], .rel = f[1], .type = (review_type_t)atoi(f[2]),
                        .mode = (mode_t)strtoul(f[3], NULL, 8), .target = f[4], .extra = f[5] };
    }
    *ret_text = steal_pointer(&text);
    *ret = steal_pointer(&v);
    *ret_n = n;
    return 0;
}

/* Is the path as apply's last record of it left it? */
static bool unchanged_since(const rec_t *w, int pfd, const char *name)
{
    struct stat st;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT && w->type == REVIEW_NONE;
    if (review_type_of(st.st_mode) != w->type)
        return false;
    if (w->type == REVIEW_DIR)
        return true;   /* its ctime moves with what is undone inside it */
    char now[64];
    snprintf(now, sizeof(now), "%llu:%lld", (unsigned long long)st.st_ino,
             (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec);
    return strcmp(now, w->extra) == 0;
}

/* Puts what p recorded at pfd/name, through a temporary name and a rename
 * for a file or link. */
static int restore(int dir_fd, const rec_t *p, int pfd, const char *name)
{
    struct stat st;
    bool there = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    bool is_dir = there && S_ISDIR(st.st_mode);
    char tmp[64];
    snprintf(tmp, sizeof(tmp), ".agent-sandbox-undo.%d", (int)getpid());
    if (p->type == REVIEW_DIR) {
        if (there && !is_dir && unlinkat(pfd, name, 0) < 0)
            return -errno;
        if (!is_dir && mkdirat(pfd, name, 0700) < 0)
            return -errno;
        return fchmodat(pfd, name, p->mode, 0) < 0 ? -errno : 0;
    }
    if (p->type == REVIEW_NONE)
        return !there || unlinkat(pfd, name, is_dir ? AT_REMOVEDIR : 0) == 0 ? 0 : -errno;
    int r = 0;
    bool made = false;   /* the temporary name is ours: an old one is never removed */
    if (p->type == REVIEW_SYMLINK) {
        r = symlinkat(p->target, pfd, tmp) < 0 ? -errno : 0;
        made = r == 0;
    } else {
        char saved[48];
        snprintf(saved, sizeof(saved), "saved/%s", p->extra);
        _cleanup_close_ int in = openat(dir_fd, saved, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        _cleanup_close_ int out = in < 0 ? -1 : openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        made = out >= 0;
        r = !made ? -errno : review_copy_bytes(in, out);
        if (r == 0 && fchmod(out, p->mode) < 0)
            r = -errno;
    }
    if (r == 0 && is_dir && unlinkat(pfd, name, AT_REMOVEDIR) < 0)
        r = -errno;
    if (r == 0 && renameat(pfd, tmp, pfd, name) < 0)
        r = -errno;
    if (r < 0 && made)
        unlinkat(pfd, tmp, 0);
    return r;
}

/* The last 'W' record of rel (NULL: none). */
static const rec_t *last_written(const rec_t *v, size_t n, const char *rel)
{
    for (size_t i = n; i-- > 0;)
        if (v[i].kind == 'W' && strcmp(v[i].rel, rel) == 0)
            return &v[i];
    return NULL;
}

static void undo_one(int dir_fd, int root_fd, const rec_t *v, size_t n, const rec_t *p, FILE *problems)
{
    const char *name;
    _cleanup_close_ int pfd = review_open_parent(root_fd, p->rel, &name);
    const rec_t *w = last_written(v, n, p->rel);
    int r = pfd;
    if (pfd >= 0 && w != NULL && !unchanged_since(w, pfd, name)) {
        fprintf(problems, "%s: changed since the apply; left as it is\n", p->rel);
        return;
    }
    if (pfd >= 0)
        r = restore(dir_fd, p, pfd, name);
    if (r < 0)
        fprintf(problems, "%s: cannot be put back: %s\n", p->rel, strerror(-r));
}

int review_journal_undo(const char *dir, int root_fd, const char *only_rel, char **ret_problems, as_error_t **err)
{
    _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return as_error_errno(err, errno, "%s: cannot open the undo journal", dir);
    _cleanup_free_ char *text = NULL;
    _cleanup_free_ rec_t *v = NULL;
    size_t n = 0;
    int r = read_records(dir_fd, &text, &v, &n, err);
    if (r < 0)
        return as_error_prefix(err, "%s", dir);
    msg_t m;
    if ((r = msg_open(&m, err)) < 0)
        return r;
    for (size_t i = n; i-- > 0;)
        if (v[i].kind == 'P' && (only_rel == NULL || strcmp(v[i].rel, only_rel) == 0))
            undo_one(dir_fd, root_fd, v, n, &v[i], m.f);
    _cleanup_free_ char *problems = NULL;
    if ((r = msg_close(&m, &problems, err)) < 0)
        return r;
    *ret_problems = *problems ? steal_pointer(&problems) : NULL;
    return 0;
}
