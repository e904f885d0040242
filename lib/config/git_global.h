/* git's global configuration, found and read as git 2.39 does it (config.c
 * git_global_config and do_git_config_sequence; path.c xdg_config_home_for
 * and interpolate_path), without running git: the one reader of those files
 * for the sandbox's identity (git_identity.h) and for doctor's check of
 * safe.bareRepository (host_git.h).
 *
 * The environment is handed in as an envp (NAME=VALUE strings, NULL-terminated,
 * as execve takes it): the CLI passes its environ, a test passes the array it
 * also gives real git. Nothing here calls getenv. */
#ifndef AS_GIT_GLOBAL_H
#define AS_GIT_GLOBAL_H

#include <stddef.h>

#include "base/error.h"

/* The largest git config file read. git reads bigger ones; an identity or a
 * safe.* key lives in a small one. */
#define GIT_CONFIG_FILE_MAX (1024 * 1024)

/* NAME's value in envp, or NULL when it is not set (envp may be NULL). */
const char *git_env_get(char *const *envp, const char *name);

/* The files of git's global scope, in git's order (a later file's value wins):
 *  - GIT_CONFIG_GLOBAL set: that file alone; set but empty: no file at all;
 *  - else $XDG_CONFIG_HOME/git/config when XDG_CONFIG_HOME is non-empty
 *    (relative or not: git takes it as it is), else $HOME/.config/git/config;
 *    then $HOME/.gitconfig. HOME unset drops the paths under it; HOME empty
 *    gives /.config/git/config and /.gitconfig, as git's string pasting does.
 * A relative path stays relative: git reads it from its working directory.
 * NULL-terminated, possibly empty (strv.h). */
int git_global_files(char *const *envp, char ***ret, as_error_t **err);

/* Reads one git config file whole (file_read.h's policy, at most
 * GIT_CONFIG_FILE_MAX bytes, a symlink followed). 1 with the text; 0 for a
 * file git passes over without a word (access(2) fails with ENOENT, ENOTDIR
 * or EACCES: absent, under a non-directory, unreadable, a symlink to
 * nothing); a negative code with *err otherwise, its message naming the file. */
int git_config_file_read(const char *path, char **ret_text, size_t *ret_len, as_error_t **err);

#endif
