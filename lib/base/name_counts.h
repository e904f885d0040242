/* Counts per name: how often each distinct string was seen. Kept in a
 * hash_index, since the names come from the agent and may be many (a
 * session's logs hold tens of thousands); the counts come out sorted. */
#ifndef AS_NAME_COUNTS_H
#define AS_NAME_COUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "util.h"

typedef struct name_count {
    const char *name;        /* owned by the table */
    size_t count;
} name_count_t;

typedef struct name_counts name_counts_t;

name_counts_t *name_counts_new(void);
void name_counts_free(name_counts_t *m);
DEFINE_CLEANUP_FUNC(name_counts_t, name_counts_free)

/* Adds `n` to name's count; *ret_first (may be NULL) says whether the name
 * was new. -ENOMEM when out of memory. */
int name_counts_add(name_counts_t *m, const char *name, size_t n, bool *ret_first, as_error_t **err);

size_t name_counts_len(const name_counts_t *m);

/* Every name with its count, the highest count first (then by name);
 * valid while m lives. Free the array with free(). */
int name_counts_sorted(const name_counts_t *m, name_count_t **ret, as_error_t **err);

#endif
