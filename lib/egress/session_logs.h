/* The router's logs, bounded while the session runs and afterwards. In the
 * router, a writer per log keeps at most ROUTER_LOG_MAX_BYTES of each file
 * in the session directory (under $XDG_RUNTIME_DIR) and counts the lines
 * past that in "<file>.dropped". After the session they are kept under
 * <state dir>/logs/<id>/ (lib/base/user_dirs.h):
 * the newest LOGS_KEPT sessions, fewer when together they would pass
 * LOGS_TOTAL_MAX_BYTES, and none older than LOGS_MAX_AGE_DAYS (the newest
 * is always kept). */
#ifndef AS_SESSION_LOGS_H
#define AS_SESSION_LOGS_H

#include <stddef.h>

#include "base/error.h"
#include "base/name_counts.h"

#define LOGS_KEPT 20
/* A plain number: it goes to the router as a command-line argument. */
#define ROUTER_LOG_MAX_BYTES 2097152
#define LOGS_TOTAL_MAX_BYTES (32L * 1024 * 1024)
#define LOGS_MAX_AGE_DAYS 30
#define ROUTER_LOG_FILES 3
#define LOG_DROPPED_SUFFIX ".dropped"

/* dns.log, egress.log, nginx-error.log */
extern const char *const router_log_files[ROUTER_LOG_FILES];

typedef struct egress_summary {
    size_t allowed;              /* connections allowed */
    size_t denied;               /* connections and name lookups refused */
    size_t dropped;              /* log lines past the ceiling, all logs */
    /* per name (lower case, raw: escape to print), the most first: */
    name_count_t *blocked;       /* refused connections and lookups (an A query each) */
    size_t n_blocked;
    name_count_t *unresolved;    /* allowed, but not resolved upstream */
    size_t n_unresolved;
    name_count_t *unreachable;   /* allowed, but the connection upstream failed */
    size_t n_unreachable;
    name_count_t *refused;       /* allowed names' requests refused by their rules (docs/secrets.md) */
    size_t n_refused;
    name_counts_t *counts[4];    /* own the names of the four */
} egress_summary_t;

void egress_summary_clear(egress_summary_t *s);

/* Copies the session's router logs (at most ROUTER_LOG_MAX_BYTES of each),
 * their dropped-line counts and the allowlist in effect at the end
 * (lib/egress/egress_state.h) from session directory `session_dir` into the state
 * directory; *ret_dest is where they went. Prunes older sessions' logs. */
int session_logs_keep(const char *session_dir, const char *id, char **ret_dest, as_error_t **err);

/* What dir's logs (a running session's router-log/, or a kept copy) say of
 * the agent's events (EGRESS_BY_AGENT: not the sandbox's own checks, not
 * verify's probes): the connections allowed, what was refused and what
 * could not be reached upstream, per name (lib/egress/egress_log.h), and
 * the lines the router's writers dropped (dir/<log>.dropped). */
int egress_log_summary(const char *dir, egress_summary_t *ret, as_error_t **err);

#endif
