/* The one filter between a review and the host tree (docs/review.md): a
 * verdict per change, refused with a one-line reason or allowed, with notes
 * on what apply changes on the way.
 *
 *   - only regular files, directories and symlinks: FIFOs, sockets and
 *     devices are refused, and so is what could not be examined;
 *   - nothing inside a `.git` directory lands as a file (the top one is
 *     marked `git`: its commits are for a git route, docs/review.md);
 *   - protected paths (the rules of lib/workspace, docs/workspace-protection.md,
 *     also copies deeper in the tree: `sub/.envrc`) only when the user names
 *     them with --include; they are then marked to be shown again;
 *   - a link only where it stays inside the tree as the default mode judges
 *     it (lib/workspace/link_resolve, to its end, on the host as it is), but
 *     venv's own bin/python* -> a python of the system;
 *   - no other version-control tool's metadata and no bytecode as files;
 *   - a module at the top named like one of the host python's, and an
 *     environment's bin/ entry named like a command on the host's PATH
 *     (lib/workspace/host_names, asked when apply runs), only with
 *     --include;
 *   - setuid, setgid and world-writable bits are dropped, a new executable
 *     bit is noted;
 *   - what sits below a refused directory, and a directory to delete or
 *     replace that holds a refused change, are refused too. */
#ifndef AS_REVIEW_FILTER_H
#define AS_REVIEW_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "review_changes.h"

typedef struct review_verdict {
    bool refused;
    char *reason;          /* refused: one line, no path in it */
    char *notes;           /* allowed: "; "-joined notes, or NULL */
    mode_t mode;           /* the permission bits apply writes */
    bool included;         /* a protected path the user named: shown again before writing */
    bool git;              /* inside the tree's top `.git`: the git route's, never a file's */
} review_verdict_t;

typedef struct review_filter {
    const char *root;                 /* the host tree, absolute, resolved */
    char *const *protected_paths;     /* the protection rules' paths, relative to root */
    size_t n_protected;
    char *const *include;             /* --include paths, relative to root, normalized */
    size_t n_include;
    const char *host_path;            /* the host's PATH, what names are judged against (NULL: none) */
} review_filter_t;

typedef struct review_verdicts {
    review_verdict_t *v;   /* one per change, in the changes' order */
    size_t n;
} review_verdicts_t;

int review_filter_judge(const review_filter_t *f, const review_changes_t *c, review_verdicts_t **ret,
                        as_error_t **err);
void review_verdicts_free(review_verdicts_t *v);
DEFINE_CLEANUP_FUNC(review_verdicts_t, review_verdicts_free)

/* The protection rule `rel` falls under ("a/.envrc" under ".envrc"), NULL
 * when none. Pure. */
const char *review_protected_rule(const review_filter_t *f, const char *rel);

/* Is rel inside a `.git` directory (or the `.git` itself), at any depth? 1
 * for the top one, 2 for one deeper, 0 for none. Pure. */
int review_git_depth(const char *rel);

#endif
