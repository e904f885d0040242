/* How the launch policy resolves paths: fully (the launch directory, the
 * roots of allowed-paths) or as far as they exist (a protected place that
 * may not exist yet). Apart from the decision, so that the guards and the
 * file's parser use it without calling back into the decision. */
#include "launch_policy_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"

int launch_policy_resolve_realpath(void *ctx, const char *path, char **ret_resolved)
{
    (void)ctx;
    char *r = realpath(path, NULL);
    if (r == NULL)
        return errno > 0 ? -errno : -EIO;
    *ret_resolved = r;
    return 0;
}

int lp_oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

int lp_resolve_strict(struct ctx *c, const char *path, char **ret, as_error_t **err)
{
    char *out = NULL;
    int r = c->resolve(c->rctx, path, &out);
    if (r < 0)
        return as_error_errno(err, -r, "cannot resolve %s", path);
    _cleanup_free_ char *o = out;
    return path_normalize(o, ret, err);
}

/* Resolving loosely guards a protected place that does not exist yet (a $PATH
 * entry to be created, say) all the same. */
int lp_resolve_loose(struct ctx *c, const char *path, char **ret, as_error_t **err)
{
    char *out = NULL;
    int r = c->resolve(c->rctx, path, &out);
    if (r == 0) {
        _cleanup_free_ char *o = out;
        return path_normalize(o, ret, err);
    }
    if (r == -ENOMEM)
        return lp_oom(err);

    _cleanup_free_ char *norm = NULL;
    r = path_normalize(path, &norm, err);
    if (r < 0)
        return r;
    _cleanup_free_ char *prefix = strdup(norm);
    if (prefix == NULL)
        return lp_oom(err);
    while (strcmp(prefix, "/") != 0) {
        char *slash = strrchr(prefix, '/');
        if (slash == prefix)
            slash[1] = '\0';
        else
            *slash = '\0';
        out = NULL;
        r = c->resolve(c->rctx, prefix, &out);
        if (r == -ENOMEM)
            return lp_oom(err);
        if (r < 0)
            continue;
        _cleanup_free_ char *o = out;
        const char *tail = norm + strlen(prefix) + (strcmp(prefix, "/") == 0 ? 0 : 1);
        _cleanup_free_ char *joined = NULL;
        if ((r = path_join(o, tail, &joined, err)) < 0)
            return r;
        return path_normalize(joined, ret, err);
    }
    *ret = steal_pointer(&norm);
    return 0;
}
