/* What every command that talks to podman takes: a session directory and
 * a private service listening in it (once started: a launch the policy
 * refuses never starts one), and the sweep of dead sessions' leftovers
 * that runs beside a session's set-up. */
#ifndef AS_BACKEND_H
#define AS_BACKEND_H

#include <stdbool.h>

#include "session_dir.h"
#include "session_say.h"
#include "base/error.h"
#include "base/signal_source.h"
#include "podman/podman_api.h"
#include "podman/service.h"

#define SERVICE_START_TIMEOUT_MS 30000L
#define SERVICE_STOP_TIMEOUT_MS  10000L

struct stale_sweep_job;

typedef struct backend {
    session_dir_t *dir;
    podman_service_t *service;       /* NULL until backend_service */
    podman_api_t *api;
    const signal_source_t *signals;  /* interrupt the service's start; may be NULL */
    struct stale_sweep_job *sweep;   /* a session's sweep while it runs (backend_sweep_begin) */
} backend_t;

/* The session directory alone; then the service in it (a no-op once it
 * runs); backend_start does both. */
int backend_open(const char *id, const signal_source_t *signals, backend_t *ret, as_error_t **err);
int backend_service(backend_t *b, as_error_t **err);
int backend_start(const char *id, const signal_source_t *signals, backend_t *ret, as_error_t **err);
/* A short container of this command's own: created, started, waited for
 * and removed whatever happens; its exit code in *ret_exit. */
int backend_run_once(backend_t *b, const podman_container_spec_t *spec, int *ret_exit, as_error_t **err);
/* Whether the service still answers (it may be dying unreaped); with none
 * of its own (b->service NULL, an API on someone else's), whether that
 * answers. */
bool backend_usable(backend_t *b);
/* Restart the service in the same directory (the first one died). */
int backend_restart(backend_t *b, as_error_t **err);
/* Stops the service and removes the directory; says what it cannot do. */
void backend_stop(backend_t *b, const session_say_t *to);
/* Lets go of both without stopping or removing them: a child
 * (session_finish.c) has them now. backend_stop then does nothing. */
void backend_detach(backend_t *b);

/* The sweep of dead sessions now (lib/session/stale.h); what it removed
 * said when `verbose` or when it removed anything. */
void backend_sweep(backend_t *b, const session_say_t *to, bool verbose);
/* A session's sweep: on a thread of its own with its own connection to the
 * service, since nothing of the new session waits for it, while its first
 * list waits for podman's locks whenever the previous session's removals
 * still run (bench/loop.sh). In line when no thread can start. */
void backend_sweep_begin(backend_t *b, const session_say_t *to);
/* Waits for it and says what it removed, if anything; a no-op when no
 * sweep runs. Before anything else is said on the agent's terminal, before
 * a fork (session_finish.c) and before the backend stops. */
void backend_sweep_end(backend_t *b, const session_say_t *to);

/* Whether `image` is in podman's storage and the version it was built
 * for (its agent-sandbox.version label; NULL when it has none). */
int image_status(podman_api_t *api, const char *image, bool *ret_present, char **ret_version,
                 as_error_t **err);

#endif
