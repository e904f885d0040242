/* One session from its options to its end (cmd/run/cmd_run.c): run_session
 * does it all; verify takes the steps one by one, to see the inputs the
 * session runs on (and not load them a second time). */
#ifndef AS_RUN_H
#define AS_RUN_H

#include "inputs.h"
#include "run_options.h"
#include "base/signal_source.h"
#include "config/agent_profile.h"
#include "config/allowlist.h"
#include "config/image_choice.h"
#include "config/resource_limits.h"
#include "config/user_settings.h"
#include "session/session.h"
#include "session/session_inputs.h"

/* What a session is made of besides its options: read once, before the
 * service starts (run_inputs_load), by a session and by verify alike. */
typedef struct run_inputs {
    /* What the loaders own; the session's inputs below borrow from them. */
    agent_profile_t *agent;
    image_choice_t image;    /* the session's image, why, and what builds it */
    char resolver[16];
    allowlist_t *allowlist;
    char *allowlist_path;        /* where `allow --save` adds names */
    user_settings_t settings;    /* the settings file's (notifications among them) */
    char *settings_path;
    host_identity_t identity;
    struct held_secrets *held;   /* the session's held secrets, or NULL (docs/secrets.md) */
    /* The plan's inputs as far as they are known before the launch: the
     * loaders fill them as they load (the limits, the egress path, the
     * user's ids and everything above), and run_loaded adds only what the
     * launch itself decides (the session's id, its directory, the
     * workspace, the review, the home). */
    session_inputs_t session;
    const signal_source_t *signals;
} run_inputs_t;

/* The session's image and why (cmd/run/load_image.c): 0 or an exit code,
 * reported. */
int load_image(const run_options_t *o, run_inputs_t *ri);
/* That image there and passing the image check (cmd/run/image_gate.c): 0, or
 * EXIT_NO_IMAGE after reporting (missing: what builds it; refused: why). */
int image_gate(cli_backend_t *b, const run_inputs_t *ri);
/* The image check of any image, reported ("image X: PROBLEM: refused
 * (WHY)"): 0, or EXIT_NO_IMAGE (*ret_missing when there is no such image,
 * not reported), or another exit code. */
int image_check_report(cli_backend_t *b, const char *image, const char *why, bool *ret_missing);

/* Refuses root, settles the runtime directory, installs the signal
 * handlers. 0 or an exit code, reported. */
int run_prepare(void);
/* The agent, the images, the egress network, the host's resolver, the
 * limits, the allowlist, the user's identity, the held secrets and the
 * ports to publish: 0 or an exit code, reported; run_inputs_clear either
 * way. */
int run_inputs_load(const run_options_t *o, run_inputs_t *ri);
void run_inputs_clear(run_inputs_t *ri);
/* The session on those inputs, to its end: the agent's exit code or the
 * CLI's. */
int run_loaded(const run_options_t *o, const run_inputs_t *ri);

/* The lines a session prints about itself (cmd/run/session_lines.c). */
typedef struct session_start {
    const char *id;
    const char *agent;       /* NULL: --exec */
    bool autonomy;           /* the agent's unattended mode is on */
    const char *workdir;
    bool tty;                /* `~.` works */
    const publish_t *publish;
    size_t n_publish;
} session_start_t;
/* "session ID (AGENT, autonomy on) in DIR; stop: ~. or agent-sandbox stop
 * ID; published: URL...", on stderr when it is a terminal. */
void session_start_line(const session_start_t *st);
/* The line that says `~.` was heard (session_on_escape); the terminal is
 * raw then, hence \r\n. */
const char *session_escape_heard(unsigned nth, void *ctx);
/* Who stopped the session and how the agent ended; nothing when it was
 * not stopped. */
void session_stopped_line(const session_result_t *res, bool tty);

/* All three: run_prepare, run_inputs_load, run_loaded. */
int run_session(const run_options_t *o);

#endif
