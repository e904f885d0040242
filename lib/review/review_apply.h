/* Changes landing on the host tree, and taken back (docs/review.md).
 *
 * Every write is atomic: a temporary name in the same directory, then a
 * rename over the path (a directory is made, or its mode set, in place).
 * Paths are opened beneath the tree's root with openat2(RESOLVE_NO_SYMLINKS):
 * a link on the host where the review had a directory stops the write
 * there. Before each write, the journal (a directory of its own under the
 * review's applied/) records what was there: its type, mode, link target
 * and, for a file, its bytes (a hard link to the old file, which the rename
 * leaves untouched, or a copy); after it, what apply left (inode and
 * ctime), so that undo puts back exactly what was there and refuses a path
 * changed since. The record is written ahead of the change: an apply cut
 * short is undone as far as it went.
 *
 * A conflict: a path to modify or delete whose host ctime is at or after
 * the review's start (the host changed it meanwhile). It is left as it is.
 * After the writes, each link written is resolved again on the tree as it
 * is now (a link may lead through another that the same apply wrote); one
 * that leads out is taken back at once. */
#ifndef AS_REVIEW_APPLY_H
#define AS_REVIEW_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "review_changes.h"
#include "review_filter.h"

typedef enum review_outcome {
    REVIEW_SKIPPED,      /* refused by the filter, or not chosen */
    REVIEW_APPLIED,
    REVIEW_CONFLICT,     /* changed on the host since the review started */
    REVIEW_FAILED,       /* could not be written: `why` */
} review_outcome_t;

typedef struct review_result {
    review_outcome_t outcome;
    char *why;           /* REVIEW_CONFLICT, REVIEW_FAILED: one line */
} review_result_t;

typedef struct review_apply_ctx {
    const char *root;           /* the host tree */
    const char *upper;          /* the review's upper layer */
    int64_t started_ns;         /* the review's start: host ctimes at or after it are conflicts */
    const char *journal_dir;    /* to be made: applied/<N> */
} review_apply_ctx_t;

/* Applies each change whose verdict allows it and `chosen[i]` is set;
 * results[i] says what became of it (results: c->n entries, zeroed; the
 * caller frees each `why`). Fails only when the journal cannot be
 * written (nothing more is changed then). */
int review_apply(const review_apply_ctx_t *ctx, const review_changes_t *c, const review_verdicts_t *v,
                 const bool *chosen, review_result_t *results, as_error_t **err);

/* Takes an apply back, newest change first. A path changed since the
 * apply is left and named in *ret_problems ("PATH: why" lines, NULL when
 * none). The journal is then renamed to journal_dir + ".undone". */
int review_undo(const char *journal_dir, const char *root, char **ret_problems, as_error_t **err);

#endif
