/* The reviews on disk (docs/review.md): one directory per review session,
 *
 *   $XDG_STATE_HOME/agent-sandbox/reviews/<ID>/     (0700; ID: the session's)
 *     meta      "key value" lines: root, started, ended, session, image
 *     upper/    the overlay's upper layer: the record of every change,
 *               its paths relative to `root`
 *     work/     the overlay's work directory (never read)
 *     applied/  apply's undo journals (lib/review/review_changes' user)
 *     git/      apply's bundle of the agent's commits
 *
 * `ended` is written when the session ends; a review without it is one
 * whose CLI was killed, as complete as the upper layer it left. The store
 * is file-only: it knows nothing of podman or the session. */
#ifndef AS_REVIEW_STORE_H
#define AS_REVIEW_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct review_info {
    char *id;              /* 12 lower-case hex digits */
    char *root;            /* the host tree: the launch directory, absolute */
    char *dir;             /* reviews/<ID> */
    char *upper;           /* reviews/<ID>/upper */
    int64_t started_ns;    /* CLOCK_REALTIME before the agent started */
    int64_t ended_ns;      /* 0: none (the CLI was killed, or still runs) */
    char *image;           /* the session's image (apply bundles the agent's commits in it); may be NULL */
} review_info_t;

/* The reviews/ directory ($XDG_STATE_HOME/agent-sandbox/reviews). */
int review_store_dir(char **ret, as_error_t **err);

/* The review with this ID, or the one whose ID starts with this prefix:
 * -ENOENT when none, -EINVAL for an ambiguous prefix or one that is no
 * lower-case hex; the message says which. */
int review_store_load(const char *id_or_prefix, review_info_t *ret, as_error_t **err);

/* The newest review (by `started`) of this launch directory: what a
 * command without an ID is about. -ENOENT when it has none. */
int review_store_latest_for_root(const char *root, review_info_t *ret, as_error_t **err);

/* Every review, oldest first. A directory whose meta cannot be read is
 * an error that names it (never skipped: its changes would be lost from
 * view). */
int review_store_list(review_info_t **ret, size_t *ret_n, as_error_t **err);

/* A new review: reviews/<id>/ with upper/ and work/, and its meta without
 * `ended` (image may be NULL). -EEXIST when that review exists already. */
int review_store_create(const char *id, const char *root, const char *image, int64_t started_ns,
                        review_info_t *ret, as_error_t **err);

/* Records the end of the session in the meta (atomically rewritten). */
int review_store_end(review_info_t *r, int64_t ended_ns, as_error_t **err);

/* The bytes the review's upper layer takes on disk (allocated blocks). */
int review_store_usage(const review_info_t *r, uint64_t *ret_bytes, as_error_t **err);

/* Removes the review: first renamed to reviews/.removed-<ID> (no longer a
 * review), then removed whole (its upper layer may hold directories
 * without write permission and whiteout devices). What the overlay left
 * in work/work is owned by the container's root, out of the user's reach:
 * then *ret_left is that directory (to remove with `podman unshare rm -rf`),
 * else NULL. */
int review_store_remove(const review_info_t *r, char **ret_left, as_error_t **err);

/* The meta's text, pure: format and parse ("FILE:LINE: ..." on error;
 * `root`, `started` and `session` are required, `ended` and `image` optional, an
 * unknown key is an error). The parsed ID must equal `id`. */
char *review_meta_format(const review_info_t *r);
int review_meta_parse(const char *text, const char *file, const char *id, review_info_t *ret,
                      as_error_t **err);

/* Whether s is a review ID (12 lower-case hex digits). */
bool review_id_valid(const char *s);

void review_info_clear(review_info_t *r);
void review_list_free(review_info_t *v, size_t n);

#endif
