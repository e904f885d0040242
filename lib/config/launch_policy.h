/* Launch policy: decides, before anything is created, whether agent-sandbox
 * may launch from a directory, and which directory to mount.
 *
 * The rules are pure: everything they depend on (the environment, podman's
 * storage root, the text of allowed-paths) comes in through
 * launch_policy_input_t, and every path is resolved through a callback, so
 * tests can run them on a fake filesystem. A refusal is a result, not an
 * error: launch_policy_decide() fails only on bad input, an unresolvable
 * launch directory or lack of memory. Rules, file format and messages:
 * docs/launch-policy.md. */
#ifndef AS_LAUNCH_POLICY_H
#define AS_LAUNCH_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include "base/error.h"
#include "base/util.h"

/* Resolve an absolute path the way realpath(3) does (every symlink and ".."
 * followed). Return 0 and a malloc'd absolute path in *ret_resolved, or a
 * negative errno (-ENOENT when a component does not exist). */
typedef int (*launch_policy_resolve_fn)(void *ctx, const char *path, char **ret_resolved);

/* The default resolver: realpath(3). ctx is unused. */
int launch_policy_resolve_realpath(void *ctx, const char *path, char **ret_resolved);

typedef enum launch_policy_file_state {
    LAUNCH_POLICY_FILE_ABSENT,     /* no such file: the default root applies */
    LAUNCH_POLICY_FILE_PRESENT,    /* text/len hold its contents */
    LAUNCH_POLICY_FILE_UNREADABLE, /* there, but not readable: every launch is refused */
} launch_policy_file_state_t;

/* The allowed-paths file as the policy sees it. Filled by
 * launch_policy_file_read(), or by hand (tests) with borrowed strings. */
typedef struct launch_policy_file {
    launch_policy_file_state_t state;
    int read_errno;      /* UNREADABLE: why (positive errno) */
    const char *reason;  /* UNREADABLE: why, in words (lib/base/file_read.h); NULL = strerror */
    const char *text;    /* PRESENT: the bytes, which may include NULs */
    size_t len;
} launch_policy_file_t;

/* Read the allowed-paths file at path by the config-file policy
 * (lib/base/file_read.h). No file there is ABSENT; any other failure (permissions,
 * a directory or FIFO, a dangling symlink, a NUL byte or byte-order mark,
 * over 1 MiB) is UNREADABLE.
 * Fails only on a NULL path or lack of memory. Free with launch_policy_file_free(). */
int launch_policy_file_read(const char *path, launch_policy_file_t **ret_file, as_error_t **err);
void launch_policy_file_free(launch_policy_file_t **file);
DEFINE_CLEANUP_FUNC_REF(launch_policy_file_t, launch_policy_file_free)

typedef struct launch_policy_input {
    const char *launch_dir;        /* required, absolute: getcwd() */
    const char *home;              /* required, absolute, not "/": $HOME */
    const char *xdg_runtime_dir;   /* $XDG_RUNTIME_DIR; NULL or "" when unset */
    const char *path_env;          /* $PATH; NULL when unset (no entries) */
    const char *graphroot;         /* podman's store.graphRoot; NULL or "" = unknown
                                    * ($HOME/.local/share/containers is guarded anyway) */
    const char *config_dir;        /* required, absolute: agent-sandbox's config dir (user_dirs.h) */
    const char *allowed_paths_path;/* the file's path, for messages; NULL = <config_dir>/allowed-paths */
    const launch_policy_file_t *allowed_paths;  /* required */
    launch_policy_resolve_fn resolve;           /* NULL = launch_policy_resolve_realpath */
    void *resolve_ctx;
} launch_policy_input_t;

/* Which rule decided. The first eight apply whatever allowed-paths says. */
typedef enum launch_policy_rule {
    LAUNCH_POLICY_ALLOWED = 0,
    LAUNCH_POLICY_RULE_HOME_OR_PARENT,  /* $HOME itself or one of its parents, "/" included */
    LAUNCH_POLICY_RULE_SYSTEM_DIR,      /* in /run, /tmp, /var/tmp, /proc, /sys, /dev */
    LAUNCH_POLICY_RULE_SECRET_DIR,      /* is, holds or sits in ~/.ssh, ~/.gnupg, ~/.config */
    LAUNCH_POLICY_RULE_RUNTIME_DIR,     /* is, holds or sits in $XDG_RUNTIME_DIR */
    LAUNCH_POLICY_RULE_PODMAN_STORAGE,  /* is, holds or sits in podman's graphroot */
    LAUNCH_POLICY_RULE_CONFIG_DIR,      /* is, holds or sits in agent-sandbox's config dir */
    LAUNCH_POLICY_RULE_PATH_ENTRY,      /* is or holds a $PATH entry; any relative/empty entry */
    LAUNCH_POLICY_RULE_HOME_DOT_DIR,    /* a top-level dot-directory such as ~/.local itself */
    LAUNCH_POLICY_RULE_BAD_CONFIG,      /* allowed-paths unreadable or malformed */
    LAUNCH_POLICY_RULE_NO_ROOTS,        /* allowed-paths lists no roots */
    LAUNCH_POLICY_RULE_NOT_UNDER_ROOT,  /* not strictly under an allowed root */
} launch_policy_rule_t;

typedef struct launch_policy_result {
    launch_policy_rule_t rule;  /* LAUNCH_POLICY_ALLOWED, or the rule that refused */
    char *resolved_dir;         /* the launch dir, symlinks resolved: the path to mount */
    char *message;              /* refused: the text for the user, naming the rule
                                 * ("[rule: name]"), the file to edit and how; else NULL */
    char *conflict;             /* refused by a path rule: the protected path that
                                 * matched, normalized or resolved (a relative $PATH
                                 * entry as written); else NULL */
    unsigned config_line;       /* BAD_CONFIG on a malformed line: its 1-based number; else 0 */
    char **warnings;            /* NULL-terminated, never NULL; worth printing even when
                                 * allowed (a listed root that does not resolve) */
    size_t n_warnings;
} launch_policy_result_t;

/* Apply the rules to in->launch_dir. Returns 0 with a result whether allowed
 * or refused; a negative errno (EINVAL, ENOENT, ENOMEM...) with *err filled
 * when it cannot decide. */
int launch_policy_decide(const launch_policy_input_t *in, launch_policy_result_t **ret_result,
                         as_error_t **err);

static inline bool launch_policy_allowed(const launch_policy_result_t *r)
{
    return r != NULL && r->rule == LAUNCH_POLICY_ALLOWED;
}

/* Short stable name used in messages and docs: "home-or-parent", "path-entry"... */
const char *launch_policy_rule_name(launch_policy_rule_t rule);

void launch_policy_result_free(launch_policy_result_t **result);
DEFINE_CLEANUP_FUNC_REF(launch_policy_result_t, launch_policy_result_free)

#endif
