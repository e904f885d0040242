#include "name_counts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash_index.h"

/* Each name's count is its number in the table. */
struct name_counts {
    hash_index_t *counts;
};

name_counts_t *name_counts_new(void)
{
    name_counts_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return NULL;
    if ((m->counts = hash_index_new()) == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

void name_counts_free(name_counts_t *m)
{
    if (m == NULL)
        return;
    hash_index_free(m->counts);
    free(m);
}

int name_counts_add(name_counts_t *m, const char *name, size_t n, bool *ret_first, as_error_t **err)
{
    size_t *count = NULL;
    if (hash_index_add(m->counts, name, &count, ret_first) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    *count += n;
    return 0;
}

size_t name_counts_len(const name_counts_t *m)
{
    return hash_index_len(m->counts);
}

static int by_count(const void *a, const void *b)
{
    const name_count_t *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

int name_counts_sorted(const name_counts_t *m, name_count_t **ret, as_error_t **err)
{
    name_count_t *v = calloc(hash_index_len(m->counts) + 1, sizeof(*v));
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    size_t k = 0, pos = 0;
    while (hash_index_next(m->counts, &pos, &v[k].name, &v[k].count))
        k++;
    qsort(v, k, sizeof(*v), by_count);
    *ret = v;
    return 0;
}
