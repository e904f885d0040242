/* Changing a running session's allowlist from another process (`allow`,
 * `deny`): the files are re-rendered into the session directory, where the
 * router reads them (read-only), and the router is told to take them with
 * a SIGHUP through the session's own podman service; it answers in its log
 * directory (docs/router-protocol.md, "Live changes"). The agent keeps its
 * process and its open connections; the router keeps its privileges
 * (none).
 *
 * Nothing of this is reachable from inside the sandbox: the session
 * directory, its podman socket and the state here are never mounted into
 * the agent's container (docs/threat-model.md). */
#ifndef AS_EGRESS_LIVE_H
#define AS_EGRESS_LIVE_H

#include "egress_state.h"
#include "base/error.h"
#include "base/util.h"
#include "config/allowlist.h"

/* How long the router has to answer a change. */
#define EGRESS_LIVE_TIMEOUT_MS 10000L

typedef struct egress_live egress_live_t;

/* The egress state of the session in directory `dir`, with its change
 * lock held (one change at a time) until egress_live_close. */
int egress_live_open(const char *dir, egress_live_t **ret, as_error_t **err);
void egress_live_close(egress_live_t *l);
DEFINE_CLEANUP_FUNC(egress_live_t, egress_live_close)

const egress_state_t *egress_live_state(const egress_live_t *l);
/* The allowlist in effect. */
const allowlist_t *egress_live_allowlist(const egress_live_t *l);
/* The file the session started with, where `--save` adds; NULL when unknown. */
const char *egress_live_source(const egress_live_t *l);

/* Makes `al` the session's allowlist: every file rendered and written, the
 * router told, and its answer awaited. On a refusal or no answer, the
 * files are put back as they were and the error says why. The agent's
 * /etc/hosts is rewritten in place (its mount holds the file, not the
 * name). */
int egress_live_apply(egress_live_t *l, const allowlist_t *al, as_error_t **err);

#endif
