/* The agent container's spec, derived from the session plan: what the agent
 * can see (one host path, its home volume, its own /tmp) and what it cannot
 * do (no capabilities, no new privileges). Building it is pure (no API
 * call, no file read), so that it is unit-tested without podman.
 *
 * Nested podman (docs/nested-podman.md) needs nothing more of this spec than
 * the home volume: the image's containers.conf makes nested containers share
 * the agent's namespaces and bind its /proc and /sys, and native overlay
 * works on the volume. */
#ifndef AS_AGENT_SPEC_H
#define AS_AGENT_SPEC_H

#include <stddef.h>

#include "session_plan_data.h"
#include "base/error.h"
#include "config/agent_profile.h"
#include "podman/podman_api.h"

#define AGENT_MAX_MOUNTS 128
#define AGENT_MAX_VOLUMES 4
#define AGENT_MAX_ENV 256

/* The git identity (git_identity.h) is mounted as git's system config,
 * which the agent's own global config and every repository's override. */
#define AGENT_GIT_CONFIG "/etc/gitconfig"
#define AGENT_PASSWD_MAX 512

typedef struct agent_spec {
    podman_container_spec_t spec;
    podman_mount_t mounts[AGENT_MAX_MOUNTS];
    size_t n_mounts;
    podman_named_volume_t volumes[AGENT_MAX_VOLUMES];
    size_t n_volumes;
    char *env[AGENT_MAX_ENV + 1];       /* the plan's env and HOME, NULL-terminated */
    char passwd_entry[AGENT_PASSWD_MAX]; /* "" when podman's own entry stays */
} agent_spec_t;

/* Fills *ret. Its strings point into the plan (and its workspace), so it is
 * valid only while they live. It holds every mount: the launch directory,
 * /tmp, the workspace's protected paths and pins, the home and login, and
 * with a router the rendered /etc/hosts and /etc/resolv.conf.
 * With a home volume (or a private home) in the plan, the home is mounted at
 * AGENT_HOME and HOME points there unless the plan's env sets HOME itself;
 * a login volume is mounted at AGENT_LOGIN_DIR (the plan's env names it).
 * With the plan's user name, the agent's passwd entry carries that name and
 * its HOME; a git config is mounted read-only at AGENT_GIT_CONFIG. */
int agent_spec_build(const session_plan_t *p, agent_spec_t *ret, as_error_t **err);

/* Appends one mount; fails past AGENT_MAX_MOUNTS. */
int agent_spec_add_mount(agent_spec_t *a, const podman_mount_t *m, as_error_t **err);

#endif
