/* Files that a frozen tool config names and the tool runs: yarn's yarnPath
 * (.yarnrc.yml) or yarn-path (.yarnrc), and the plugins .yarnrc.yml lists.
 * They live in the tree, where the agent could rewrite them; each one is
 * frozen too (where it exists), and so reported if it changes anyway. */
#include "workspace_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/util.h"

#define YARNRC_MAX (256 * 1024)

static size_t trim(const char **s, size_t n)
{
    while (n > 0 && (**s == ' ' || **s == '\t')) {
        (*s)++;
        n--;
    }
    while (n > 0 && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t' || (*s)[n - 1] == '\r'))
        n--;
    if (n >= 2 && ((**s == '"' && (*s)[n - 1] == '"') || (**s == '\'' && (*s)[n - 1] == '\''))) {
        (*s)++;
        n -= 2;
    }
    return n;
}

/* The value after `key` on a line, or 0. */
static size_t value_of(const char *line, size_t n, const char *key, const char **ret)
{
    size_t kl = strlen(key);
    if (n < kl || strncmp(line, key, kl) != 0)
        return 0;
    *ret = line + kl;
    return trim(ret, n - kl);
}

int ws_yarn_named_paths(const char *text, size_t len, bool yml, ws_named_fn fn, void *ctx)
{
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - line) : len - pos;
        pos += n + 1;
        n = trim(&line, n);
        if (yml && n >= 2 && line[0] == '-' && line[1] == ' ') {
            line += 2;
            n = trim(&line, n - 2);
        }
        const char *v = NULL;
        size_t vn = yml ? value_of(line, n, "yarnPath:", &v) : value_of(line, n, "yarn-path ", &v);
        if (yml && vn == 0)
            vn = value_of(line, n, "path:", &v);
        if (vn == 0 || vn >= 4096 || memchr(v, '\0', vn) != NULL)
            continue;
        char path[4096];
        memcpy(path, v, vn);
        path[vn] = '\0';
        int r = fn(ctx, path);
        if (r < 0)
            return r;
    }
    return 0;
}

/* Reads the launch directory's file `name`, never through a symlink. */
static int read_top(const char *launch_dir, const char *name, char **ret, size_t *ret_len)
{
    _cleanup_close_ int dfd = open(launch_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        return -EINVAL;
    return read_fd_bounded(fd, YARNRC_MAX, ret, ret_len);
}

int ws_tool_named_files(const char *launch_dir, ws_named_fn fn, void *ctx)
{
    static const struct {
        const char *name;
        bool yml;
    } files[] = { { ".yarnrc.yml", true }, { ".yarnrc", false } };
    for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_top(launch_dir, files[i].name, &text, &len);
        if (r == -ENOMEM)
            return r;
        if (r == 0 && (r = ws_yarn_named_paths(text, len, files[i].yml, fn, ctx)) < 0)
            return r;
    }
    return 0;
}
