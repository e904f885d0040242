#include "link_resolve.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

void link_chain_clear(link_chain_t *chain)
{
    if (chain == NULL)
        return;
    for (size_t i = 0; i < chain->n; i++) {
        free(chain->v[i].path);
        free(chain->v[i].target);
    }
    free(chain->v);
    chain->v = NULL;
    chain->n = 0;
}

static int chain_add(link_chain_t *chain, const char *path, const char *target)
{
    if (chain == NULL)
        return 0;
    link_hop_t *v = realloc(chain->v, (chain->n + 1) * sizeof(*v));
    if (v == NULL)
        return -ENOMEM;
    chain->v = v;
    link_hop_t h = { strdup(path), strdup(target) };
    if (h.path == NULL || h.target == NULL) {
        free(h.path);
        free(h.target);
        return -ENOMEM;
    }
    v[chain->n++] = h;
    return 0;
}

typedef struct state {
    char done[PATH_MAX];     /* resolved so far, physical, no trailing slash ("" is "/") */
    size_t dlen;
    char *todo;              /* what is left, malloc'd */
    size_t pos;
    int hops;
} state_t;

/* The next component of todo into comp; false at the end. */
static bool take(state_t *s, char *comp, size_t cap)
{
    while (s->todo[s->pos] == '/')
        s->pos++;
    if (s->todo[s->pos] == '\0')
        return false;
    size_t n = strcspn(s->todo + s->pos, "/");
    if (n >= cap)
        n = cap - 1;        /* longer than NAME_MAX: lstat fails with ENAMETOOLONG */
    memcpy(comp, s->todo + s->pos, n);
    comp[n] = '\0';
    s->pos += strcspn(s->todo + s->pos, "/");
    return true;
}

static bool more_after(const state_t *s)
{
    return s->todo[s->pos + strspn(s->todo + s->pos, "/")] != '\0';
}

/* The link's target, then what was left after the link. */
static int follow(state_t *s, const char *target)
{
    char *rest = NULL;
    if (asprintf(&rest, "%s/%s", target, s->todo + s->pos) < 0)
        return -ENOMEM;
    free(s->todo);
    s->todo = rest;
    s->pos = 0;
    if (target[0] == '/')
        s->dlen = 0;
    s->done[s->dlen] = '\0';
    return 0;
}

/* One component: 0 to go on, 1 when the walk ends at it (*end set). */
static int step(state_t *s, const char *comp, link_chain_t *chain, link_end_t *end)
{
    if (strcmp(comp, ".") == 0)
        return 0;
    if (strcmp(comp, "..") == 0) {
        char *slash = strrchr(s->done, '/');
        s->dlen = slash != NULL ? (size_t)(slash - s->done) : 0;
        s->done[s->dlen] = '\0';
        return 0;
    }
    /* /proc's links (self/cwd, self/root, PID/fd/N) lead where the process
     * that reads them is: from here, not from the host tool that follows
     * the same link later. Such a path leads nowhere we can judge. */
    if (s->dlen == 0 && strcmp(comp, "proc") == 0)
        return -EXDEV;
    size_t cl = strlen(comp);
    if (s->dlen + 1 + cl >= sizeof(s->done))
        return -ENAMETOOLONG;
    s->done[s->dlen] = '/';
    memcpy(s->done + s->dlen + 1, comp, cl + 1);
    struct stat st;
    if (lstat(s->done, &st) < 0) {
        if (errno != ENOENT)
            return -errno;
        *end = more_after(s) ? LINK_MISSING : LINK_MISSING_LAST;
        return 1;
    }
    if (S_ISLNK(st.st_mode)) {
        if (++s->hops > LINK_RESOLVE_MAX_HOPS)
            return -ELOOP;
        char target[PATH_MAX];
        ssize_t l = readlink(s->done, target, sizeof(target) - 1);
        if (l < 0)
            return -errno;
        target[l] = '\0';
        int r = chain_add(chain, s->done, target);
        return r < 0 ? r : follow(s, target);
    }
    s->dlen += 1 + cl;
    if (!S_ISDIR(st.st_mode) && more_after(s)) {
        *end = LINK_NOTDIR;
        return 1;
    }
    return 0;
}

int link_resolve(const char *path, link_chain_t *chain, char **ret_path, link_end_t *ret_end,
                 as_error_t **err)
{
    if (path == NULL || path[0] != '/')
        return as_error_make(err, EINVAL, "internal error: resolving a relative path");
    state_t s = { .todo = strdup(path) };
    if (s.todo == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    link_end_t end = LINK_FOUND;
    char comp[NAME_MAX + 2];
    int r = 0;
    while (r == 0 && take(&s, comp, sizeof(comp)))
        r = step(&s, comp, chain, &end);
    free(s.todo);
    if (r < 0)
        return r == -ENOMEM  ? as_error_make(err, ENOMEM, "out of memory")
               : r == -EXDEV ? as_error_make(err, EXDEV, "%s leads into /proc, where a link leads wherever "
                                             "the process reading it is", path)
                             : as_error_errno(err, -r, "cannot resolve %s", path);
    char *out = strdup(s.dlen == 0 ? "/" : s.done);
    if (out == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    *ret_path = out;
    *ret_end = end;
    return 0;
}

bool link_system_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_uid == 0 && access(path, W_OK) < 0 && errno == EACCES;
}
