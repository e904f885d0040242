/* The default command: run the agent (Claude Code unless --agent or the
 * settings file names another; with --exec, any command) in a new session,
 * and tear everything down afterwards whatever happens. Parse, load, run
 * to the end (lib/session/session_life.h), report. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "shared/session_list.h"
#include "run.h"
#include "run_options.h"
#include "base/signals.h"
#include "session/session_load.h"

int run_prepare(void)
{
    as_error_t *err = NULL;
    if (geteuid() == 0) {
        report("error: agent-sandbox runs rootless podman; run it as your normal user, not root");
        return EXIT_REFUSED;
    }
    int runtime_rc = runtime_dir_settle();
    if (runtime_rc != 0)
        return runtime_rc;
    if (signals_install(&err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    return 0;
}

int run_load(const session_request_t *req, session_inputs_t *in)
{
    return exit_code_of(session_load(req, &cli_say, in));
}

int run_loaded(const session_request_t *req, session_inputs_t *in)
{
    session_ending_t e;
    session_events_t ev = run_events;
    ev.say.ctx = (void *)req;
    session_life_run(req, in, signals_source(), &ev, &e);
    if (e.plan_text != NULL)
        fputs(e.plan_text, stdout);
    if (e.busy)
        session_list_name_busy(e.workdir);
    int rc = run_exit_code(req, &e);
    session_ending_clear(&e);
    return rc;
}

int run_session(const run_options_t *o)
{
    int rc = run_prepare();
    if (rc != 0)
        return rc;
    session_inputs_t in = {0};
    rc = run_load(&o->req, &in);
    /* A mistyped option or command is refused before any podman starts. */
    if (rc == 0 && run_options_check(o, in.agent) < 0)
        rc = EXIT_USAGE;
    if (rc == 0)
        rc = run_loaded(&o->req, &in);
    session_inputs_clear(&in);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    run_options_t o;
    int r = run_options_parse(argc, argv, &o);
    if (r < 0)
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE;
    if (o.help) {
        cli_usage(stdout);
        return 0;
    }
    if (o.version)
        return cmd_version();
    int rc = run_session(&o);
    run_options_clear(&o);
    return rc;
}
