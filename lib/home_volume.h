/* The agent's home: one podman volume that every session mounts at
 * AGENT_HOME (agent_spec.h). It holds Claude's login and config and nested
 * podman's images, so it outlives sessions: it carries no session label, and
 * neither teardown nor the stale sweep removes it. */
#ifndef AS_HOME_VOLUME_H
#define AS_HOME_VOLUME_H

#include <sys/types.h>

#include "error.h"
#include "podman_api.h"

#define HOME_VOLUME_LABEL   "agent-sandbox.home"

/* Creates the volume unless it exists, owned by the caller (the uid the agent
 * runs as under keep-id), then checks that its directory on the host is the
 * caller's, so that the agent owns its home on the first run and every later
 * one. Fails with the command that fixes the owner when it is not. */
int home_volume_ensure(podman_api_t *api, const char *name, as_error_t **err);

/* The ownership check alone: `mountpoint` is a directory owned by `uid`.
 * Exposed for tests. */
int home_volume_check_owner(const char *name, const char *mountpoint, uid_t uid, as_error_t **err);

#endif
