/* The router's logs, bounded while the session runs and afterwards. In the
 * router, a writer per log keeps at most ROUTER_LOG_MAX_BYTES of each file
 * in the session directory (under $XDG_RUNTIME_DIR) and counts the lines
 * past that in "<file>.dropped". After the session they are kept under
 * <state dir>/logs/<id>/ (lib/user_dirs.h):
 * the newest LOGS_KEPT sessions, fewer when together they would pass
 * LOGS_TOTAL_MAX_BYTES (the newest is always kept). */
#ifndef AS_SESSION_LOGS_H
#define AS_SESSION_LOGS_H

#include <stddef.h>

#include "error.h"

#define LOGS_KEPT 20
/* A plain number: it goes to the router as a command-line argument. */
#define ROUTER_LOG_MAX_BYTES 2097152
#define LOGS_TOTAL_MAX_BYTES (32L * 1024 * 1024)
#define ROUTER_LOG_FILES 3
#define LOG_DROPPED_SUFFIX ".dropped"
#define SUMMARY_DENIED_NAMES 3

/* dns.log, egress.log, nginx-error.log */
extern const char *const router_log_files[ROUTER_LOG_FILES];

typedef struct egress_summary {
    size_t allowed;
    size_t denied;
    size_t dropped;                              /* log lines past the ceiling, all logs */
    char *denied_names[SUMMARY_DENIED_NAMES];    /* the first distinct ones, raw: escape to print */
} egress_summary_t;

void egress_summary_clear(egress_summary_t *s);

/* Copies the log files of `log_dir` (at most ROUTER_LOG_MAX_BYTES of each)
 * and their dropped-line counts into the state directory; *ret_dest is
 * where they went. Prunes older sessions' logs. */
int session_logs_keep(const char *log_dir, const char *id, char **ret_dest, as_error_t **err);

/* The verdicts in dir/egress.log (one JSON object per line) and the lines
 * the router's writers dropped, from dir/<log>.dropped. */
int egress_log_summary(const char *dir, egress_summary_t *ret, as_error_t **err);

#endif
