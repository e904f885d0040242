/* One session's life (session_life.h): the launch, the service, the
 * workspace or the review, the images, the plan, set-up and the agent's
 * run; the ending is session_finish.c's. */
#include "session_life.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "home_volume.h"
#include "session_egress.h"
#include "session_images.h"
#include "session_launch.h"
#include "session_load.h"
#include "session_plan.h"
#include "session_registry.h"
#include "session_review.h"
#include "session_workspace.h"
#include "base/strv.h"
#include "base/terminal.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "egress/held_secrets.h"

#define VOLUME_PREFIX_DEFAULT "agent-sandbox"

void session_ending_clear(session_ending_t *e)
{
    free(e->command);
    free(e->workdir);
    free(e->plan_text);
    *e = (session_ending_t){ 0 };
}

/* The agent starts in its unattended mode: --autonomy, --no-autonomy or
 * the setting, for an agent that has one, never for --exec. */
static bool autonomy_on(const session_request_t *req, const session_inputs_t *in)
{
    bool wanted = req->autonomy == AUTONOMY_SETTING ? in->settings.autonomy : req->autonomy == AUTONOMY_ON;
    return wanted && !req->exec && agent_profile_has_autonomy(in->agent);
}

/* The volumes that hold the agent's home (home_volume.h): the one named by
 * AGENT_SANDBOX_HOME_VOLUME, used as is; else the launch tree's own home
 * and the login apart. */
