/* A session's removals (cmd/run/teardown.c): in line, or after the prompt. */
#ifndef AS_TEARDOWN_H
#define AS_TEARDOWN_H

#include <stdbool.h>

#include "shared/backend.h"
#include "session/session.h"
#include "workspace/workspace.h"

/* The removals now, with the service we have or a new one when it died;
 * what fails is reported with what is left. 0 when all is gone. */
int teardown_now(session_t *s, cli_backend_t *b);

/* Once the user's part of the session is done (the agent has exited, the
 * workspace checked, the egress told): the removals handed to a child that
 * keeps the session directory's lock (the stale sweep leaves its resources
 * alone); the tree's lock is let go of first (the next session in the
 * tree starts at once), so that the prompt comes back at once.
 * True in the CLI when the child took them (`b` is then detached: nothing
 * to stop); false when it could not be started (do them now). The child
 * never returns: it removes through the CLI's service, which its keeper
 * keeps for it (lib/podman/service_keeper.h), stops it, writes what failed
 * to the session's log directory (TEARDOWN_LOG) and marks it for the next
 * start (teardown_failures_tell). */
bool teardown_later(session_t *s, cli_backend_t *b, workspace_t *ws);

#define TEARDOWN_LOG "teardown.log"
#define TEARDOWN_FAILED "teardown.failed"

/* What the removals after earlier sessions' prompts could not do: told
 * once (the sweep that follows removes what they left). */
void teardown_failures_tell(void);

#endif
