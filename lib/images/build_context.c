#include "build_context.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/strv.h"
#include "base/tar_write.h"
#include "base/util.h"

typedef struct packer {
    const char *top;         /* for messages */
    tar_write_t tar;
    size_t files, entries;
} packer_t;

/* One entry's header, counted against the bound. */
static int header(packer_t *p, const char *name, unsigned mode, size_t size, char type, as_error_t **err)
{
    if (++p->entries > BUILD_CONTEXT_ENTRIES)
        return as_error_make(err, E2BIG, "%s: more than %d entries", p->top, BUILD_CONTEXT_ENTRIES);
    int r = tar_write_header(&p->tar, name, mode, size, type);
    if (r == -ENAMETOOLONG)
        return as_error_make(err, ENAMETOOLONG, "%s/%s: a path of more than %d bytes", p->top, name,
                             TAR_NAME_MAX);
    if (r < 0)
        return as_error_make(err, -r, "out of memory");
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
    char *at = NULL;
    int r = header(p, rel, (st->st_mode & 0111) ? 0755 : 0644, size, '0', err);
    if (r == 0 && tar_write_space(&p->tar, size, &at) < 0)
        r = as_error_make(err, ENOMEM, "out of memory");
    if (r < 0)
        return r;
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, at + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return as_error_make(err, n < 0 ? errno : EAGAIN, "%s/%s: %s", p->top, rel,
                                 n < 0 ? strerror(errno) : "shorter than it was");
        got += (size_t)n;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of a directory, sorted. */
static int names_of(int dirfd, const char *top, const char *rel, char ***ret, as_error_t **err)
{
    int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return as_error_make(err, errno, "%s/%s: %s", top, rel, strerror(errno));
    }
    _cleanup_(strv_freep) char **names = NULL;
    struct dirent *e;
    int r = 0;
    errno = 0;
    while (r == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            r = strv_push(&names, e->d_name);
        errno = 0;
    }
    int read_error = r == 0 ? errno : 0;
    closedir(d);
    if (r < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    /* a listing cut short would pack part of the folder as if it were all */
    if (read_error != 0)
        return as_error_make(err, read_error, "%s/%s: cannot list it to its end: %s", top, rel,
                             strerror(read_error));
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

int build_context_hash(const void *data, size_t len, const char *salt, char ret[65], as_error_t **err)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
              EVP_DigestUpdate(ctx, data, len) == 1 && EVP_DigestUpdate(ctx, salt, strlen(salt)) == 1 &&
              EVP_DigestFinal_ex(ctx, md, &n) == 1 && n == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return as_error_make(err, ENOMEM, "hashing the build context: OpenSSL's SHA-256 failed");
    for (unsigned i = 0; i < n; i++)
        snprintf(ret + 2 * i, 3, "%02x", md[i]);
    return 0;
}

int build_context_pack(const char *dir, const char *salt, build_context_t *ret, as_error_t **err)
{
    packer_t p = { .top = dir };
    _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return as_error_make(err, errno, "%s: %s", dir, strerror(errno));
    int r = walk(&p, fd, "", 0, err);
    if (r == 0 && tar_write_end(&p.tar) < 0)
        r = as_error_make(err, ENOMEM, "out of memory");
    char hash[65];
    if (r == 0)
        r = build_context_hash(p.tar.data, p.tar.len, salt, hash, err);
    if (r < 0) {
        tar_write_clear(&p.tar);
        return r;
    }
    *ret = (build_context_t){ .tar = p.tar.data, .len = p.tar.len };
    memcpy(ret->hash, hash, sizeof(hash));
    return 0;
}

void build_context_clear(build_context_t *c)
{
    free(c->tar);
    *c = (build_context_t){0};
}
