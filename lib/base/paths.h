/* Component-wise helpers for absolute paths. Lexical only: nothing here looks
 * at the filesystem, so "/a/link/.." becomes "/a" whatever "link" points to.
 * Resolve symlinks first (realpath(3)) when that matters. */
#ifndef AS_PATHS_H
#define AS_PATHS_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "escape.h"

/* Normalize an absolute path: collapse repeated slashes, drop "." and any
 * trailing slash, and let ".." remove the component before it (never going
 * above "/"). "//a/./b/../c/" -> "/a/c". Fails with EINVAL on a path that is
 * NULL, empty or relative. */
int path_normalize(const char *path, char **ret_path, as_error_t **err);

/* "dir/name" without doubling the slash when dir is "/". */
int path_join(const char *dir, const char *name, char **ret_path, as_error_t **err);

typedef enum path_relation {
    PATH_UNRELATED,
    PATH_SAME,       /* a is b */
    PATH_INSIDE,     /* a sits strictly below b */
    PATH_CONTAINS,   /* a holds b strictly below it */
} path_relation_t;

/* How a relates to b, comparing whole components: "/home/a/foo" is not
 * inside "/home/a/fo". Both must already be normalized. */
path_relation_t path_relation(const char *a, const char *b);

/* path sits strictly below root (both normalized). */
bool path_is_inside(const char *path, const char *root);

/* A path as the user is shown it: "~" in place of $HOME when the path is
 * $HOME or inside it, under either spelling given (resolved, as given; each
 * may be NULL; "/" is never shortened), the rest escaped as above. */
void path_put_for_user(FILE *f, const char *path, const char *home_resolved,
                       const char *home_given);

#endif
