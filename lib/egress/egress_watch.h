/* Following a running session's router logs on a thread of its own, for
 * the first refusal of each name (lib/egress/egress_log.h): the desktop
 * notification. The thread never touches the agent's I/O; it reads the
 * logs every EGRESS_WATCH_INTERVAL_MS and calls back, on that thread, with
 * each name refused for the first time in the session (lower case, raw:
 * escape before showing). */
#ifndef AS_EGRESS_WATCH_H
#define AS_EGRESS_WATCH_H

#include <stdbool.h>

#include "base/error.h"

#define EGRESS_WATCH_INTERVAL_MS 250

/* Returns false to stop watching (nothing more to tell). */
typedef bool (*egress_refused_fn)(const char *name, void *ctx);

typedef struct egress_watch egress_watch_t;

/* log_dir: the session's router-log/. */
int egress_watch_start(const char *log_dir, egress_refused_fn fn, void *ctx, egress_watch_t **ret,
                       as_error_t **err);
/* Reads what is left, then stops the thread and waits for it; NULL is fine. */
void egress_watch_stop(egress_watch_t *w);

#endif
