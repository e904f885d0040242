/* The default command: run the agent (Claude Code unless --agent or the
 * settings file names another; with --exec, any command) in a new session,
 * and tear everything down afterwards whatever happens. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "egress_report.h"
#include "inputs.h"
#include "run.h"
#include "run_options.h"
#include "reviews/review.h"
#include "teardown.h"
#include "shared/stale_sweep.h"
#include "shared/workspace_check.h"
#include "base/escape.h"
#include "base/signal_source.h"
#include "base/signals.h"
#include "base/strv.h"
#include "base/terminal.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "config/allowlist.h"
#include "config/publish.h"
#include "egress/held_secrets.h"
#include "egress/resolv_conf.h"
#include "egress/session_logs.h"
#include "podman/attach_stream.h"
#include "podman/exec_failure.h"
#include "session/home_volume.h"
#include "session/session.h"
#include "session/session_plan.h"
#include "session/session_registry.h"

/* In a release build, the image is of this release. */
static int check_release(cli_backend_t *b, const char *image, const char *kind, const char *env_name)
{
#if AS_RELEASE_BUILD
    /* A release runs only images of its own version. */
    as_error_t *err = NULL;
    _cleanup_free_ char *version = NULL;
    if (podman_image_label(b->api, image, LABEL_VERSION, &version, &err) < 0) {
        report_error(&err);
        return EXIT_SETUP;
    }
    if (version == NULL || strcmp(version, AS_VERSION) != 0) {
        report("error: the %s image %s is of version %s, but this is agent-sandbox %s; rebuild it "
               "for this version (see above) or set %s", kind, image, version ? version : "(unknown)",
               AS_VERSION, env_name);
        return EXIT_NO_IMAGE;
    }
#else
    (void)b, (void)image, (void)kind, (void)env_name;
#endif
    return 0;
}

/* The router's image is there (and, in a release build, of this release):
 * else say exactly how to build it. Building is left to the user: it
 * needs a base image from a registry and takes minutes. (The session's
 * own image: image_gate.) */
static int check_image(cli_backend_t *b, const char *image, const char *kind, const char *env_name)
{
    as_error_t *err = NULL;
    bool present = false;
    if (podman_image_exists(b->api, image, &present, &err) < 0) {
        report_error(&err);
        return EXIT_SETUP;
    }
    if (!present) {
        char context[PATH_MAX];
        snprintf(context, sizeof(context), "%s/images/%s", AS_DATADIR, kind);
        if (access(context, R_OK) == 0)
            report("error: the %s image %s is missing; build it once with:\n"
                   "    podman build -t %s %s\n(or set %s to an image you have)",
                   kind, image, image, context, env_name);
        else
            report("error: the %s image %s is missing; build it with `make images` in the "
                   "source tree (or set %s to an image you have)", kind, image, env_name);
        return EXIT_NO_IMAGE;
    }
    return check_release(b, image, kind, env_name);
}

/* Mid-session, possibly with the terminal raw: one line, then go on. */
static const char *egress_lost(void *ctx)
{
    (void)ctx;
    return "\r\nagent-sandbox: the egress router stopped: the sandbox has no network access now (it "
           "fails closed)\r\n";
}

/* The init could not execute the command: say so, naming it, and return
 * what a shell would (127 not found, 126 not executable). */
static int exec_failed(const char *command, const char *reason)
{
    _cleanup_free_ char *name = path_escaped(command);
    bool not_found = exec_failure_not_found(reason);
    report("error: cannot run %s in the sandbox: %s%s", name != NULL ? name : "the command", reason,
           not_found ? " (no such command on the image's PATH or in the launch directory)" : "");
    return not_found ? EXIT_NOT_FOUND : EXIT_NOT_EXEC;
}

/* The exit code of a session whose agent ran: its own, or the CLI's when it
 * was ended from outside, its status was lost, its output could not be
 * written, or its command could not be executed. */
