/* What every command that talks to podman does first in the CLI (cmd/shared/
 * backend.c): the runtime directory settled, then a private service of its
 * own (lib/session/backend.h); and how a session's words reach the user
 * (cli_say) and its faults become exit codes. */
#ifndef AS_CLI_BACKEND_H
#define AS_CLI_BACKEND_H

#include "session/backend.h"
#include "session/session_say.h"

/* Settles the runtime directory before anything else needs it: a set
 * XDG_RUNTIME_DIR must be the caller's directory; an unset one falls back to
 * /run/user/UID where podman would, exported for the service, with one line
 * saying so. 0, or an exit code after reporting (EXIT_NO_RUNTIME_DIR). */
int runtime_dir_settle(void);

/* What a command other than a session does first: the runtime directory
 * settled, then a private service of its own. 0, or an exit code after
 * reporting (EXIT_NO_RUNTIME_DIR, EXIT_NO_SERVICE). */
int backend_start_command(backend_t *ret);

/* A session's lines, reported (report(), with their level's prefix), and
 * its progress shown (progress_show); cli_say has both. */
void cli_say_line(say_level_t level, const char *text, void *ctx);
void cli_say_progress(const char *what, void *ctx);
extern const session_say_t cli_say;
/* The exit code of a fault (cli.h). */
int exit_code_of(session_fault_t fault);

#endif
