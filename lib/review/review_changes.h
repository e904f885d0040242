/* What a review changed: the overlay's upper directory walked against the
 * host tree it lies over, as a list of changes (docs/review.md).
 *
 * The upper directory is the record of the agent's writes: an entry there is
 * new, or a copy-up of a host entry (changed, or only touched: a copy-up with
 * the same content, mode and link target is no change). It is read the way
 * the agent's overlay read it: the kernel's overlayfs, mounted by rootless
 * podman with `userxattr` (docs/review.md). A deletion is its whiteout, a
 * character device 0/0 named as the entry; a directory that replaced the
 * host's whole (`rm -r d; mkdir d`) is opaque, its xattr
 * `user.overlay.opaque` "y", and each host entry below it that the upper
 * directory does not have is deleted. Another flavour's marker (`.wh.NAME`,
 * `.wh..wh..opq`, `user.fuseoverlayfs.opaque`) is a plain file or plain
 * data, as the agent saw it.
 *
 * The host is only read, never through a symlink (each level is opened with
 * O_NOFOLLOW from the one above): a host symlink where the upper layer has a
 * directory is a change of type, and nothing below it is looked up on the
 * host. What cannot be judged from the upper entry alone (an overlay
 * redirect or metacopy: the data lies elsewhere) is listed with `unexamined`
 * set, for the filter to refuse. */
#ifndef AS_REVIEW_CHANGES_H
#define AS_REVIEW_CHANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/util.h"

typedef enum review_kind {
    REVIEW_ADDED,      /* not on the host */
    REVIEW_MODIFIED,   /* on the host, different now: content, link target, type or mode */
    REVIEW_DELETED,    /* on the host, whited out (or below an opaque or replaced directory) */
} review_kind_t;

typedef enum review_type {
    REVIEW_NONE,       /* nothing there */
    REVIEW_FILE,
    REVIEW_DIR,
    REVIEW_SYMLINK,
    REVIEW_FIFO,
    REVIEW_SOCKET,
    REVIEW_CHAR,       /* a character device (not a whiteout) */
    REVIEW_BLOCK,
} review_type_t;

typedef struct review_change {
    char *path;                /* relative to the tree's root: "a/b" */
    review_kind_t kind;
    review_type_t type;        /* in the upper layer; REVIEW_NONE when deleted */
    review_type_t host_type;   /* on the host; REVIEW_NONE when added */
    mode_t mode, host_mode;    /* permission bits with setuid, setgid, sticky (07777) */
    off_t size, host_size;     /* regular files */
    char *target, *host_target;/* symlinks: what they say */
    bool content_changed;      /* bytes, link target or type differ (a modification's) */
    bool mode_changed;         /* permission bits differ (a modification's) */
    const char *unexamined;    /* static text: why this entry cannot be judged; NULL: it can */
} review_change_t;

typedef struct review_changes {
    review_change_t *v;        /* a directory before what is below it; names in byte order */
    size_t n;
} review_changes_t;

/* Walks `upper` against the host tree `root` (both absolute). A directory
 * that cannot be read, on either side, fails the walk with its path: a
 * partial list would look complete. */
int review_changes_list(const char *upper, const char *root, review_changes_t **ret, as_error_t **err);
void review_changes_free(review_changes_t *c);
DEFINE_CLEANUP_FUNC(review_changes_t, review_changes_free)

/* The whiteout test of the upper layer, pure (a 0/0 device cannot be made
 * without privilege, so the tests give it a struct stat): is this entry a
 * kernel-overlay whiteout? */
bool review_stat_is_whiteout(const struct stat *st);

/* The type of a struct stat's st_mode. */
review_type_t review_type_of(mode_t mode);

/* "file", "directory", "symlink", "FIFO", "socket", "character device", "block device". */
const char *review_type_name(review_type_t t);

/* Is `path` (relative) the change's path or below it, or is `path` empty? */
bool review_change_under(const review_change_t *c, const char *path);

#endif
