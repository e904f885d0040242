/* The user's git identity for commits made in the sandbox: user.name and
 * user.email of the host's global git config, and nothing else of it (no
 * include, alias, credential helper or any other key is looked at or passed
 * on). Read with the parser of lib/git_config: host git never runs.
 *
 * The sandbox gets it as git's system config (/etc/gitconfig, read-only),
 * the lowest level git reads: the agent's own global config and every
 * repository's config still override it, as on the host. */
#ifndef AS_GIT_IDENTITY_H
#define AS_GIT_IDENTITY_H

#include <stddef.h>

#include "base/error.h"

/* The longest name or email passed on. */
#define GIT_IDENTITY_VALUE_MAX 256

typedef struct git_identity {
    char *name;              /* user.name, or NULL */
    char *email;             /* user.email, or NULL */
} git_identity_t;

void git_identity_clear(git_identity_t *id);

/* Takes user.name and user.email from one file's text: a later value wins
 * over *id's; a key set without a value (`name` alone) unsets it. Text git's
 * syntax does not allow, or this parser does not read, fails with
 * "FILE:LINE: ..." and leaves *id as it was. */
int git_identity_parse(const char *file, const char *text, size_t len, git_identity_t *id,
                       as_error_t **err);

/* Reads each of `paths` in turn (git_global_files gives git's; each read
 * by git_config_file_read, which skips a file git skips). On failure *ret is
 * left alone. */
int git_identity_read(char *const *paths, git_identity_t *ret, as_error_t **err);

/* The system config the sandbox gets: a [user] section with what id has,
 * quoted and escaped for git. *ret is NULL when id has neither. A value with
 * a control character or over GIT_IDENTITY_VALUE_MAX bytes is refused (EINVAL,
 * naming the key): git would strip or reject it. */
int git_identity_render(const git_identity_t *id, char **ret, as_error_t **err);

#endif
