/* A session, first as pure data: every network, pod and container spec the
 * executor will ask podman for (router, forwarder and agent, with every
 * mount, sysctl, label and variable), computed from the inputs
 * (session_inputs.h) before any API call. The plan's layout is in
 * session_plan_data.h; this header builds, binds, frees and describes it.
 * Only what podman returns is missing from a new plan: the session
 * network's subnet, and what follows from it (the router's address, the
 * pod's DNS server, the forwarder's arguments, the rendered router files).
 * session_plan_bind fills those in, and it is pure as well. The plan is
 * printable (--dry-run) and unit-tested without podman, and the executor
 * (session.h) walks it. */
#ifndef AS_SESSION_PLAN_H
#define AS_SESSION_PLAN_H

#include "base/error.h"

#include "labels.h"
#include "session_inputs.h"
#include "session_plan_data.h"

/* The git identity's file in the session directory, which agent_spec.h
 * mounts. */
#define SESSION_GIT_CONFIG_FILE "gitconfig"

int session_plan_build(const session_inputs_t *in, session_plan_t **ret, as_error_t **err);
void session_plan_free(session_plan_t *p);
DEFINE_CLEANUP_FUNC(session_plan_t, session_plan_free)

/* Fills in what follows from the subnet podman assigned the session
 * network (egress_spec_bind, and the pod's DNS server). Pure. */
int session_plan_bind(session_plan_t *p, const char *subnet, as_error_t **err);

/* The mount points in the agent of every host path it is given (bind
 * mounts: the launch directory, the workspace's own, the rendered name
 * files), NULL-terminated; the strings point into the plan. verify takes the
 * host paths it expects in the agent from them. */
int session_plan_host_mounts(const session_plan_t *p, const char ***ret, as_error_t **err);

/* Describes the plan in words, for --dry-run. */
int session_plan_describe(const session_plan_t *p, char **ret, as_error_t **err);

#endif
