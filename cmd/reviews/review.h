/* Review mode in the CLI (docs/review.md): the commands that read reviews:
 * diff, reviews, discard (cmd_review.c, review_diff.c), apply (cmd_apply.c,
 * review_git.c). A session's own review is lib/session/session_review.h's. */
#ifndef AS_CMD_REVIEW_H
#define AS_CMD_REVIEW_H

#include <stdio.h>

#include "review/review_store.h"
#include "session/session_review.h"

/* The review a command means: `arg` (an ID or a prefix), else the newest
 * of the current directory. 0, or an exit code after reporting. */
int review_pick(const char *arg, review_info_t *ret);

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
