/* One session from its options to its end (cmd/run/cmd_run.c): parse ->
 * load -> run to the end -> report. run_session does it all; verify takes
 * the steps one by one, to judge the inputs the session ran on (and not
 * load them a second time). The session's life is lib/session's
 * (session_life.h); the CLI only reports it (session_lines.c). */
#ifndef AS_RUN_H
#define AS_RUN_H

#include "run_options.h"
#include "session/session_inputs.h"
#include "session/session_life.h"

/* Refuses root, settles the runtime directory, installs the signal
 * handlers. 0 or an exit code, reported. */
int run_prepare(void);
/* Every input, read once, before any podman (lib/session/session_load.h):
 * 0 or an exit code, reported; session_inputs_clear either way. */
int run_load(const session_request_t *req, session_inputs_t *in);
/* The session on those inputs, to its end: the agent's exit code or the
 * CLI's. */
int run_loaded(const session_request_t *req, session_inputs_t *in);
/* All three, and the options' check on the agent loaded. */
int run_session(const run_options_t *o);

/* What the CLI says of a session (cmd/run/session_lines.c): its events
 * (the start line on a terminal, `~.` heard, the egress lost, how the
 * agent ended), and its exit code from its ending. */
extern const session_events_t run_events;
int run_exit_code(const session_request_t *req, const session_ending_t *e);

#endif
