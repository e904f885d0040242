/* A hash table from strings to numbers, the one table of the project: an
 * allowlist's entries by name (a list may have thousands) and the names the
 * agent asked for in a session's logs (tens of thousands) must both be found
 * without walking them all.
 *
 * Open addressing with linear probing over FNV-1a, never more than half
 * full, so that a probe ends soon at a free slot. The table keeps its own
 * copy of each key; the number stored with it is the caller's (an entry
 * number, a count). Keys are never removed: a caller whose numbering
 * changes makes a new table. */
#ifndef AS_HASH_INDEX_H
#define AS_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct hash_index hash_index_t;

/* An empty table; NULL when out of memory. Its slots come with the first key. */
hash_index_t *hash_index_new(void);
void hash_index_free(hash_index_t *ix);
DEFINE_CLEANUP_FUNC(hash_index_t, hash_index_free)

/* Finds `key`, or adds it with the number 0: *ret_value points at its
 * number (valid until the next hash_index_add), *ret_added (may be NULL)
 * says whether the key was new. -ENOMEM when out of memory, and then
 * nothing was added. */
int hash_index_add(hash_index_t *ix, const char *key, size_t **ret_value, bool *ret_added);

/* Whether `key` is in the table; its number in *ret_value (may be NULL). */
bool hash_index_find(const hash_index_t *ix, const char *key, size_t *ret_value);

/* How many keys the table holds. */
size_t hash_index_len(const hash_index_t *ix);

/* Each key with its number, in no particular order: start with *pos at 0
 * and call until it returns false. The key is the table's own, valid while
 * the table lives and no key is added. */
bool hash_index_next(const hash_index_t *ix, size_t *pos, const char **ret_key, size_t *ret_value);

/* The hash of a key (FNV-1a, 64 bits); a key's first slot is taken from
 * its low bits. Public so that a test can make keys that collide. */
uint64_t hash_index_hash(const char *key);

#endif
