/* Workspace protection in the CLI (lib/workspace): loads the protected paths,
 * freezes them just before the agent starts and, after teardown, warns about
 * anything that can run on the host and changed anyway. Each returns 0 or an
 * exit code, and reports what went wrong. */
#ifndef AS_WORKSPACE_CHECK_H
#define AS_WORKSPACE_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "workspace.h"

/* Reads the config files and plans the mounts; a malformed or unreadable
 * file gives EXIT_CONFIG with FILE:LINE and the rule. */
int workspace_check_load(const char *workdir, workspace_t **ret);

/* For --dry-run: the protected paths and pins. */
void workspace_check_describe(const workspace_t *ws, FILE *out);

/* Locks the tree (EXIT_REFUSED while another session overlaps it), records
 * the before-state and creates the placeholders. */
int workspace_check_begin(workspace_t *ws);

/* Removes the placeholders (only when container_gone), compares, warns.
 * Does nothing when begin did not run. */
void workspace_check_end(workspace_t *ws, bool container_gone);

static inline void workspace_freep(workspace_t **ws)
{
    workspace_free(*ws);
}

#endif
