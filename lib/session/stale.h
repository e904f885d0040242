/* Removes the leftovers of sessions whose CLI is gone (SIGKILL, power cut,
 * crash). A session is live while its directory exists and its lock is
 * held; every labelled resource and directory of any other session is
 * removed. */
#ifndef AS_STALE_H
#define AS_STALE_H

#include <stddef.h>

#include "base/error.h"
#include "podman/podman_api.h"

typedef struct stale_report {
    size_t sessions;      /* distinct dead sessions found */
    size_t resources;     /* containers, pods, networks, volumes removed */
    size_t dirs;          /* session directories removed */
} stale_report_t;

/* `base` is $XDG_RUNTIME_DIR/agent-sandbox. `own_id` (may be NULL) is never
 * touched. Failures to remove one resource do not stop the sweep; the first
 * is reported after the rest were tried. */
int stale_sweep(podman_api_t *api, const char *base, const char *own_id,
                stale_report_t *ret, as_error_t **err);

#endif
