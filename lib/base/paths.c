#include "paths.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

int path_normalize(const char *path, char **ret_path, as_error_t **err)
{
    if (path == NULL || path[0] != '/')
        return as_error_make(err, EINVAL, "not an absolute path: \"%s\"", path != NULL ? path : "(null)");

    char *out = malloc(strlen(path) + 1);
    if (out == NULL)
        return as_error_make(err, ENOMEM, "out of memory");

    size_t o = 0;
    out[o++] = '/';
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        if (*p == '\0')
            break;
        const char *s = p;
        while (*p != '\0' && *p != '/')
            p++;
        size_t len = (size_t)(p - s);
        if (len == 1 && s[0] == '.')
            continue;
        if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 1 && out[o - 1] != '/')
                o--;
            if (o > 1)
                o--;                 /* the slash before the popped component */
            continue;
        }
        if (o > 1)
            out[o++] = '/';
        memcpy(out + o, s, len);
        o += len;
    }
    out[o] = '\0';
    *ret_path = out;
    return 0;
}

int path_join(const char *dir, const char *name, char **ret_path, as_error_t **err)
{
    size_t ld = strlen(dir);
    bool slash = ld > 0 && dir[ld - 1] == '/';
    char *out = NULL;
    if (asprintf(&out, "%s%s%s", dir, slash ? "" : "/", name) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    *ret_path = out;
    return 0;
}

bool path_is_inside(const char *path, const char *root)
{
    if (strcmp(root, "/") == 0)
        return path[0] == '/' && path[1] != '\0';
    size_t lr = strlen(root);
    return strncmp(path, root, lr) == 0 && path[lr] == '/' && path[lr + 1] != '\0';
}

path_relation_t path_relation(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return PATH_SAME;
    if (path_is_inside(a, b))
        return PATH_INSIDE;
    if (path_is_inside(b, a))
        return PATH_CONTAINS;
    return PATH_UNRELATED;
}

void path_put_for_user(FILE *f, const char *path, const char *home_resolved,
                       const char *home_given)
{
    const char *homes[] = { home_resolved, home_given };
    for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++) {
        if (homes[i] == NULL || strcmp(homes[i], "/") == 0)
            continue;
        path_relation_t rel = path_relation(path, homes[i]);
        if (rel == PATH_SAME || rel == PATH_INSIDE) {
            fputc('~', f);
            path += strlen(homes[i]);
            break;
        }
    }
    path_put_escaped(f, path, strlen(path));
}
