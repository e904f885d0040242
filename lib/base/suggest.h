/* "Did you mean ...?": how near a mistyped word is to the words a command
 * knows (its options, the subcommands). Pure. The rule (docs in
 * docs/cli.md): the words are compared without their leading dashes, by
 * the optimal string alignment distance (insertions, deletions,
 * substitutions and swaps of two neighbours, each 1); a word is near a
 * known one of up to 4 characters at distance 1 when both start with the
 * same character, and near a longer one at distance 1 or 2. */
#ifndef AS_SUGGEST_H
#define AS_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

/* The distance between a and b (each at most SUGGEST_WORD_MAX bytes;
 * longer words get SIZE_MAX: nothing is near them). */
#define SUGGEST_WORD_MAX 64
size_t suggest_distance(const char *a, const char *b);

/* Whether `word` is near `known` (not equal to it), by the rule above;
 * the same word with other dashes is near. */
bool suggest_near(const char *word, const char *known);

/* The known word nearest to `word` among the n, the first of equals; NULL
 * when none is near. */
const char *suggest_nearest(const char *word, const char *const *known, size_t n);

#endif
