#include "name_counts.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct name_counts {
    name_count_t *slots;     /* name NULL: free */
    size_t cap;              /* a power of two */
    size_t len;
};

name_counts_t *name_counts_new(void)
{
    name_counts_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return NULL;
    m->cap = 64;
    if ((m->slots = calloc(m->cap, sizeof(*m->slots))) == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

void name_counts_free(name_counts_t *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->cap; i++)
        free((char *)m->slots[i].name);
    free(m->slots);
    free(m);
}

/* FNV-1a */
static size_t hash(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)h;
}

static name_count_t *slot_of(name_count_t *slots, size_t cap, const char *name)
{
    size_t i = hash(name) & (cap - 1);
    while (slots[i].name != NULL && strcmp(slots[i].name, name) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(name_counts_t *m)
{
    size_t cap = m->cap * 2;
    name_count_t *slots = calloc(cap, sizeof(*slots));
    if (slots == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].name != NULL)
            *slot_of(slots, cap, m->slots[i].name) = m->slots[i];
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

int name_counts_add(name_counts_t *m, const char *name, size_t n, bool *ret_first, as_error_t **err)
{
    if ((m->len + 1) * 2 > m->cap && grow(m) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    name_count_t *s = slot_of(m->slots, m->cap, name);
    bool first = s->name == NULL;
    if (first) {
        if ((s->name = strdup(name)) == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
        m->len++;
    }
    s->count += n;
    if (ret_first != NULL)
        *ret_first = first;
    return 0;
}

size_t name_counts_len(const name_counts_t *m)
{
    return m->len;
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
    name_count_t *v = calloc(m->len + 1, sizeof(*v));
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].name != NULL)
            v[k++] = m->slots[i];
    qsort(v, k, sizeof(*v), by_count);
    *ret = v;
    return 0;
}
