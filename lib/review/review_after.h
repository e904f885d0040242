/* The host tree as apply would leave it, seen as host git and python see
 * it: which directories git would take for a git directory, and which are
 * virtual environments. The default mode's end-of-session check asks this of
 * the tree after the session (lib/workspace: git_repo.h, python_env.h);
 * apply must ask it before writing, of the host tree with the review's
 * changes laid over it (docs/review-apply.md).
 *
 * An entry is there after apply when a change adds or modifies it, or when
 * no change deletes it, it is on the host, and every directory above it is
 * a host directory the review kept as one (an opaque or replaced directory
 * lists the host entries it deletes, review_changes.h). The host is only
 * read (lstat of names below directories that are no links); a name that
 * cannot be examined there counts as present, so that the verdict is the
 * stricter one. */
#ifndef AS_REVIEW_AFTER_H
#define AS_REVIEW_AFTER_H

#include "base/error.h"
#include "base/util.h"
#include "review_changes.h"

typedef struct review_after review_after_t;

/* For the changes c of the tree root (both kept, not copied). */
int review_after_new(const char *root, const review_changes_t *c, review_after_t **ret, as_error_t **err);
void review_after_free(review_after_t *a);
DEFINE_CLEANUP_FUNC(review_after_t, review_after_free)

/* For the path rel (a change's): the deepest directory above it that git
 * would take for a git directory after apply (a HEAD, and objects and refs
 * or a commondir: git_dir_shaped()), and the deepest one that is a virtual
 * environment (a pyvenv.cfg there after apply or on the host now: a venv of
 * the start counts as the default mode counts it). "" is the tree's top;
 * NULL: none. The strings live until the next call. Changes asked in their
 * list order reuse what was found for the directories they share. */
int review_after_context(review_after_t *a, const char *rel, const char **ret_repo, const char **ret_venv,
                         as_error_t **err);

#endif
