#include "suggest.h"

#include <stdint.h>
#include <string.h>

static const char *undashed(const char *s)
{
    while (*s == '-')
        s++;
    return s;
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

size_t suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > SUGGEST_WORD_MAX || lb > SUGGEST_WORD_MAX)
        return SIZE_MAX;
    /* d[i][j]: the distance between a's first i and b's first j bytes */
    size_t d[SUGGEST_WORD_MAX + 1][SUGGEST_WORD_MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    return d[la][lb];
}

/* The distance up to which `word` is near `known` (0: only the same
 * word with other dashes, -exec for --exec). */
static size_t reach(const char *word, const char *known)
{
    if (strlen(known) > 4)
        return 2;
    return word[0] == known[0] ? 1 : 0;
}

bool suggest_near(const char *word, const char *known)
{
    const char *w = undashed(word), *k = undashed(known);
    if (w[0] == '\0' || k[0] == '\0' || strcmp(word, known) == 0)
        return false;
    return suggest_distance(w, k) <= reach(w, k);
}

const char *suggest_nearest(const char *word, const char *const *known, size_t n)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!suggest_near(word, known[i]))
            continue;
        size_t d = suggest_distance(undashed(word), undashed(known[i]));
        if (d < best_d) {
            best = known[i];
            best_d = d;
        }
    }
    return best;
}