static session_fault_t home_inputs(const session_request_t *req, session_inputs_t *in, const session_say_t *to)
{
    in->private_home = req->private_home;
    if (req->private_home)
        return SESSION_OK;
    if (req->vars.home_volume != NULL)
        return (in->home_volume = strdup(req->vars.home_volume)) == NULL ? SESSION_FAULT_INTERNAL : SESSION_OK;
    const char *prefix = req->vars.volume_prefix != NULL ? req->vars.volume_prefix : VOLUME_PREFIX_DEFAULT;
    as_error_t *err = NULL;
    if (home_volume_project_name(prefix, in->workdir, &in->home_volume, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_INTERNAL;
    }
    if (asprintf(&in->login_volume, "%s-login", prefix) < 0 || asprintf(&in->legacy_home, "%s-home", prefix) < 0)
        return SESSION_FAULT_INTERNAL;
    in->home_per_project = true;
    return SESSION_OK;
}

/* What the launch and the request decide of the inputs (verify loads a
 * session's inputs once, then launches its probe with a request of its
 * own), then the plan of this session: every spec, with the workspace's
 * mounts as they are now. */
static session_fault_t plan_session(session_life_t *l)
{
    const session_request_t *req = l->req;
    session_inputs_t *in = l->in;
    const session_say_t *to = &l->ev->say;
    as_error_t *err = NULL;
    _cleanup_(strv_freep) char **env = NULL;
    if (in->held != NULL ? held_secrets_agent_env(in->held, req->env, &env, &err) < 0
                         : (env = strv_copy(req->env != NULL ? req->env : (char *[]){ NULL })) == NULL) {
        say_error(to, &err);
        return SESSION_FAULT_INTERNAL;
    }
    strv_free(in->env);
    in->env = steal_pointer(&env);
    in->request = req;
    in->command = req->command;
    in->publish = req->publish;
    in->n_publish = req->n_publish;
    in->verify = req->verify;
    in->cli_pid = getpid();
    in->workspace = l->ws;
    in->agent_args = !req->exec;
    in->autonomy = autonomy_on(req, in);
    in->tty = req->allow_tty && isatty(req->in_fd) && isatty(req->out_fd);
    if ((in->session_dir = strdup(l->backend.dir->path)) == NULL ||
        (l->reviewing && ((in->review_upper = strdup(l->review.upper)) == NULL ||
                          asprintf(&in->review_work, "%s/work", l->review.dir) < 0)))
        return SESSION_FAULT_INTERNAL;
    session_fault_t f = home_inputs(req, in, to);
    if (f == SESSION_OK && session_plan_build(in, &l->plan, &err) < 0) {
        say_error(to, &err);
        f = SESSION_FAULT_USAGE;
    }
    return f;
}

/* What `ps` shows of the session: verify's name for itself, the command,
 * or the agent's command and its arguments. NULL when out of memory. */
static char **shown_command(const session_request_t *req, const session_inputs_t *in)
{
    if (req->ps_command != NULL) {
        char *one[] = { (char *)req->ps_command, NULL };
        return strv_copy(one);
    }
    _cleanup_(strv_freep) char **shown = strv_copy(req->exec ? req->command : in->agent->command);
    for (size_t i = 0; !req->exec && shown != NULL && req->command != NULL && req->command[i] != NULL; i++)
        if (strv_push(&shown, req->command[i]) < 0)
            return NULL;
    return steal_pointer(&shown);
}

/* The registry entry `ps`, `stop` and a refused second session read:
 * written before the workspace lock is taken, so whoever holds it has
 * one. Without it the session still runs, unseen by them. */
static void register_session(const session_life_t *l)
{
    const session_request_t *req = l->req;
    const session_inputs_t *in = l->in;
    _cleanup_(as_error_freep) as_error_t *err = NULL;
    _cleanup_(strv_freep) char **shown = shown_command(req, in);
    session_entry_t e = {
        .pid = getpid(), .launch_dir = in->workdir, .started = (long long)time(NULL),
        .command = shown, .agent = req->exec ? NULL : in->agent->name, .image = (char *)in->image,
        .allowlist_entries = (long long)in->allowlist->n_entries, .allowlist_path = in->allowlist_path,
    };
    snprintf(e.id, sizeof(e.id), "%s", in->id);
    if (shown == NULL)
        return;
    if (session_registry_write(l->backend.dir->path, &e, &err) < 0) {
        as_error_prefix(&err, "`agent-sandbox ps` will not list this session");
        say(&l->ev->say, SAY_WARNING, "%s", err->msg);
    }
}

/* Starts the agent and pumps its streams to its end; its end in the
 * ending, told at once (events' agent_ended). */
static session_fault_t run_agent(session_life_t *l)
{
    const session_request_t *req = l->req;
    const session_events_t *ev = l->ev;
    session_ending_t *e = l->end;
    bool tty = l->plan->in.tty;
    as_error_t *err = NULL;
    attach_io_t io = {
        .in_fd = req->in_fd, .out_fd = req->out_fd, .err_fd = req->err_fd,
        .multiplexed = !tty, .close_write_on_eof = !tty, .escape = tty,
    };
    if (tty && terminal_enter_raw(req->in_fd, &err) < 0) {
        say_error(&ev->say, &err);
        return SESSION_FAULT_SETUP;
    }
    session_on_egress_lost(l->s, ev->egress_lost, ev->say.ctx);
    session_on_escape(l->s, ev->escape_heard, ev->say.ctx);
    int r = session_run(l->s, &io, &e->agent, &err);
    terminal_restore();
    e->tty = tty;
    if (r == 0) {
        l->exited = e->agent.end == SESSION_AGENT_EXITED;
        e->ran = true;
        if (ev->agent_ended != NULL)
            ev->agent_ended(e, ev->say.ctx);
        return SESSION_OK;
    }
    if (!backend_usable(&l->backend)) {
        as_error_free(&err);
        say(&ev->say, SAY_ERROR, "the private podman service stopped mid-session; the agent's exit status is unknown");
        return SESSION_FAULT_SERVICE_LOST;
    }
    say_error(&ev->say, &err);
    return SESSION_FAULT_SETUP;
}

/* Set-up, after which the agent may start: a terminating signal during it
 * is the signal's fault; any other failure says where to look. */
static session_fault_t set_up(session_life_t *l)
{
    const session_say_t *to = &l->ev->say;
    as_error_t *err = NULL;
    if (session_new(l->backend.api, l->plan, l->signals, &l->s, &err) == 0)
        session_on_progress(l->s, to->progress, to->ctx);
    if (l->s != NULL && session_setup(l->s, &err) == 0)
        return SESSION_OK;
    int sig = signal_source_terminating(l->signals);
    as_error_prefix(&err, "setting up the sandbox");
    say_error(to, &err);
    if (sig != 0) {
        l->end->signal = sig;
        return SESSION_FAULT_SIGNALLED;
    }
    say(to, SAY_PLAIN, SESSION_DOCTOR_HINT);
    return SESSION_FAULT_SETUP;
}

/* From the images to the agent's end. In review mode the workspace's guard
 * and end-of-session check stay out (they write the host tree:
 * placeholders, what they disable) and the review is made instead. */
static session_fault_t run_planned(session_life_t *l)
{
    const session_say_t *to = &l->ev->say;
    session_inputs_t *in = l->in;
    session_fault_t f = session_images_gate(&l->backend, in, to);
    if (f != SESSION_OK)
        return f;
    /* the placeholders for protected paths that do not exist yet and the
     * snapshot the end-of-session check compares with: the plan takes the
     * mounts as they are then */
    f = l->reviewing ? review_session_begin(in->id, in->workdir, in->image, to, &l->review)
                     : workspace_check_begin(l->ws, to, &l->end->busy);
    if (f != SESSION_OK || (f = plan_session(l)) != SESSION_OK)
        return f;
    /* the command, for the words of an exec failure (agent_ended) */
    if ((l->end->command = strdup(l->plan->command[0])) == NULL)
        return SESSION_FAULT_INTERNAL;
    if (l->req->on_plan != NULL)
        l->req->on_plan(l->plan, l->req->on_plan_ctx);
    if ((f = set_up(l)) != SESSION_OK)
        return f;
    backend_sweep_end(&l->backend, to);
    /* the before-state is taken during the set-up; it must be complete
     * before the agent runs */
    if (!l->reviewing && (f = workspace_check_ready(l->ws, in->id, to)) != SESSION_OK)
        return f;
    if (l->ev->started != NULL)
        l->ev->started(&(session_start_t){ .id = in->id, .agent = l->req->exec ? NULL : in->agent->name,
                                           .autonomy = in->autonomy, .workdir = in->workdir, .tty = in->tty,
                                           .publish = in->publish, .n_publish = in->n_publish },
                       to->ctx);
    /* the first refusal of each name shows on the desktop, unless the
     * settings turn notifications off */
    if (in->settings.notifications && !l->req->no_notices)
        l->notices = egress_notices_start(l->backend.dir);
    f = run_agent(l);
    /* the tree as the agent left it is walked while the rest is torn down */
    if (l->exited && !l->reviewing)
        workspace_check_agent_exited(l->ws);
    egress_notices_stop(l->notices);
    l->notices = NULL;
    return f;
}

/* The private service, started once the launch is decided: an
 * interrupted start is the signal's fault. */
static session_fault_t service_start(session_life_t *l)
{
    as_error_t *err = NULL;
    if (backend_service(&l->backend, &err) == 0)
        return SESSION_OK;
    say_error(&l->ev->say, &err);
    int sig = signal_source_terminating(l->signals);
    l->end->signal = sig;
    if (sig == 0)
        say(&l->ev->say, SAY_PLAIN, SESSION_DOCTOR_HINT);
    return sig != 0 ? SESSION_FAULT_SIGNALLED : SESSION_FAULT_NO_SERVICE;
}

/* --dry-run: the plan, the image's origin and the protected paths. */
static session_fault_t describe(session_life_t *l)
{
    as_error_t *err = NULL;
    session_fault_t f = plan_session(l);
    _cleanup_free_ char *plan = NULL, *paths = NULL;
    if (f == SESSION_OK && session_plan_describe(l->plan, &plan, &err) < 0) {
        say_error(&l->ev->say, &err);
        f = SESSION_FAULT_INTERNAL;
    }
    if (f == SESSION_OK && (paths = workspace_check_describe(l->ws, &l->ev->say)) == NULL)
        f = SESSION_FAULT_INTERNAL;
    if (f == SESSION_OK && asprintf(&l->end->plan_text, "%simage %s, chosen by %s\n%s", plan, l->in->image,
                                    l->in->image_choice.reason, paths) < 0)
        f = SESSION_FAULT_INTERNAL;
    session_plan_free(l->plan);
    l->plan = NULL;
    return f;
}

/* The launch: decided without podman where it can be, then the one start
 * of the service, then the directory confirmed and its workspace loaded. */
static session_fault_t launch(session_life_t *l)
{
    const session_say_t *to = &l->ev->say;
    _cleanup_(launch_clear) launch_t decision = { 0 };
    session_fault_t f = launch_decide(&l->backend, &l->req->vars, to, &decision);
    if (f == SESSION_OK)
        f = service_start(l);
    if (f == SESSION_OK)
        f = launch_confirm(&l->backend, to, &decision, &l->in->workdir);
    if (f == SESSION_OK && (l->end->workdir = strdup(l->in->workdir)) == NULL)
        f = SESSION_FAULT_INTERNAL;
    if (f == SESSION_OK)
        f = workspace_check_load(l->in->workdir, l->req->vars.home, l->req->vars.path, to, &l->ws);
    return f;
}

/* A launched session, to its end. A killed CLI's check runs only once its
 * sandbox is gone, and before this session's before-state is taken: after
 * a sweep in line. Else nothing waits for the sweep. */
static session_fault_t run_launched(session_life_t *l)
{
    const session_say_t *to = &l->ev->say;
    session_finish_failures_tell(to);
    if (workspace_check_pending()) {
        backend_sweep(&l->backend, to, false);
        workspace_check_recover(l->backend.api, l->req->vars.path, to);
    } else {
        backend_sweep_begin(&l->backend, to);
    }
    register_session(l);
    l->reviewing = l->req->review || l->in->settings.review;
    session_fault_t f = run_planned(l);
    session_finish(l);
    return f;
}

void session_life_run(const session_request_t *req, session_inputs_t *in, const signal_source_t *signals,
                      const session_events_t *ev, session_ending_t *ret)
{
    *ret = (session_ending_t){ 0 };
    session_life_t l = { .req = req, .in = in, .ev = ev, .signals = signals, .end = ret };
    const session_say_t *to = &ev->say;
    as_error_t *err = NULL;
    char id[SESSION_ID_LEN + 1];
    if (session_id_generate(id, &err) < 0 || (in->id = strdup(id)) == NULL) {
        say_error(to, &err);
        ret->fault = SESSION_FAULT_INTERNAL;
        return;
    }
    if (backend_open(id, signals, &l.backend, &err) < 0) {
        say_error(to, &err);          /* where the service would listen */
        say(to, SAY_PLAIN, SESSION_DOCTOR_HINT);
        ret->fault = SESSION_FAULT_NO_SERVICE;
        return;
    }
    session_fault_t f = launch(&l);
    if (f == SESSION_OK)
        f = req->dry_run ? describe(&l) : run_launched(&l);
    ret->fault = f;
    backend_sweep_end(&l.backend, to);
    backend_stop(&l.backend, to);
    review_info_clear(&l.review);
    workspace_free(l.ws);
    in->workspace = NULL;
}
