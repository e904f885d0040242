/* Review mode in the CLI (docs/review.md): a session's review made before
 * the agent starts and summed up at its end (review_session.c); the
 * commands that read reviews: diff, reviews, discard (cmd_review.c,
 * review_diff.c). */
#ifndef AS_CMD_REVIEW_H
#define AS_CMD_REVIEW_H

#include <stdio.h>

#include "review/review_store.h"

/* reviews/<id> for the launch directory and the session's image, its start taken now (before the
 * agent starts). 0, or an exit code after reporting. */
int review_session_begin(const char *id, const char *workdir, const char *image, review_info_t *ret);

/* At the session's end: `ended` recorded, then a short summary of the
 * changes and the review's ID, reported. */
struct workspace;
void review_session_end(review_info_t *r, const struct workspace *ws);

/* One line of a review's changes: "2 added, 1 changed, ..." (counts, mode
 * changes, links, what the filter refuses); NULL when out of memory or on
 * error (*err then says why). */
char *review_summary(const review_info_t *r, as_error_t **err);
struct review_changes;
struct review_verdicts;
char *review_summary_of(const struct review_changes *c, as_error_t **err);
/* The same with the filter's verdicts: how many it refuses. */
char *review_summary_judged(const struct review_changes *c, const struct review_verdicts *v, as_error_t **err);

/* The review a command means: `arg` (an ID or a prefix), else the newest
 * of the current directory. 0, or an exit code after reporting. */
int review_pick(const char *arg, review_info_t *ret);

/* Removes the review, the overlay's scratch in work/work too (through a
 * short container: only podman's user namespace can); a note names what
 * is left if that fails. 0, or an exit code after reporting. */
int review_remove(const review_info_t *r);

/* cleanup's rule (docs/review.md): reviews that ended more than
 * REVIEW_KEEP_DAYS ago (or, killed, started more than that ago) are
 * removed, each named on `out`. 0, or an exit code after reporting. */
#define REVIEW_KEEP_DAYS 30
int review_cleanup(FILE *out);

/* apply's git route (cmd/reviews/review_git.c): the agent's commits as branch
 * agent-sandbox/<ID> of the host repository at the review's root, with a
 * line on stdout. 0, or -1 after saying why they are not brought over. */
int review_git_bring(const review_info_t *r);

#endif
