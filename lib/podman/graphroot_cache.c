#include "graphroot_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_write.h"
#include "base/file_read.h"
#include "base/msg.h"
#include "base/user_dirs.h"
#include "base/util.h"

#define CACHE_NAME "graphroot"
/* The key and a line: far less than this. */
#define CACHE_MAX (64 * 1024)

static void key_line(FILE *f, const char *path)
{
    struct stat st;
    if (path == NULL)
        return;
    if (stat(path, &st) < 0)
        fprintf(f, "%s -\n", path);
    else
        fprintf(f, "%s %lu %lld %lld.%09ld\n", path, (unsigned long)st.st_ino, (long long)st.st_size,
                (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

int graphroot_cache_key(char **ret, as_error_t **err)
{
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return as_error_prefix(err, "computing the storage cache key");
    FILE *f = m.f;
    /* the files containers-storage reads, in its order of precedence */
    const char *env = getenv("CONTAINERS_STORAGE_CONF");
    fprintf(f, "env %s\n", env != NULL ? env : "-");
    /* without a graphroot in storage.conf, podman's default is under these;
     * its own storage.conf is found by its rule (lib/base/user_dirs.h) */
    user_env_t u = user_env();
    fprintf(f, "data %s\nhome %s\nconfig %s\n", u.data_home != NULL ? u.data_home : "-",
            u.home != NULL ? u.home : "-", u.config_home != NULL ? u.config_home : "-");
    key_line(f, env);
    _cleanup_free_ char *user = user_podman_config_file("containers/storage.conf");
    key_line(f, user);
    key_line(f, "/etc/containers/storage.conf");
    key_line(f, "/usr/share/containers/storage.conf");
    if ((r = msg_close(&m, ret, err)) < 0)
        return as_error_prefix(err, "computing the storage cache key");
    return 0;
}

/* The stored line: "<dev> <ino> <graphroot>", the directory's identity
 * when it was stored. */
int graphroot_cache_get(const char *base_dir, char **ret, as_error_t **err)
{
    _cleanup_free_ char *path = NULL, *key = NULL;
    if (asprintf(&path, "%s/" CACHE_NAME, base_dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = graphroot_cache_key(&key, err);
    if (r < 0)
        return r;
    /* Any file that cannot be read, or is not what was stored, is a miss. */
    _cleanup_free_ char *buf = NULL;
    _cleanup_(as_error_freep) as_error_t *read_err = NULL;
    size_t n = 0;
    if (config_file_read(AT_FDCWD, path, CONFIG_NOFOLLOW, CACHE_MAX, &buf, &n, &read_err) < 0)
        return -ENOENT;
    size_t klen = strlen(key);
    if (n <= klen || strncmp(buf, key, klen) != 0)
        return -ENOENT;
    char *line = buf + klen;
    line[strcspn(line, "\n")] = '\0';
    unsigned long long dev, ino;
    int root_at = 0;
    if (sscanf(line, "%llu %llu %n", &dev, &ino, &root_at) != 2 || root_at == 0 || line[root_at] != '/')
        return -ENOENT;
    /* A key cannot cover everything (a storage reset, a moved home): the
     * directory must still be the one that was stored. */
    struct stat st;
    if (stat(line + root_at, &st) < 0 || !S_ISDIR(st.st_mode) ||
        (unsigned long long)st.st_dev != dev || (unsigned long long)st.st_ino != ino)
        return -ENOENT;
    if ((*ret = strdup(line + root_at)) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

int graphroot_cache_put(const char *base_dir, const char *graphroot, as_error_t **err)
{
    _cleanup_free_ char *key = NULL, *text = NULL;
    struct stat st;
    if (stat(graphroot, &st) < 0)
        return as_error_errno(err, errno, "podman's storage %s", graphroot);
    int r = graphroot_cache_key(&key, err);
    if (r < 0)
        return r;
    if (asprintf(&text, "%s%llu %llu %s\n", key, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                 graphroot) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return file_write_atomic(base_dir, CACHE_NAME, text, 0600, err);
}