static int agent_outcome(const char *command, const attach_io_t *io, const session_result_t *res)
{
    if (res->end == SESSION_AGENT_REMOVED) {
        report("error: the agent's container was removed from outside the session "
               "(podman rm); the agent did not finish");
        return EXIT_AGENT_REMOVED;
    }
    if (res->end == SESSION_MONITOR_DIED) {
        report("error: the agent's monitor (conmon) died mid-session; the agent's exit status is lost");
        return EXIT_SERVICE_LOST;
    }
    const attach_result_t *out = &res->io;
    if (out->output_dropped > 0)
        report("note: the last %zu bytes of the agent's output were dropped at the stop: their reader "
               "had stopped taking any", out->output_dropped);
    if (out->output_errno != 0 && out->output_errno != EPIPE) {
        report("error: writing the agent's output to %s failed: %s; the agent was stopped",
               out->output_errno_on_err ? "stderr" : "stdout", strerror(out->output_errno));
        return EXIT_OUTPUT;
    }
    char reason[EXEC_FAILURE_HELD_MAX];
    if (exec_failure_reason(&out->exec, reason, sizeof(reason)) != NULL) {
        if (res->exit_code == 1)
            return exec_failed(command, reason);
        /* the command ran after all and wrote this itself: pass it on */
        if (write(io->multiplexed ? io->err_fd : io->out_fd, out->exec.held, out->exec.len) < 0) { }
    }
    /* EPIPE: the reader went away and the agent ended as a shell's writer
     * would; its own status (141 for SIGPIPE) is the answer */
    return res->exit_code;
}

