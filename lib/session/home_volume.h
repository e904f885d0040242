/* The agent's home and its login. By default each launch tree has a home of
 * its own, the volume "<prefix>-home-<dir>-<hash>", mounted at AGENT_HOME
 * (agent_spec.h); Claude's login (its credentials file) lives apart, in the
 * one volume "<prefix>-login" that every session mounts at AGENT_LOGIN_DIR,
 * so logging in once serves every project while nothing else of one
 * project's home is seen by another's sessions. A home named by the user
 * (AGENT_SANDBOX_HOME_VOLUME) is used as is, login included. These volumes
 * outlive sessions: they carry no session label, and neither teardown nor
 * the stale sweep removes them. */
#ifndef AS_HOME_VOLUME_H
#define AS_HOME_VOLUME_H

#include <sys/types.h>

#include "base/error.h"
#include "podman/podman_api.h"

#include "labels.h"
#define HOME_VOLUME_LABEL   LABEL_HOME
#define HOME_FOR_LABEL      LABEL_HOME_FOR   /* the launch tree a home belongs to */
#define LOGIN_VOLUME_LABEL  "agent-sandbox.login"
#define VOLUME_PREFIX_DEFAULT "agent-sandbox"

/* "<prefix>-home-<last component, sanitized>-<16 hex digits of a hash of
 * workdir>". Pure. */
int home_volume_project_name(const char *prefix, const char *workdir, char **ret,
                             as_error_t **err);

/* Creates the volume unless it exists, owned by the caller (the uid the agent
 * runs as under keep-id), then checks that its directory on the host is the
 * caller's, so that the agent owns its home on the first run and every later
 * one. Fails with the command that fixes the owner when it is not. With a
 * `project`, the volume is labelled with it, and an existing volume must
 * carry the same label: two trees never share a home by a clash of names. */
int home_volume_ensure(podman_api_t *api, const char *name, const char *project, as_error_t **err);

/* The ownership check alone: whether `mountpoint` is a directory owned by
 * `uid`. It is exposed so that tests can run it without podman. */
int home_volume_check_owner(const char *name, const char *mountpoint, uid_t uid, as_error_t **err);

/* How the login volume is made the first time. */
typedef struct login_migration {
    const char *legacy_home;        /* the old shared home, "<prefix>-home" */
    const char *image;              /* the sandbox image, which runs the copy */
    const char *container;          /* the name of the container that copies */
    const podman_label_t *labels;   /* the session's labels, so the sweep finds it */
    size_t n_labels;
    void (*on_copy)(void *ctx);     /* called before the copy, which takes seconds; may be NULL */
    void *on_copy_ctx;
} login_migration_t;

/* Creates the login volume unless it exists. When it is new and the legacy
 * shared home exists, Claude's credentials file is copied from there once,
 * in a container with no network and no capabilities (a symlink the old
 * home holds resolves inside that container, never on the host). If the
 * copy fails, the new volume is removed again, so the next start retries. */
int login_volume_ensure(podman_api_t *api, const char *name, const login_migration_t *m,
                        as_error_t **err);

#endif
