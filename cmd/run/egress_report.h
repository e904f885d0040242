/* What a session tells of its egress: the lines at its end
 * (egress_report.c) and the desktop notifications while it runs
 * (egress_notify.c). */
#ifndef AS_EGRESS_REPORT_H
#define AS_EGRESS_REPORT_H

#include "session/session_dir.h"

/* After a session: its router's logs kept in the state directory, and
 * what they say in a few lines (cmd/run/egress_report.c): what was blocked
 * and how to allow it, what could not be reached upstream, how many log
 * lines were dropped. Names are the agent's: escaped. */
void egress_report_end(const session_dir_t *dir);

/* Desktop notifications of a running session's refusals (cmd/run/egress_notify.c),
 * on a thread of their own; NULL when they cannot be had (silently). */
typedef struct egress_notices egress_notices_t;
egress_notices_t *egress_notices_start(const session_dir_t *dir);
void egress_notices_stop(egress_notices_t *n);

#endif
