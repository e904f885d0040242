/* The sweep of dead sessions' leftovers (lib/session/stale.h) as the CLI
 * runs it: in line for `cleanup`, beside the set-up for a session. */
#ifndef AS_STALE_SWEEP_H
#define AS_STALE_SWEEP_H

#include <stdbool.h>

#include "backend.h"

/* Sweeps dead sessions now; says what it removed when `verbose`. */
void sweep_stale(cli_backend_t *b, bool verbose);

/* A session's sweep: on a thread of its own with its own connection to
 * the service, since nothing of the new session waits for it, while its
 * first list waits for podman's locks whenever the previous session's
 * removals still run (bench/loop.sh). In line when no thread can start. */
void sweep_stale_begin(cli_backend_t *b);
/* Waits for it and says what it removed, if anything; a no-op when no
 * sweep runs. Before anything else prints to the agent's terminal, before
 * a fork (cmd/run/teardown.c) and before the backend stops. */
void sweep_stale_end(cli_backend_t *b);

#endif
