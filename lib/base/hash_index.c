#include "hash_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 16

typedef struct slot {
    char *key;             /* NULL: the slot is free */
    size_t value;
} slot_t;

struct hash_index {
    slot_t *slots;
    size_t cap;            /* 0 (no slots yet), or a power of two at least twice len */
    size_t len;
};

uint64_t hash_index_hash(const char *key)
{
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *c = (const unsigned char *)key; *c != '\0'; c++)
        h = (h ^ *c) * 1099511628211ULL;
    return h;
}

hash_index_t *hash_index_new(void)
{
    return calloc(1, sizeof(hash_index_t));
}

void hash_index_free(hash_index_t *ix)
{
    if (ix == NULL)
        return;
    for (size_t i = 0; i < ix->cap; i++)
        free(ix->slots[i].key);
    free(ix->slots);
    free(ix);
}

/* The slot of `key` among cap slots: its own, or the free one it would
 * take. The table is never full, so the probe always ends. */
static slot_t *slot_of(slot_t *slots, size_t cap, const char *key)
{
    size_t mask = cap - 1;
    size_t i = (size_t)hash_index_hash(key) & mask;
    while (slots[i].key != NULL && strcmp(slots[i].key, key) != 0)
        i = (i + 1) & mask;
    return &slots[i];
}

/* Twice the slots (or the first ones), every key moved to its slot there. */
static int grow(hash_index_t *ix)
{
    size_t cap = ix->cap > 0 ? ix->cap * 2 : FIRST_CAP;
    slot_t *slots = calloc(cap, sizeof(*slots));
    if (slots == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < ix->cap; i++)
        if (ix->slots[i].key != NULL)
            *slot_of(slots, cap, ix->slots[i].key) = ix->slots[i];
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return 0;
}

int hash_index_add(hash_index_t *ix, const char *key, size_t **ret_value, bool *ret_added)
{
    if ((ix->len + 1) * 2 > ix->cap && grow(ix) < 0)
        return -ENOMEM;
    slot_t *s = slot_of(ix->slots, ix->cap, key);
    bool added = s->key == NULL;
    if (added) {
        if ((s->key = strdup(key)) == NULL)
            return -ENOMEM;
        s->value = 0;
        ix->len++;
    }
    *ret_value = &s->value;
    if (ret_added != NULL)
        *ret_added = added;
    return 0;
}

bool hash_index_find(const hash_index_t *ix, const char *key, size_t *ret_value)
{
    if (ix->cap == 0)
        return false;
    const slot_t *s = slot_of(ix->slots, ix->cap, key);
    if (s->key == NULL)
        return false;
    if (ret_value != NULL)
        *ret_value = s->value;
    return true;
}

size_t hash_index_len(const hash_index_t *ix)
{
    return ix->len;
}

bool hash_index_next(const hash_index_t *ix, size_t *pos, const char **ret_key, size_t *ret_value)
{
    for (; *pos < ix->cap; (*pos)++) {
        const slot_t *s = &ix->slots[*pos];
        if (s->key != NULL) {
            *ret_key = s->key;
            *ret_value = s->value;
            (*pos)++;
            return true;
        }
    }
    return false;
}
