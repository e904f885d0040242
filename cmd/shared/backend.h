/* What every command that talks to podman takes: the runtime directory,
 * a session directory and a private service in it (cmd/shared/backend.c). */
#ifndef AS_BACKEND_H
#define AS_BACKEND_H

#include <stdbool.h>

#include "base/error.h"
#include "base/signal_source.h"
#include "podman/podman_api.h"
#include "podman/service.h"
#include "session/session_dir.h"

#define SERVICE_START_TIMEOUT_MS 30000L
#define SERVICE_STOP_TIMEOUT_MS  10000L

/* A session directory and a private service listening in it (once started:
 * a launch the policy refuses never starts one). */
typedef struct cli_backend {
    session_dir_t *dir;
    podman_service_t *service;       /* NULL until backend_service */
    podman_api_t *api;
    const signal_source_t *signals;  /* interrupt the service's start; may be NULL */
    struct stale_sweep_job *sweep;   /* a session's sweep while it runs (stale_sweep.h) */
} cli_backend_t;

/* Settles the runtime directory before anything else needs it: a set
 * XDG_RUNTIME_DIR must be the caller's directory; an unset one falls back to
 * /run/user/UID where podman would, exported for the service, with one line
 * saying so. 0, or an exit code after reporting (EXIT_NO_RUNTIME_DIR). */
int runtime_dir_settle(void);

/* The session directory alone; then the service in it (a no-op once it
 * runs); backend_start does both. */
int backend_open(const char *id, const signal_source_t *signals, cli_backend_t *ret, as_error_t **err);
int backend_service(cli_backend_t *b, as_error_t **err);
int backend_start(const char *id, const signal_source_t *signals, cli_backend_t *ret, as_error_t **err);
/* What a command other than a session does first: the runtime directory
 * settled, then a private service of its own. 0, or an exit code after
 * reporting (EXIT_NO_RUNTIME_DIR, EXIT_NO_SERVICE). */
int backend_start_command(cli_backend_t *ret);
/* A short container of this command's own: created, started, waited for
 * and removed whatever happens; its exit code in *ret_exit. */
int backend_run_once(cli_backend_t *b, const podman_container_spec_t *spec, int *ret_exit, as_error_t **err);
/* Whether the service still answers (it may be dying unreaped). */
bool backend_usable(cli_backend_t *b);
/* Restart the service in the same directory (the first one died). */
int backend_restart(cli_backend_t *b, as_error_t **err);
/* Stops the service and removes the directory; reports what it cannot do. */
void backend_stop(cli_backend_t *b);
/* Lets go of both without stopping or removing them: a child
 * (cmd/run/teardown.c) has them now. backend_stop then does nothing. */
void backend_detach(cli_backend_t *b);

/* Whether `image` is in podman's storage and the version it was built
 * for (its agent-sandbox.version label; NULL when it has none). */
int image_status(podman_api_t *api, const char *image, bool *ret_present, char **ret_version,
                 as_error_t **err);

#endif
