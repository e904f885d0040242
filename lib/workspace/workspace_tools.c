/* Files that a frozen tool config names and the tool runs or reads as
 * config: yarn's yarnPath (.yarnrc.yml) or yarn-path (.yarnrc) and the
 * plugins .yarnrc.yml lists; pnpm's hooks file (`pnpmfile` in
 * pnpm-workspace.yaml or .npmrc); the hgrc of the store a Mercurial share
 * reads (.hg/sharedpath, with share-safe). They live in the tree, where the
 * agent could rewrite them; each one is frozen too (where it exists), and
 * so reported if it changes anyway. */
#include "workspace_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/paths.h"
#include "base/util.h"

#define NAMING_MAX (256 * 1024)

/* How a config file names a file: "key: value" lines of YAML (a list's
 * "- " taken off first), "key value" or "key=value" lines of an rc file, or
 * the whole file a path (a share's sharedpath), to which `append` is
 * added. */
typedef enum { NAMED_YML, NAMED_RC, NAMED_WHOLE } named_syntax_t;

static const struct {
    const char *file;
    named_syntax_t syntax;
    const char *keys[3];     /* with their separator: "yarnPath:", "yarn-path " */
    const char *append;
} NAMING[] = {
    { ".yarnrc.yml", NAMED_YML, { "yarnPath:", "path:" }, NULL },
    { ".yarnrc", NAMED_RC, { "yarn-path " }, NULL },
    { "pnpm-workspace.yaml", NAMED_YML, { "pnpmfile:" }, NULL },   /* https://pnpm.io/settings#pnpmfile */
    { ".npmrc", NAMED_RC, { "pnpmfile=", "pnpmfile =" }, NULL },
    { ".hg/sharedpath", NAMED_WHOLE, { NULL }, "/hgrc" },
};

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

static int named(const char *v, size_t vn, const char *append, ws_named_fn fn, void *ctx)
{
    char path[4096];
    size_t an = append != NULL ? strlen(append) : 0;
    if (vn == 0 || vn + an >= sizeof(path) || memchr(v, '\0', vn) != NULL)
        return 0;
    memcpy(path, v, vn);
    memcpy(path + vn, append != NULL ? append : "", an + 1);
    return fn(ctx, path);
}

/* Calls fn with each path the text of a config of row i names, as written. */
static int named_paths(size_t i, const char *text, size_t len, ws_named_fn fn, void *ctx)
{
    if (NAMING[i].syntax == NAMED_WHOLE) {
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
            len--;
        return named(text, len, NAMING[i].append, fn, ctx);
    }
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - line) : len - pos;
        pos += n + 1;
        n = trim(&line, n);
        if (NAMING[i].syntax == NAMED_YML && n >= 2 && line[0] == '-' && line[1] == ' ') {
            line += 2;
            n = trim(&line, n - 2);
        }
        const char *v = NULL;
        size_t vn = 0;
        for (size_t k = 0; vn == 0 && k < ARRAY_SIZE(NAMING[i].keys) && NAMING[i].keys[k] != NULL; k++)
            vn = value_of(line, n, NAMING[i].keys[k], &v);
        int r = named(v, vn, NAMING[i].append, fn, ctx);
        if (r < 0)
            return r;
    }
    return 0;
}

/* Reads the file `rel` of the launch directory, never through a symlink. */
static int read_top(const char *launch_dir, const char *rel, char **ret, size_t *ret_len)
{
    _cleanup_free_ char *abs = NULL;
    as_error_t *e = NULL;
    if (asprintf(&abs, "%s/%s", launch_dir, rel) < 0)
        return -ENOMEM;
    int r = config_file_read(AT_FDCWD, abs, CONFIG_NOFOLLOW, NAMING_MAX, ret, ret_len, &e);
    as_error_free(&e);
    return r;
}

typedef struct named_ctx {
    const char *launch_dir;
    const char *dir_rel;     /* the config's directory: "" for the top */
    ws_named_fn fn;
    void *ctx;
} named_ctx_t;

/* A relative name is the config's directory's; a share's store is named by
 * its absolute path, and in the tree it is the path below the launch
 * directory that counts. */
static int to_tree_rel(void *ctx, const char *path)
{
    named_ctx_t *a = ctx;
    if (path[0] != '/') {
        if (a->dir_rel[0] == '\0')
            return a->fn(a->ctx, path);
        _cleanup_free_ char *rel = NULL;
        return asprintf(&rel, "%s/%s", a->dir_rel, path) < 0 ? -ENOMEM : a->fn(a->ctx, rel);
    }
    _cleanup_free_ char *norm = NULL;
    as_error_t *e = NULL;
    if (path_normalize(path, &norm, &e) < 0) {
        as_error_free(&e);
        return 0;
    }
    if (!path_is_inside(norm, a->launch_dir))
        return 0;                    /* outside: the agent cannot write it */
    return a->fn(a->ctx, norm + strlen(a->launch_dir) + (strcmp(a->launch_dir, "/") == 0 ? 0 : 1));
}

bool ws_naming_config(const char *rel)
{
    for (size_t i = 0; i < ARRAY_SIZE(NAMING); i++) {
        size_t n = strlen(rel), l = strlen(NAMING[i].file);
        if (n >= l && strcmp(rel + n - l, NAMING[i].file) == 0 && (n == l || rel[n - l - 1] == '/'))
            return true;
    }
    return false;
}

int ws_tool_named_files_in(const char *launch_dir, const char *dir_rel, ws_named_fn fn, void *ctx)
{
    for (size_t i = 0; i < ARRAY_SIZE(NAMING); i++) {
        _cleanup_free_ char *text = NULL, *file = NULL;
        size_t len = 0;
        if ((dir_rel[0] == '\0' ? (file = strdup(NAMING[i].file)) == NULL
                                : asprintf(&file, "%s/%s", dir_rel, NAMING[i].file) < 0))
            return -ENOMEM;
        int r = read_top(launch_dir, file, &text, &len);
        if (r == -ENOMEM)
            return r;
        if (r < 0)
            continue;
        named_ctx_t a = { launch_dir, dir_rel, fn, ctx };
        if ((r = named_paths(i, text, len, to_tree_rel, &a)) < 0)
            return r;
    }
    return 0;
}

int ws_tool_named_files(const char *launch_dir, ws_named_fn fn, void *ctx)
{
    return ws_tool_named_files_in(launch_dir, "", fn, ctx);
}
