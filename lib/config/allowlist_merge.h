/* One allowlist from two files: the user's allowed-hosts and the agent's
 * allowed-hosts.d/NAME (docs/agents.md), each parsed by allowlist_parse
 * first, so both are held to the same syntax and checks. */
#ifndef AS_ALLOWLIST_MERGE_H
#define AS_ALLOWLIST_MERGE_H

#include "allowlist.h"
#include "base/error.h"

/* Adds to `into` what `from` allows: a new name with its ports, the ports
 * an existing name lacks, the upstream networks not there yet. A name in
 * both is fine and not warned about (the two files are kept apart). Fails
 * past ALLOWLIST_MAX_ENTRIES or ALLOWLIST_MAX_NETS, leaving `into` with
 * what was added so far: the caller drops it. */
int allowlist_merge(allowlist_t *into, const allowlist_t *from, as_error_t **err);

#endif
