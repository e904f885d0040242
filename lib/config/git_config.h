/* Reading git's config files without running git: the CLI may never exec
 * host git (it would run what the agent configured). The parser follows
 * git's config.c (sections, "subsections", escapes, line continuations,
 * comments) and is conservative: whatever it cannot read is an error, and the
 * caller treats that as dangerous. */
#ifndef AS_GIT_CONFIG_H
#define AS_GIT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* One variable: key as git names it ("section.subsection.name": section and
 * name lowercased, the subsection as written), value decoded, or NULL for a
 * bare key (boolean true). Return non-zero to stop. */
typedef int (*git_config_fn)(void *ctx, const char *key, const char *value);

/* Calls fn for each variable of text, in order. 0 when all was read, fn's
 * non-zero return, or -EBADMSG (with *ret_line, 1-based, when not NULL) on
 * anything git would reject or that this parser does not read: a NUL byte,
 * a bad section header, an unterminated quote, an unknown escape. */
int git_config_parse(const char *text, size_t len, git_config_fn fn, void *ctx, unsigned *ret_line);

/* Is this a key that a plain `git init`, `git clone` (with --filter,
 * --mirror, --no-tags, --recurse-submodules, --sparse), `git remote add`,
 * `git branch -u`, `git submodule init` or `git sparse-checkout` writes, or
 * user.name/user.email? None of them makes git run a program: a whitelist,
 * so a key git adds tomorrow is refused rather than let through.
 * (core.worktree is allowed here; its value is the caller's to check.) */
bool git_config_key_allowed(const char *key);

/* Is this a key by which a command that only reads (git status, git log,
 * git diff, a prompt's git) reaches the network? A partial clone's:
 * `extensions.partialClone` and a promisor remote (`remote.*.promisor`,
 * `remote.*.partialCloneFilter`, the older `core.partialCloneFilter`) make
 * git fetch every object it lacks, on demand, from the remote's URL. A
 * plain clone writes none of them; `git clone --filter` does. */
bool git_config_key_fetches(const char *key);

#endif
