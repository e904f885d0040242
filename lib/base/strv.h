/* NULL-terminated string vectors (argv, envp): the one copy of the helpers
 * every module that keeps a command line or an environment needs. */
#ifndef AS_STRV_H
#define AS_STRV_H

#include <stdbool.h>
#include <stddef.h>
#include "util.h"

/* Number of entries before the terminating NULL; 0 for NULL. */
size_t strv_length(char *const *v);

/* Whether s is one of the entries (v may be NULL). */
bool strv_contains(char *const *v, const char *s);

/* A deep copy (NULL gives an empty vector); NULL when out of memory. */
char **strv_copy(char *const *v);

/* Appends a copy of s, keeping *v NULL-terminated; -ENOMEM on failure,
 * leaving *v as it was. *v may be NULL. */
int strv_push(char ***v, const char *s);

/* Frees every entry and the vector; accepts NULL. */
void strv_free(char **v);
DEFINE_CLEANUP_FUNC(char *, strv_free)

#endif
