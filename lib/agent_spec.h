/* The agent container's spec, derived from the session plan: what the agent
 * can see (one host path, its home volume, its own /tmp) and what it cannot
 * do (no capabilities, no new privileges). Pure: no API call, no file read. */
#ifndef AS_AGENT_SPEC_H
#define AS_AGENT_SPEC_H

#include <stddef.h>

#include "error.h"
#include "podman_api.h"
#include "session_plan.h"

#define AGENT_MAX_MOUNTS 128
#define AGENT_MAX_VOLUMES 4

typedef struct agent_spec {
    podman_container_spec_t spec;
    podman_mount_t mounts[AGENT_MAX_MOUNTS];
    size_t n_mounts;
    podman_named_volume_t volumes[AGENT_MAX_VOLUMES];
    size_t n_volumes;
} agent_spec_t;

/* Fills *ret; its strings point into the plan, valid while the plan lives. */
int agent_spec_build(const session_plan_t *p, agent_spec_t *ret, as_error_t **err);

/* Appends one mount; fails past AGENT_MAX_MOUNTS. */
int agent_spec_add_mount(agent_spec_t *a, const podman_mount_t *m, as_error_t **err);

#endif
