/* The pure half of bringing a review's commits over (docs/review-apply.md,
 * "Git"): the command that makes the bundle inside the container, and the
 * settings and environment of host git that fetches it. cmd/reviews/review_git.c
 * runs them. */
#ifndef AS_REVIEW_GIT_H
#define AS_REVIEW_GIT_H

#include <stdbool.h>

#include "base/error.h"

#define REVIEW_GIT_OUT     "/out"                 /* the review's git/ inside the container */
#define REVIEW_GIT_BUNDLE  "agent.bundle"
#define REVIEW_GIT_BRANCH  "agent-sandbox/"       /* + the review's ID */

/* `git ... -C ROOT bundle create /out/agent.bundle HEAD [^HOST_HEAD]`:
 * HEAD as the agent left it; the host's HEAD (a full hex object name, or
 * NULL) excluded so that only the agent's commits travel. NULL-terminated;
 * strv_free it. NULL when out of memory or host_head is no object name. */
char **review_git_bundle_argv(const char *root, const char *host_head);

/* Host git's first words, before the subcommand: the host repository's
 * own git dir named (no discovery from the tree), and every setting that
 * would run a program or a hook turned off, whatever a config says.
 * NULL-terminated, strv_free it. */
char **review_git_host_argv(const char *git_dir);

/* env without GIT_* (a caller's GIT_DIR, GIT_CONFIG_* and the like would
 * change what host git reads), plus GIT_TERMINAL_PROMPT=0 and
 * GIT_CONFIG_NOSYSTEM=1. NULL-terminated; strv_free it. */
char **review_git_host_env(char *const *env);

/* Whether s is a full object name (40 or 64 lower-case hex digits). */
bool review_git_object_name(const char *s);

#endif
