/* Signals become bytes on a self-pipe, so the main loop can poll for them
 * next to its sockets and act in order (forward to the agent, tear down). */
#ifndef AS_SIGNALS_H
#define AS_SIGNALS_H

#include "error.h"

/* Catches SIGINT, SIGTERM, SIGHUP and SIGWINCH; ignores SIGPIPE. */
int signals_install(as_error_t **err);
/* Readable when a signal has arrived. */
int signals_fd(void);
/* Next pending signal, or 0 when none. */
int signals_next(void);
/* A terminating signal (INT, TERM, HUP) seen so far, or 0. */
int signals_terminating(void);
/* Restore default dispositions (for a child before exec). */
void signals_reset_for_child(void);

#endif
