/* The workspace's protection around a session (lib/workspace): the
 * protected paths loaded, frozen just before the agent starts and, after
 * it, checked for anything that can run on the host and changed anyway;
 * the journal that lets a later CLI run the check when this one was
 * killed. Each step says what went wrong (session_say.h) and returns its
 * fault; `run`, `apply` and `cleanup` share them. */
#ifndef AS_SESSION_WORKSPACE_H
#define AS_SESSION_WORKSPACE_H

#include <stdbool.h>

#include "session_say.h"
#include "workspace/workspace.h"

/* Reads the config files and plans the mounts; a malformed or unreadable
 * file is SESSION_FAULT_CONFIG, with FILE:LINE and the rule. */
session_fault_t workspace_check_load(const char *workdir, const char *home, const char *host_path,
                                     const session_say_t *to, workspace_t **ret);

/* For --dry-run: the protected paths and pins, as lines of text. */
char *workspace_check_describe(const workspace_t *ws, const session_say_t *to);

/* Locks the tree (SESSION_FAULT_REFUSED, *ret_busy set, while another
 * session overlaps it), creates the placeholders and starts recording the
 * before-state, which goes on during the sandbox's set-up. */
session_fault_t workspace_check_begin(workspace_t *ws, const session_say_t *to, bool *ret_busy);

/* Before the agent starts: waits for the before-state and writes the
 * session's journal (lib/workspace/workspace.h), so that the check runs even
 * if this CLI is killed. A journal that cannot be written refuses the
 * session. */
session_fault_t workspace_check_ready(workspace_t *ws, const char *session_id, const session_say_t *to);

/* The agent's container has exited: the tree is walked from now on, while
 * the rest of the sandbox is torn down. */
void workspace_check_agent_exited(workspace_t *ws);

/* Removes the placeholders (only when container_gone), compares, says
 * what it found (the whole report kept in the state directory); removes
 * the journal once the check ran. Does nothing when begin did not run. */
void workspace_check_end(workspace_t *ws, bool container_gone, const session_say_t *to);

/* Runs the end-of-session check of earlier sessions whose CLI was killed
 * before it (their journals), once their containers are gone, and says
 * what it found. */
struct podman_api;
void workspace_check_recover(struct podman_api *api, const char *host_path, const session_say_t *to);
/* Whether there is such a check to run (or no way to tell). */
bool workspace_check_pending(void);

#endif
