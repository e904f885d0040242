/* Review mode around a session (docs/review.md): the review made before
 * the agent starts, summed up at the end (the filter's verdicts against
 * the protected paths), and removed whole (its overlay's scratch through a
 * short container: only podman's user namespace can); the summaries the
 * review commands show. */
#ifndef AS_SESSION_REVIEW_H
#define AS_SESSION_REVIEW_H

#include "session_say.h"
#include "review/review_store.h"

/* reviews/<id> for the launch directory and the session's image, its
 * start taken now (before the agent starts). */
session_fault_t review_session_begin(const char *id, const char *workdir, const char *image,
                                     const session_say_t *to, review_info_t *ret);

/* At the session's end: `ended` recorded, then a short summary of the
 * changes and the review's ID said (an empty review is removed). */
struct workspace;
void review_session_end(review_info_t *r, const struct workspace *ws, const session_say_t *to);

/* One line of a review's changes: "2 added, 1 changed, ..." (counts, mode
 * changes, links, what the filter refuses); NULL when out of memory or on
 * error (*err then says why). */
char *review_summary(const review_info_t *r, as_error_t **err);
struct review_changes;
struct review_verdicts;
char *review_summary_of(const struct review_changes *c, as_error_t **err);
/* The same with the filter's verdicts: how many it refuses. */
char *review_summary_judged(const struct review_changes *c, const struct review_verdicts *v, as_error_t **err);

/* Removes the review, the overlay's scratch in work/work too; a note names
 * what is left if that fails. */
session_fault_t review_remove(const review_info_t *r, const session_say_t *to);

#endif
