/* What host git's protected configuration says about safe.bareRepository,
 * read without running git (lib/config/git_config.h says why the CLI never
 * does). With `explicit`, git takes a bare repository only where
 * --git-dir or GIT_DIR names it, so a repository an agent plants in a
 * launch tree is never discovered by a git command run there
 * (docs/workspace-protection.md). git honours the key only in its
 * protected configuration: the system and global files and the
 * command-line (GIT_CONFIG_COUNT) variables, in that order, the last one
 * winning. Includes are not followed. */
#ifndef AS_HOST_GIT_H
#define AS_HOST_GIT_H

#include "host_check.h"

/* The files git reads as system and global configuration, in its order:
 * the system file (GIT_CONFIG_SYSTEM, even empty, in place of /etc/gitconfig;
 * none when GIT_CONFIG_NOSYSTEM is true as git reads a boolean), then
 * git_global_files (git_global.h). envp as there; a NULL-terminated vector. */
int host_git_config_files(char *const *envp, char ***ret, as_error_t **err);

/* The check: OK for `explicit`, WARN otherwise, with the command that sets
 * it. `files` as above, each read by git_config_file_read; the
 * GIT_CONFIG_COUNT variables come from envp. */
int host_check_git_bare(char *const *files, char *const *envp, check_t *ret);

#endif
