/* What a session tells of its egress: the lines at its end and the desktop
 * notifications while it runs (session_egress.c). */
#ifndef AS_SESSION_EGRESS_H
#define AS_SESSION_EGRESS_H

#include "session_dir.h"
#include "session_say.h"

/* After a session: its router's logs kept in the state directory, and
 * what they say in a few lines: what was blocked and how to allow it, what
 * could not be reached upstream, how many log lines were dropped. Names are
 * the agent's: escaped. */
void session_egress_end(const session_dir_t *dir, const session_say_t *to);

/* Desktop notifications of a running session's refusals, on a thread of
 * their own; NULL when they cannot be had (silently). */
typedef struct egress_notices egress_notices_t;
egress_notices_t *egress_notices_start(const session_dir_t *dir);
void egress_notices_stop(egress_notices_t *n);

#endif
