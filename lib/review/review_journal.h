/* The undo journal of one apply (review_apply.h): a directory with
 *   journal   records of six NUL-terminated fields: 'P' (the path as it was,
 *             written before the change) or 'W' (as apply left it), the
 *             path relative to the tree, its type (review_type_t, decimal),
 *             its mode (octal), its link target, and for 'P' the name of
 *             the saved bytes under saved/ (a file's), for 'W' "INO:CTIME_NS";
 *   saved/N   the old files' bytes.
 * Paths cannot hold a NUL, so no escaping is needed. Also the one opener of
 * host paths beneath the tree. */
#ifndef AS_REVIEW_JOURNAL_H
#define AS_REVIEW_JOURNAL_H

#include <stdbool.h>

#include "base/error.h"

typedef struct review_journal {
    int dir_fd;
    int file_fd;
    unsigned n_saved;
} review_journal_t;

/* rel beneath root_fd, through no symlink: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS), or each component opened with O_NOFOLLOW where
 * there is no openat2. -errno (-ELOOP for a link on the way). */
int review_open_beneath(int root_fd, const char *rel, int flags);

/* The directory holding rel's last component, beneath root_fd and through
 * no symlink (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS); *ret_name
 * points into rel. -errno. */
int review_open_parent(int root_fd, const char *rel, const char **ret_name);

/* Copies what is left to read of `in` to `out`; -errno. */
int review_copy_bytes(int in, int out);

/* Makes the journal's directory (it must not exist) and opens it. */
int review_journal_create(const char *dir, review_journal_t *j, as_error_t **err);
void review_journal_close(review_journal_t *j);

/* Records rel (at parent_fd/name on the host) as it is now: 'P' before a
 * change, 'W' after it. */
int review_journal_prior(review_journal_t *j, int parent_fd, const char *name, const char *rel, as_error_t **err);
int review_journal_after(review_journal_t *j, int parent_fd, const char *name, const char *rel, as_error_t **err);

/* Undoes the journal in dir on the tree root_fd, newest record first; the
 * paths that changed since are listed in *ret_problems. With only_rel set,
 * only that path's records (a link taken back right after its write). */
int review_journal_undo(const char *dir, int root_fd, const char *only_rel, char **ret_problems, as_error_t **err);

#endif
