/* The router's logs outlive the session: every DNS query and every allowed
 * or denied connection, kept under <state dir>/logs/<id>/ (lib/user_dirs.h),
 * the newest LOGS_KEPT sessions only. */
#ifndef AS_SESSION_LOGS_H
#define AS_SESSION_LOGS_H

#include <stddef.h>

#include "error.h"

#define LOGS_KEPT 20

typedef struct egress_summary {
    size_t allowed;
    size_t denied;
} egress_summary_t;

/* Copies the log files of `log_dir` into the state directory; *ret_dest is
 * where they went. Prunes older sessions' logs. */
int session_logs_keep(const char *log_dir, const char *id, char **ret_dest, as_error_t **err);

/* Counts the verdicts in an egress log (one JSON object per line). */
int egress_log_summary(const char *path, egress_summary_t *ret, as_error_t **err);

#endif
