/* The environment the CLI reads, read once (at the start of main) into one
 * struct: every variable that shapes a session or a command, so that two
 * parts of one run can never see two answers. Our own variables
 * (AGENT_SANDBOX_*) are NULL when unset or empty: none has a meaning when
 * empty. The host tools' (HOME, PATH) are as the environment has them,
 * NULL only when unset: podman and the shell each give an empty one a
 * meaning of their own. HOME and the XDG variables have one reader,
 * lib/base/user_dirs.h, which cli_env takes HOME from. git's variables are git's:
 * lib/config/git_global reads them from the environment handed to it, by
 * git's rules.
 * What a session hands the agent of the host's environment on purpose
 * (--env NAME) is read where it is asked for, in run_options.c. */
#ifndef AS_CLI_ENV_H
#define AS_CLI_ENV_H

#include <stddef.h>

#include "session/session_inputs.h"

typedef struct cli_env {
    /* what a session reads (lib/session/session_inputs.h): HOME, PATH and
     * our AGENT_SANDBOX_* variables of it */
    session_env_t vars;
    const char *pager;             /* PAGER (diff on a terminal; empty: none) */
    const char *trace;             /* AGENT_SANDBOX_TRACE */
    const char *test_root;         /* AGENT_SANDBOX_TEST_ROOT */
} cli_env_t;

/* The environment as it was at the first call (main makes that first). */
const cli_env_t *cli_env(void);

/* v, or fallback when v is NULL. */
static inline const char *cli_env_or(const char *v, const char *fallback)
{
    return v != NULL ? v : fallback;
}

#endif
