/* The launch directory, in two steps around the private service's start
 * (session_life.c starts it in one place, between them). launch_decide
 * applies the launch policy (lib/config/launch_policy) to the current
 * directory with no podman: with podman's storage location as cached by an
 * earlier session, and the path within PATH_MAX. A refusal that needs no
 * podman is final (said, a fault), so that it starts no podman at all.
 * launch_confirm, with the service running, asks podman for its storage
 * location where the decision rests on it (none cached, or a refusal as
 * podman's storage by the cached one) and decides again, then checks that
 * podman sees the same directory (its mount namespace); SESSION_OK and the
 * resolved directory (to mount) when allowed. */
#ifndef AS_SESSION_LAUNCH_H
#define AS_SESSION_LAUNCH_H

#include <stdbool.h>

#include "backend.h"
#include "session_inputs.h"
#include "session_say.h"

typedef struct launch {
    const session_env_t *vars;
    char *cwd, *config_dir, *file_path, *runtime_dir;
    struct launch_policy_file *file;
    struct launch_policy_result *result;
    bool storage_cached;       /* the decision used a cached storage location */
} launch_t;

session_fault_t launch_decide(const backend_t *b, const session_env_t *vars, const session_say_t *to, launch_t *l);
session_fault_t launch_confirm(const backend_t *b, const session_say_t *to, launch_t *l, char **ret_dir);
void launch_clear(launch_t *l);

#endif
