/* Workspace protection in the CLI (lib/workspace): loads the protected paths,
 * freezes them just before the agent starts and, after teardown, warns about
 * anything that can run on the host and changed anyway. Each returns 0 or an
 * exit code, and reports what went wrong. */
#ifndef AS_WORKSPACE_CHECK_H
#define AS_WORKSPACE_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "workspace/workspace.h"

/* Reads the config files and plans the mounts; a malformed or unreadable
 * file gives EXIT_CONFIG with FILE:LINE and the rule. */
int workspace_check_load(const char *workdir, workspace_t **ret);

/* For --dry-run: the protected paths and pins. */
void workspace_check_describe(const workspace_t *ws, FILE *out);

/* Locks the tree (EXIT_REFUSED while another session overlaps it), creates
 * the placeholders and starts recording the before-state, which goes on
 * during the sandbox's set-up. */
int workspace_check_begin(workspace_t *ws);

/* Before the agent starts: waits for the before-state and writes the
 * session's journal (lib/workspace/workspace.h), so that the check runs even if this
 * CLI is killed. A journal that cannot be written refuses the session. */
int workspace_check_ready(workspace_t *ws, const char *session_id);

/* The agent's container has exited: the tree is walked from now on, while
 * the rest of the sandbox is torn down. */
void workspace_check_agent_exited(workspace_t *ws);

/* Removes the placeholders (only when container_gone), compares, warns;
 * removes the journal once the check ran. Does nothing when begin did not
 * run. */
void workspace_check_end(workspace_t *ws, bool container_gone);

/* Runs the end-of-session check of earlier sessions whose CLI was killed
 * before it (their journals), once their containers are gone, and says
 * what it found. */
struct podman_api;
void workspace_check_recover(struct podman_api *api);
/* Whether there is such a check to run (or no way to tell). */
bool workspace_check_pending(void);

#endif
