/* The private `podman system service`: the one podman process the CLI ever
 * starts. It listens on the session directory's socket and is started and
 * stopped by a keeper (lib/podman/service_keeper.h), which stops it when
 * the CLI is gone, however it ended, or when a child of the CLI that
 * still uses it after the prompt (lib/session/session_finish.c) is gone. Both sit in
 * their own process group, so the terminal's Ctrl-C reaches the CLI only. */
#ifndef AS_SERVICE_H
#define AS_SERVICE_H

#include <stdbool.h>
#include <sys/types.h>

#include "podman_api.h"
#include "base/error.h"
#include "base/signal_source.h"
#include "base/util.h"

typedef struct podman_service {
    pid_t pid;           /* podman's */
    pid_t keeper;        /* its parent, our child */
    pid_t parent;        /* the keeper's: it alone reads its status */
    int keeper_fd;       /* a pidfd: readable once the keeper has ended */
    int hold_fd;         /* the keeper's pipe (close-on-exec, kept by fork) */
    char *socket_path;
    char *log_path;
    int exit_status;     /* the service's waitpid status, through the keeper's */
    bool reaped;         /* ended (seen by any holder) */
} podman_service_t;

/* Starts `podman` (found on PATH) and waits, until `timeout_ms` has passed,
 * for its /_ping to answer; a terminating signal from `signals` (may be
 * NULL) stops the wait with -EINTR. On failure the service's own last
 * words are quoted. */
int podman_service_start(const char *socket_path, const char *log_path, long timeout_ms,
                         const signal_source_t *signals, podman_service_t **ret,
                         podman_api_t **ret_api, as_error_t **err);
/* Whether the service has ended; the first call that sees it ended reaps
 * the keeper (in the process that started it; a forked child of it sees the
 * end through the keeper's pidfd) and records its exit status. A NULL
 * service counts as ended. */
bool podman_service_reap_if_ended(podman_service_t *s);
/* SIGTERM, then SIGKILL after `timeout_ms`; waits for the keeper's end
 * (from a forked child of the CLI too). -ETIMEDOUT when it was killed. */
int podman_service_stop(podman_service_t *s, long timeout_ms, as_error_t **err);
void podman_service_free(podman_service_t *s);
DEFINE_CLEANUP_FUNC(podman_service_t, podman_service_free)

#endif
