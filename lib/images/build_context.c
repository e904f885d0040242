#include "build_context.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sha256.h"
#include "base/strv.h"
#include "base/util.h"

typedef struct packer {
    const char *top;         /* for messages */
    char *tar;
    size_t len, cap, files, entries;
} packer_t;

static int grow(packer_t *p, size_t more, as_error_t **err)
{
    if (p->len + more <= p->cap)
        return 0;
    size_t cap = p->cap ? p->cap : 64 * 1024;
    while (cap < p->len + more)
        cap *= 2;
    char *t = realloc(p->tar, cap);
    if (t == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    p->tar = t, p->cap = cap;
    return 0;
}

/* One ustar header: name, mode, size, type; no owner, no time. */
static int header(packer_t *p, const char *name, unsigned mode, size_t size, char type, as_error_t **err)
{
    if (++p->entries > BUILD_CONTEXT_ENTRIES)
        return as_error_make(err, E2BIG, "%s: more than %d entries", p->top, BUILD_CONTEXT_ENTRIES);
    if (strlen(name) > 100)
        return as_error_make(err, ENAMETOOLONG, "%s/%s: a path of more than 100 bytes", p->top, name);
    int r = grow(p, 512, err);
    if (r < 0)
        return r;
    char *h = p->tar + p->len;
    memset(h, 0, 512);
    memcpy(h, name, strlen(name));
    snprintf(h + 100, 8, "%07o", mode);
    snprintf(h + 108, 8, "%07o", 0u);
    snprintf(h + 116, 8, "%07o", 0u);
    snprintf(h + 124, 12, "%011llo", (unsigned long long)size);
    snprintf(h + 136, 12, "%011o", 0u);
    h[156] = type;
    memcpy(h + 257, "ustar\0" "00", 8);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (size_t i = 0; i < 512; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum);
    p->len += 512;
    return 0;
}

/* A regular file's content, read through a descriptor that is the entry
 * seen (no link followed, no swap between the look and the open). */
static int file(packer_t *p, int dirfd, const char *rel, const char *name, const struct stat *st, as_error_t **err)
{
    if (st->st_nlink > 1)
        return as_error_make(err, EPERM, "%s/%s: a hard-linked file: refused (it may be a file from "
                             "elsewhere; copy it in)", p->top, rel);
    if ((p->files += (size_t)st->st_size) > BUILD_CONTEXT_MAX || (size_t)st->st_size > BUILD_CONTEXT_MAX)
        return as_error_make(err, EFBIG, "%s: more than %u MiB of files", p->top, BUILD_CONTEXT_MAX >> 20);
    _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat now;
    if (fd < 0 || fstat(fd, &now) < 0)
        return as_error_make(err, errno, "%s/%s: %s", p->top, rel, strerror(errno));
    if (now.st_ino != st->st_ino || now.st_dev != st->st_dev || now.st_size != st->st_size)
        return as_error_make(err, EAGAIN, "%s/%s: changed while it was read; build again", p->top, rel);
    size_t size = (size_t)st->st_size;
    int r = header(p, rel, (st->st_mode & 0111) ? 0755 : 0644, size, '0', err);
    if (r == 0)
        r = grow(p, (size + 511) / 512 * 512, err);
    if (r < 0)
        return r;
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, p->tar + p->len + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return as_error_make(err, n < 0 ? errno : EAGAIN, "%s/%s: %s", p->top, rel,
                                 n < 0 ? strerror(errno) : "shorter than it was");
        got += (size_t)n;
    }
    memset(p->tar + p->len + size, 0, (size + 511) / 512 * 512 - size);
    p->len += (size + 511) / 512 * 512;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of a directory, sorted. */
static int names_of(int dirfd, const char *top, const char *rel, char ***ret, as_error_t **err)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return as_error_make(err, errno, "%s/%s: %s", top, rel, strerror(errno));
    }
    _cleanup_(strv_freep) char **names = NULL;
    struct dirent *e;
    int r = 0;
    while (r == 0 && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            r = strv_push(&names, e->d_name);
    closedir(d);
    if (r < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if (names != NULL)
        qsort(names, strv_length(names), sizeof(char *), by_name);
    *ret = steal_pointer(&names);
    return 0;
}

static int walk(packer_t *p, int dirfd, const char *prefix, unsigned depth, as_error_t **err)
{
    _cleanup_(strv_freep) char **names = NULL;
    int r = names_of(dirfd, p->top, prefix, &names, err);
    for (size_t i = 0; r == 0 && names != NULL && names[i] != NULL; i++) {
        _cleanup_free_ char *rel = NULL;
        if (asprintf(&rel, "%s%s", prefix, names[i]) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        struct stat st;
        if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
            return as_error_make(err, errno, "%s/%s: %s", p->top, rel, strerror(errno));
        if (S_ISREG(st.st_mode)) {
            r = file(p, dirfd, rel, names[i], &st, err);
        } else if (S_ISDIR(st.st_mode) && depth < 32) {
            _cleanup_free_ char *sub = NULL;
            _cleanup_close_ int fd = openat(dirfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0 || asprintf(&sub, "%s/", rel) < 0)
                return as_error_make(err, errno ? errno : ENOMEM, "%s/%s: %s", p->top, rel, strerror(errno));
            r = header(p, sub, 0755, 0, '5', err);
            if (r == 0)
                r = walk(p, fd, sub, depth + 1, err);
        } else {
            return as_error_make(err, EPERM, "%s/%s: %s: refused (the build context takes files and "
                                 "directories only)", p->top, rel,
                                 S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ?
                                 "directories nested too deep" : "a special file");
        }
    }
    return r;
}

int build_context_pack(const char *dir, const char *salt, build_context_t *ret, as_error_t **err)
{
    packer_t p = { .top = dir };
    _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return as_error_make(err, errno, "%s: %s", dir, strerror(errno));
    int r = walk(&p, fd, "", 0, err);
    if (r == 0)
        r = grow(&p, 1024, err);
    if (r < 0) {
        free(p.tar);
        return r;
    }
    memset(p.tar + p.len, 0, 1024);
    p.len += 1024;
    sha256_t h;
    sha256_init(&h);
    sha256_update(&h, p.tar, p.len);
    sha256_update(&h, salt, strlen(salt));
    *ret = (build_context_t){ .tar = p.tar, .len = p.len };
    sha256_hex(&h, ret->hash);
    return 0;
}

void build_context_clear(build_context_t *c)
{
    free(c->tar);
    *c = (build_context_t){0};
}
