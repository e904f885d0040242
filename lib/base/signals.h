/* Signals become bytes on a self-pipe, so the main loop can poll for them
 * next to its sockets and act in order (forward to the agent, tear down). */
#ifndef AS_SIGNALS_H
#define AS_SIGNALS_H

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"
#include "signal_source.h"

/* Catches SIGINT, SIGTERM, SIGHUP and SIGWINCH; ignores SIGPIPE. */
int signals_install(as_error_t **err);
/* The process's signals as an event source (signal_source.h), for the
 * modules that wait; valid once installed. */
const signal_source_t *signals_source(void);
/* The first terminating signal caught and where it came from: the
 * sending process (0 when the kernel sent it, e.g. a closed terminal's
 * SIGHUP) and, for one sent with a value (sigqueue), that value. False
 * when none has come. */
typedef struct signal_sender {
    int signo;
    pid_t pid;
    bool queued;
    int value;
} signal_sender_t;
bool signals_first_sender(signal_sender_t *ret);

/* Restore default dispositions (for a child before exec). */
void signals_reset_for_child(void);

#endif
