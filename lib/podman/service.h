/* The private `podman system service`: the one podman process the CLI ever
 * starts. It listens on the session directory's socket, dies with the CLI
 * (PR_SET_PDEATHSIG) and sits in its own process group, so the terminal's
 * Ctrl-C reaches the CLI only. */
#ifndef AS_SERVICE_H
#define AS_SERVICE_H

#include <stdbool.h>
#include <sys/types.h>

#include "podman_api.h"
#include "base/error.h"
#include "base/signal_source.h"
#include "base/util.h"

typedef struct podman_service {
    pid_t pid;
    char *socket_path;
    char *log_path;
    int exit_status;     /* waitpid status once reaped */
    bool reaped;
} podman_service_t;

/* Starts `podman` (found on PATH) and waits, until `timeout_ms` has passed,
 * for its /_ping to answer; a terminating signal from `signals` (may be
 * NULL) stops the wait with -EINTR. On failure the service's own last
 * words are quoted. */
int podman_service_start(const char *socket_path, const char *log_path, long timeout_ms,
                         const signal_source_t *signals, podman_service_t **ret,
                         podman_api_t **ret_api, as_error_t **err);
/* False once the process has exited (it is then reaped). */
bool podman_service_alive(podman_service_t *s);
/* SIGTERM, then SIGKILL after `timeout_ms`; reaps it. */
int podman_service_stop(podman_service_t *s, long timeout_ms, as_error_t **err);
/* The same from a child of the process that started it, which is ending:
 * not this process's to reap, so its end is seen through a pidfd. */
int podman_service_stop_inherited(podman_service_t *s, long timeout_ms, as_error_t **err);
void podman_service_free(podman_service_t *s);
DEFINE_CLEANUP_FUNC(podman_service_t, podman_service_free)

#endif
