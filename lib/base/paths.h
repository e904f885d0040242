/* Component-wise helpers for absolute paths. Lexical only: nothing here looks
 * at the filesystem, so "/a/link/.." becomes "/a" whatever "link" points to.
 * Resolve symlinks first (realpath(3)) when that matters. */
#ifndef AS_PATHS_H
#define AS_PATHS_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

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

/* The one escaper for everything the host prints that the agent (or any
 * file) controls: paths in reports and messages, names from the router's
 * logs. Writes n bytes of s so that nothing reaches the terminal as a
 * control: C0 bytes, DEL, raw bytes 0x80-0xff that are not valid UTF-8 (C1
 * controls among them) as \xNN; UTF-8 encoded C1 controls (U+0080-U+009F),
 * bidi controls and invisible format characters (U+00AD, U+061C, U+180E,
 * U+200B-U+200F, U+2028-U+202E, U+2060-U+206F, U+FEFF, U+FFF9-U+FFFB, the
 * tags U+E0000-U+E007F) as \u{XXXX}. Everything else is copied, so the
 * output is printable and idempotent: escaping it again changes nothing. */
void path_put_escaped(FILE *f, const char *s, size_t n);

/* The same, but newlines are kept: for a whole message whose parts were
 * escaped where they were put together, as a last net before the terminal. */
void text_put_escaped(FILE *f, const char *s, size_t n);

/* path_put_escaped into a new string; NULL when out of memory. */
char *path_escaped(const char *s);

/* A path as the user is shown it: "~" in place of $HOME when the path is
 * $HOME or inside it, under either spelling given (resolved, as given; each
 * may be NULL; "/" is never shortened), the rest escaped as above. */
void path_put_for_user(FILE *f, const char *path, const char *home_resolved,
                       const char *home_given);

#endif
