/* Where agent-sandbox keeps the user's files, by the XDG Base Directory
 * rules. The one place that knows these paths:
 *
 *   config   $XDG_CONFIG_HOME/agent-sandbox   else ~/.config/agent-sandbox
 *   state    $XDG_STATE_HOME/agent-sandbox    else ~/.local/state/agent-sandbox
 *   runtime  $XDG_RUNTIME_DIR                 else /run/user/UID when usable
 *
 * An XDG_CONFIG_HOME or XDG_STATE_HOME that is not an absolute path is
 * ignored, as the specification says.
 *
 * The runtime directory is podman's too (its sockets, its runroot), so the
 * fallback follows podman's rule: /run/user/UID stands in when it is a
 * directory owned by the user with owner rwx and no write for anyone else
 * (podman 4.3 asks the first two, later versions all three: where this
 * module falls back, every podman version does the same). Without it podman
 * would move its runroot to /tmp for good; this module refuses instead. */
#ifndef AS_USER_DIRS_H
#define AS_USER_DIRS_H

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"

/* HOME and the XDG variables, read here and nowhere else (secure_getenv:
 * none of them in a set-user-ID run), each as the environment has it,
 * NULL only when unset: the rules below, ours and podman's, are applied to
 * these same values. */
typedef struct user_env {
    const char *home;           /* HOME */
    const char *config_home;    /* XDG_CONFIG_HOME */
    const char *state_home;     /* XDG_STATE_HOME */
    const char *data_home;      /* XDG_DATA_HOME */
    const char *runtime_dir;    /* XDG_RUNTIME_DIR */
} user_env_t;
user_env_t user_env(void);

/* A file of podman's own configuration of this user, by podman's rule
 * (containers/storage's, not the XDG specification's): under
 * $XDG_CONFIG_HOME when it is set and not empty, relative or not, else
 * under $HOME/.config, HOME empty or unset meaning the user's home in the
 * password database. `rel`: "containers/storage.conf". NULL when there is
 * no home either, or no memory. */
char *user_podman_config_file(const char *rel);

/* $XDG_CONFIG_HOME/agent-sandbox or ~/.config/agent-sandbox; -ENOENT when
 * neither that variable nor HOME is an absolute path. */
int user_config_dir(char **ret_dir, as_error_t **err);
/* A file in the config directory: user_config_file("limits", ...). */
int user_config_file(const char *name, char **ret_path, as_error_t **err);
/* $XDG_STATE_HOME/agent-sandbox or ~/.local/state/agent-sandbox. */
int user_state_dir(char **ret_dir, as_error_t **err);

/* $XDG_RUNTIME_DIR when set: it must be an absolute path to a directory
 * owned by the caller (else -EINVAL, -ENOENT, -ENOTDIR or -EPERM, with a
 * message naming the variable and the fix). Unset or empty: /run/user/UID
 * when user_runtime_dir_check() accepts it, and *ret_fallback (may be NULL)
 * says so. */
int user_runtime_dir(char **ret_dir, bool *ret_fallback, as_error_t **err);

/* podman's rule for the fallback, for any path and uid: 0 when path is a
 * directory (symlinks followed) owned by uid, with owner rwx and no write
 * for group or others; else -errno and why, in a phrase ("it does not
 * exist", "it has mode 0755") that follows the path. */
int user_runtime_dir_check(const char *path, uid_t uid, as_error_t **err);

/* Creates path and each missing parent with mode 0700 (the XDG rule for
 * the directories it makes); an existing one is left as it is. */
int user_dir_create(const char *path, as_error_t **err);

#endif