/* --dry-run: the plan, the image's origin and the protected paths, on stdout. */
static int print_plan(const session_plan_t *plan, const run_inputs_t *ri, const workspace_t *ws)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *text = NULL;
    if (session_plan_describe(plan, &text, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    fputs(text, stdout);
    printf("image %s, chosen by %s\n", ri->image.ref, ri->image.reason);
    workspace_check_describe(ws, stdout);
    return 0;
}

/* Starts the agent and pumps its streams to its end: its exit code or the
 * CLI's. *ret_exited: the agent's container has exited (it can write nothing any
 * more). */
static int run_agent(const run_options_t *o, cli_backend_t *b, session_t *s, const session_plan_t *plan,
                     bool *ret_exited)
{
    *ret_exited = false;
    bool tty = plan->tty;
    as_error_t *err = NULL;
    attach_io_t io = {
        .in_fd = o->in_fd, .out_fd = o->out_fd, .err_fd = o->err_fd,
        .multiplexed = !tty, .close_write_on_eof = !tty, .escape = tty,
    };
    if (tty && terminal_enter_raw(o->in_fd, &err) < 0) {
        report_error(&err);
        return EXIT_SETUP;
    }
    session_result_t res;
    session_on_egress_lost(s, egress_lost, NULL);
    session_on_escape(s, session_escape_heard, NULL);
    int r = session_run(s, &io, &res, &err);
    terminal_restore();
    *ret_exited = r == 0 && res.end == SESSION_AGENT_EXITED;
    if (r == 0) {
        session_stopped_line(&res, tty);
        return agent_outcome(plan->command[0], &io, &res);
    }
    if (!backend_usable(b)) {
        as_error_free(&err);
        report("error: the private podman service stopped mid-session; the agent's "
               "exit status is unknown");
        return EXIT_SERVICE_LOST;
    }
    report_error(&err);
    return EXIT_SETUP;
}

/* The volumes that hold the agent's home (home_volume.h): the one named by
 * AGENT_SANDBOX_HOME_VOLUME, used as is; else the launch tree's own home
 * and the login apart. The names are set in `in` and owned by `names`. */
typedef struct home_names {
    char *home, *login, *legacy;
} home_names_t;

static void home_names_clear(home_names_t *h)
{
    free(h->home);
    free(h->login);
    free(h->legacy);
}

static int home_inputs(const run_options_t *o, const char *workdir, session_inputs_t *in,
                       home_names_t *names)
{
    in->private_home = o->private_home;
    if (o->private_home)
        return 0;
    const char *named = cli_env()->home_volume;
    if (named != NULL) {
        in->home_volume = named;
        return 0;
    }
    const char *prefix = cli_env_or(cli_env()->volume_prefix, VOLUME_PREFIX_DEFAULT);
    as_error_t *err = NULL;
    if (home_volume_project_name(prefix, workdir, &names->home, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    if (asprintf(&names->login, "%s-login", prefix) < 0 ||
        asprintf(&names->legacy, "%s-home", prefix) < 0)
        return EXIT_INTERNAL;
    in->home_volume = names->home;
    in->home_per_project = true;
    in->login_volume = names->login;
    in->legacy_home = names->legacy;
    return 0;
}


/* Every host port to publish is free now: else nothing starts (a port taken
 * between this and podman's listener stops the set-up as well). */
static int publish_ports_free(const run_options_t *o)
{
    for (size_t i = 0; i < o->n_publish; i++) {
        as_error_t *err = NULL;
        if (publish_host_port_check(&o->publish[i], &err) < 0) {
            as_error_prefix(&err, "--publish %u:%u", o->publish[i].host_port, o->publish[i].port);
            report_error(&err);
            return EXIT_SETUP;
        }
    }
    return 0;
}

/* The session's inputs that borrow what the loaders own, once all of them
 * are loaded. */
static void session_inputs_borrow(run_inputs_t *ri)
{
    session_inputs_t *in = &ri->session;
    in->image = ri->image.ref;
    in->agent = ri->agent;
    in->held = ri->held;
    in->resolver = ri->resolver;
    in->allowlist = ri->allowlist;
    in->allowlist_path = ri->allowlist_path;
    in->user_name = ri->identity.user_name;
    in->git_config = ri->identity.git_config;
    in->uid = getuid();
    in->gid = getgid();
}

/* The agent, the images, the egress network, the host's resolver, the
 * limits, the allowlist, the user's identity, the held secrets and the
 * ports to publish. 0 or an exit code, reported. */
int run_inputs_load(const run_options_t *o, run_inputs_t *ri)
{
    as_error_t *err = NULL;
    ri->signals = signals_source();
    /* The settings file is read once: the agent, the notifications and the
     * identity all come from it. */
    int rc = load_settings(&ri->settings, &ri->settings_path);
    if (rc == 0)
        rc = load_agent(o->agent, &ri->settings, ri->settings_path, &ri->agent);
    if (rc == 0)
        rc = load_image(o, ri);
    if (rc != 0)
        return rc;
    const cli_env_t *env = cli_env();
    ri->session.router_image = cli_env_or(env->router_image, DEFAULT_ROUTER_IMAGE);
    ri->session.egress_network = cli_env_or(env->egress_network, DEFAULT_EGRESS_NETWORK);
    const char *resolver_env = env->resolver;
    if (resolver_env != NULL) {
        snprintf(ri->resolver, sizeof(ri->resolver), "%s", resolver_env);
        if (strlen(resolver_env) >= sizeof(ri->resolver)) {
            report("error: AGENT_SANDBOX_RESOLVER=%s is not an IPv4 address", resolver_env);
            return EXIT_USAGE;
        }
    } else if (resolv_conf_host_resolver(ri->resolver, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    rc = load_limits(o->memory, o->pids, o->cpus, &ri->session.limits, &ri->session.cgroups);
    if (rc == 0)
        rc = load_allowlist(ri->agent, &ri->allowlist, &ri->allowlist_path);
    if (rc == 0)
        rc = host_identity_load(&ri->settings, ri->settings_path, &ri->identity);
    /* The held secrets come last because they need the agent's profile and
     * the allowlist. */
    if (rc == 0)
        rc = load_secrets(o->secrets, o->env, &ri->agent->secrets, ri->allowlist, &ri->held);
    if (rc == 0)
        session_inputs_borrow(ri);
    return rc != 0 ? rc : publish_ports_free(o);
}

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

void run_inputs_clear(run_inputs_t *ri)
{
    allowlist_free(ri->allowlist);
    host_identity_clear(&ri->identity);
    free(ri->allowlist_path);
    user_settings_clear(&ri->settings);
    free(ri->settings_path);
    agent_profile_free(ri->agent);
    image_choice_clear(&ri->image);
    held_secrets_free(ri->held);
    *ri = (run_inputs_t){0};
}

int run_session(const run_options_t *o)
{
    int rc = run_prepare();
    if (rc != 0)
        return rc;
    run_inputs_t ri = {0};
    rc = run_inputs_load(o, &ri);
    /* A mistyped option or command is refused before any podman starts. */
    if (rc == 0 && run_options_check(o, ri.agent) < 0)
        rc = EXIT_USAGE;
    if (rc == 0)
        rc = run_loaded(o, &ri);
    run_inputs_clear(&ri);
    return rc;
}

/* The agent starts in its unattended mode: --autonomy, --no-autonomy or
 * the setting, for an agent that has one, never for --exec. */
static bool autonomy_on(const run_options_t *o, const run_inputs_t *ri)
{
    bool wanted = o->autonomy == AUTONOMY_SETTING ? ri->settings.autonomy : o->autonomy == AUTONOMY_ON;
    return wanted && !o->exec && agent_profile_has_autonomy(ri->agent);
}

/* The plan of this session: every spec, from the inputs (and the
 * workspace's mounts, as they are now). 0 or an exit code, reported. */
static int plan_session(const run_options_t *o, const run_inputs_t *ri, const cli_backend_t *b,
                        const char *workdir, const workspace_t *ws, const review_info_t *review,
                        session_plan_t **ret)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *work = NULL;
    if (review != NULL && asprintf(&work, "%s/work", review->dir) < 0)
        return EXIT_INTERNAL;
    /* The loaded inputs, with what this launch's options and directory
     * decide (verify loads a session's inputs, then launches its probe with
     * options of its own). */
    _cleanup_(strv_freep) char **agent_env = NULL;
    if (ri->held != NULL && held_secrets_agent_env(ri->held, o->env, &agent_env, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    session_inputs_t in = ri->session;
    in.command = o->command;
    in.env = agent_env != NULL ? agent_env : o->env;
    in.publish = o->publish;
    in.n_publish = o->n_publish;
    in.verify = o->verify;
    in.id = b->dir->id;
    in.cli_pid = getpid();
    in.workdir = workdir;
    in.session_dir = b->dir->path;
    in.workspace = ws;
    in.agent_args = !o->exec;
    in.autonomy = autonomy_on(o, ri);
    in.tty = o->allow_tty && isatty(o->in_fd) && isatty(o->out_fd);
    in.review_upper = review != NULL ? review->upper : NULL;
    in.review_work = work;
    home_names_t homes = {0};
    int rc = home_inputs(o, workdir, &in, &homes);
    if (rc == 0 && session_plan_build(&in, ret, &err) < 0) {
        report_error(&err);
        rc = EXIT_USAGE;
    }
    home_names_clear(&homes);     /* the plan holds copies */
    return rc;
}

/* Set-up, the agent's run and teardown, whatever happens: the agent's exit
 * code or the CLI's. In review mode the workspace's guard and end-of-
 * session check stay out (they write the host tree: placeholders, what
 * they disable) and the review is made and summed up instead. */
static int run_planned(const run_options_t *o, const run_inputs_t *ri, cli_backend_t *b,
                       const char *workdir, workspace_t *ws)
{
    as_error_t *err = NULL;
    session_plan_t *plan = NULL;
    session_t *s = NULL;
    _cleanup_(review_info_clear) review_info_t review = { 0 };
    bool reviewing = o->review || ri->settings.review;
    bool exited = false;     /* the agent's exit seen: its processes are gone */
    int rc;
    if ((rc = image_gate(b, ri)) != 0 || (rc = check_release(b, ri->image.ref, "sandbox", "AGENT_SANDBOX_IMAGE")) != 0 ||
        (rc = check_image(b, ri->session.router_image, "router", "AGENT_SANDBOX_ROUTER_IMAGE")) != 0)
        return rc;
    /* This makes the placeholders for protected paths that do not exist yet
     * and the snapshot the end-of-session check compares with; the plan
     * takes the mounts as they are then. */
    rc = reviewing ? review_session_begin(b->dir->id, workdir, ri->image.ref, &review) : workspace_check_begin(ws);
    if (rc != 0 || (rc = plan_session(o, ri, b, workdir, ws, reviewing ? &review : NULL, &plan)) != 0)
        goto out;
    if (o->on_plan != NULL)
        o->on_plan(plan, o->on_plan_ctx);
    if (session_new(b->api, plan, ri->signals, &s, &err) == 0)
        session_on_progress(s, progress_show, NULL);
    if (s == NULL || session_setup(s, &err) < 0) {
        int sig = signal_source_terminating(ri->signals);
        rc = sig != 0 ? 128 + sig : EXIT_SETUP;
        as_error_prefix(&err, "setting up the sandbox");
        report_error(&err);
        if (sig == 0)
            report_doctor_hint();
        goto out;
    }
    progress_clear();
    sweep_stale_end(b);
    /* The before-state is taken during the set-up; it must be complete
     * before the agent runs. */
    if (!reviewing && (rc = workspace_check_ready(ws, b->dir->id)) != 0)
        goto out;
    session_start_line(&(session_start_t){
        .id = b->dir->id, .agent = o->exec ? NULL : ri->agent->name, .autonomy = autonomy_on(o, ri),
        .workdir = workdir, .tty = plan->tty, .publish = o->publish, .n_publish = o->n_publish });
    /* The first refusal of each name shows on the desktop, unless the
     * settings turn notifications off. */
    egress_notices_t *notices = ri->settings.notifications && !o->no_notices ? egress_notices_start(b->dir) : NULL;
    rc = run_agent(o, b, s, plan, &exited);
    /* The tree as the agent left it is walked while the rest is torn down. */
    if (exited && !reviewing)
        workspace_check_agent_exited(ws);
    egress_notices_stop(notices);
out:
    sweep_stale_end(b);
    terminal_restore();
    /* The agent's processes are gone once it has exited: the user's part
     * ends with the workspace check and the egress lines, and the removals
     * go on after the prompt (cmd/run/teardown.c). Before it, though, when the
     * prompt's next command needs them done: a review is summed up from an
     * upper directory no container holds any more (and `apply` refuses it
     * while they exist), and a published host port stays bound until the
     * pod goes (the next session's --publish of it would be refused). */
    bool later = exited && !reviewing && o->n_publish == 0;
    bool gone = s == NULL || later || teardown_now(s, b) == 0;
    if (!gone && rc == 0)
        rc = EXIT_SETUP;
    if (!reviewing)
        workspace_check_end(ws, gone);
    else if (review.dir != NULL)
        review_session_end(&review, ws);
    if (s != NULL)
        egress_report_end(b->dir);
    if (s != NULL && later && !teardown_later(s, b, ws) && teardown_now(s, b) < 0 && rc == 0)
        rc = EXIT_SETUP;
    session_free(s);
    session_plan_free(plan);
    return rc;
}

/* What `ps` shows of the session: verify's name for itself, the command,
 * or the agent's command and its arguments. NULL when out of memory. */
static char **shown_command(const run_options_t *o, const run_inputs_t *ri)
{
    if (o->ps_command != NULL) {
        char *one[] = { (char *)o->ps_command, NULL };
        return strv_copy(one);
    }
    _cleanup_(strv_freep) char **shown = strv_copy(o->exec ? o->command : ri->agent->command);
    for (size_t i = 0; !o->exec && shown != NULL && o->command != NULL && o->command[i] != NULL; i++)
        if (strv_push(&shown, o->command[i]) < 0)
            return NULL;
    return steal_pointer(&shown);
}

/* The registry entry `ps`, `stop` and a refused second session read:
 * written before the workspace lock is taken, so whoever holds it has
 * one. Without it the session still runs, unseen by them. */
static void register_session(const run_options_t *o, const run_inputs_t *ri, const cli_backend_t *b,
                             const char *workdir)
{
    _cleanup_(as_error_freep) as_error_t *err = NULL;
    _cleanup_(strv_freep) char **shown = shown_command(o, ri);
    session_entry_t e = {
        .pid = getpid(), .launch_dir = (char *)workdir, .started = (long long)time(NULL),
        .command = shown, .agent = o->exec ? NULL : ri->agent->name, .image = ri->image.ref,
        .allowlist_entries = (long long)ri->allowlist->n_entries, .allowlist_path = ri->allowlist_path,
    };
    snprintf(e.id, sizeof(e.id), "%s", b->dir->id);
    if (shown == NULL)
        return;
    if (session_registry_write(b->dir->path, &e, &err) < 0) {
        as_error_prefix(&err, "`agent-sandbox ps` will not list this session");
        report("warning: %s", err->msg);
    }
}

/* The private service, started once the launch is decided: an
 * interrupted start is the signal's exit. 0 or an exit code, reported. */
static int service_start(cli_backend_t *b)
{
    as_error_t *err = NULL;
    if (backend_service(b, &err) == 0)
        return 0;
    report_error(&err);
    int sig = signal_source_terminating(b->signals);
    if (sig == 0)
        report_doctor_hint();
    return sig != 0 ? 128 + sig : EXIT_NO_SERVICE;
}

int run_loaded(const run_options_t *o, const run_inputs_t *ri)
{
    as_error_t *err = NULL;
    char id[SESSION_ID_LEN + 1];
    cli_backend_t b = {0};
    if (session_id_generate(id, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    if (backend_open(id, ri->signals, &b, &err) < 0) {
        report_error(&err);          /* where the service would listen */
        report_doctor_hint();
        return EXIT_NO_SERVICE;
    }
    /* The launch policy first: a refusal the cached storage location can
     * answer starts no podman at all. Every input is loaded by now
     * (run_inputs_load), so this is the one place the service starts. */
    _cleanup_free_ char *workdir = NULL;
    _cleanup_(workspace_freep) workspace_t *ws = NULL;
    _cleanup_(launch_clear) launch_t launch = { 0 };
    int rc = launch_decide(&b, &launch);
    if (rc == 0)
        rc = service_start(&b);
    if (rc == 0)
        rc = launch_confirm(&b, &launch, &workdir);
    if (rc == 0)
        rc = workspace_check_load(workdir, &ws);
    if (rc == 0 && o->dry_run) {
        _cleanup_(session_plan_freep) session_plan_t *plan = NULL;
        if ((rc = plan_session(o, ri, &b, workdir, ws, NULL, &plan)) == 0)
            rc = print_plan(plan, ri, ws);
    } else if (rc == 0) {
        teardown_failures_tell();
        /* A killed CLI's check runs only once its sandbox is gone, and
         * before this session's before-state is taken: after a sweep in
         * line. Else nothing waits for the sweep. */
        if (workspace_check_pending()) {
            sweep_stale(&b, false);
            workspace_check_recover(b.api);
        } else {
            sweep_stale_begin(&b);
        }
        register_session(o, ri, &b, workdir);
        rc = run_planned(o, ri, &b, workdir, ws);
        sweep_stale_end(&b);
    }
    backend_stop(&b);
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
