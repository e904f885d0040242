/* The running sessions as the commands show them (cmd/session_list.c). */
#ifndef AS_SESSION_LIST_H
#define AS_SESSION_LIST_H

#include <stdio.h>

#include "session/session_find.h"
#include "session/session_registry.h"

/* The running sessions (lib/session/session_registry.h), oldest first. 0 or an
 * exit code, reported. */
int sessions_load(session_entry_t ***ret, size_t *ret_n);
/* With AGENT_SANDBOX_TEST_ROOT set, drops from v (session_find_live's) the
 * sessions not launched in that directory or below it, as sessions_load
 * does: a test suite's `allow`, `deny` and `log` never pick a session of
 * the user's. */
void sessions_found_keep_test_root(session_found_t *v, size_t *n);
/* How the commands show a session's parts, escaped: the launch directory
 * ("~" for $HOME), the command, the age ("5m03s"); and the whole session
 * in one phrase ("session ID (PID N, in DIR, started AGE ago)"). */
void session_put_dir(FILE *f, const char *dir);
void session_put_command(FILE *f, char *const *command);
long long session_age(const session_entry_t *e);
void session_put_age(FILE *f, long long seconds);
char *session_describe(const session_entry_t *e);

#endif
