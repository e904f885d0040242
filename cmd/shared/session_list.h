/* The running sessions as the commands show them (cmd/shared/session_list.c). */
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

/* The current directory, resolved as launch directories are; NULL when
 * it cannot be (removed, unreadable). */
char *cwd_resolved(void);
/* The session `command` (allow, deny, log, stop) is about when no ID is
 * given: of the sessions whose launch directories are `dirs` (newest
 * first), the one whose launch directory holds the current directory
 * (the deepest); else the only one running, when `only_ok`. 0 and
 * *ret_index; -ENOENT when none runs (not reported); EXIT_USAGE after
 * naming each with its directory ("which session?"); EXIT_INTERNAL. */
int session_default(const char *command, const char *const *ids, const char *const *dirs, size_t n,
                    bool only_ok, size_t *ret_index);
/* The same for the live sessions of allow, deny and log (newest first). */
int session_found_default(const char *command, const session_found_t *v, size_t n, size_t *ret_index);

/* The sessions whose tree overlaps `dir`, named (the one holding the
 * lock that refused a session there is among them). */
void session_list_name_busy(const char *dir);

#endif
