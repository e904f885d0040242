/* A real directory tree for the workspace tests: a base made beside the
 * test binary (build/tests/), with a home and a launch directory in it,
 * removed whole afterwards. For cmocka's setup and teardown. */
#ifndef AS_TEST_REAL_TREE_H
#define AS_TEST_REAL_TREE_H

#include <limits.h>
#include <stdbool.h>

struct real {
    char base[PATH_MAX];
    char home[PATH_MAX + 16];
    char launch[PATH_MAX + 16];
};

int real_setup(void **state);
int real_teardown(void **state);

/* Creates r->launch/SPEC: "dir/" a directory, "a -> b" a symlink (an old
 * one replaced), else a file with `content`, written anew or appended
 * (parents made as needed). */
void real_make(const struct real *r, const char *spec, const char *content, bool append);

/* Is there anything at r->launch/rel (not following a last symlink)? */
bool real_exists(const struct real *r, const char *rel);

/* Fails the test unless the text holds `needle` (real_assert_lacks: unless
 * it does not), showing the text. */
void real_assert_contains(const char *text, const char *needle);
void real_assert_lacks(const char *text, const char *needle);

#endif
