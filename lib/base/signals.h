/* Signals become bytes on a self-pipe, so the main loop can poll for them
 * next to its sockets and act in order (forward to the agent, tear down). */
#ifndef AS_SIGNALS_H
#define AS_SIGNALS_H

#include "error.h"
#include "signal_source.h"

/* Catches SIGINT, SIGTERM, SIGHUP and SIGWINCH; ignores SIGPIPE. */
int signals_install(as_error_t **err);
/* The process's signals as an event source (signal_source.h), for the
 * modules that wait; valid once installed. */
const signal_source_t *signals_source(void);
/* Restore default dispositions (for a child before exec). */
void signals_reset_for_child(void);

#endif
