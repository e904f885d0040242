/* Set-up runs the steps in order, and each records its undo before it
 * creates anything: if the CLI dies between the two, the label sweep finds
 * what was made, and if the creation fails, teardown's 404 is harmless. */
#include "session_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_spec.h"
#include "egress_spec.h"
#include "home_volume.h"
#include "session_dir.h"
#include "session_router.h"
#include "egress/held_secrets.h"
#include "base/file_write.h"
#include "base/util.h"

/* Longer than the forwarder's own 20 s, so its reason arrives first. */
#define ROUTER_READY_TIMEOUT_MS 25000L
#define ROUTER_MARK_TIMEOUT_MS 10000L

int session_new(podman_api_t *api, session_plan_t *plan, const signal_source_t *signals,
                session_t **ret, as_error_t **err)
{
    session_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    s->api = api;
    s->plan = plan;
    s->signals = signals;
    *ret = s;
    return 0;
}

void session_free(session_t *s)
{
    if (s == NULL)
        return;
    bg_join(&s->router_job, NULL);
    bg_join(&s->agent_job, NULL);
    for (size_t i = 0; i < s->n_done; i++)
        free(s->done[i].name);
    http_stream_free(s->forwarder_output);
    http_stream_free(s->agent_out);
    http_stream_free(s->agent_in);
    free(s->forwarder_id);
    free(s->agent_id);
    if (s->held_job.payload != NULL)     /* The job that wipes it never ran. */
        explicit_bzero(s->held_job.payload, strlen(s->held_job.payload));
    free(s->held_job.payload);
    free(s);
}

void session_set_api(session_t *s, podman_api_t *api)
{
    s->api = api;
}

static void *bg_main(void *p)
{
    bg_job_t *j = p;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);    /* Signals are the main thread's to handle. */
    j->rc = j->fn(j->api, j->arg, &j->err);
    return NULL;
}

int bg_start(bg_job_t *j, podman_api_t *api, int (*fn)(podman_api_t *, void *, as_error_t **),
             void *arg, const char *what, as_error_t **err)
{
    *j = (bg_job_t){ .fn = fn, .arg = arg, .what = what };
    int r = podman_api_clone(api, &j->api, err);
    if (r < 0)
        return r;
    if ((r = pthread_create(&j->thread, NULL, bg_main, j)) != 0) {
        podman_api_free(j->api);
        j->api = NULL;
        return as_error_errno(err, r, "starting a thread");
    }
    return 0;
}

int bg_join(bg_job_t *j, as_error_t **err)
{
    if (j->api == NULL)
        return 0;
    pthread_join(j->thread, NULL);
    podman_api_free(j->api);
    j->api = NULL;
    if (j->rc < 0 && j->what != NULL)
        as_error_prefix(&j->err, "%s", j->what);
    if (err != NULL)
        as_error_add(err, &j->err);
    as_error_free(&j->err);
    return j->rc;
}

static int record(session_t *s, undo_kind_t kind, const char *name, as_error_t **err)
{
    if (s->n_done == ARRAY_SIZE(s->done))
        return as_error_make(err, ENOSPC, "internal error: too many session resources");
    char *copy = strdup(name);
    if (copy == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    s->done[s->n_done++] = (undo_t){ kind, copy };
    return 0;
}

/* ---- the steps ---------------------------------------------------------- */

static int step_egress_network(session_t *s, as_error_t **err)
{
    return egress_network_ensure(s->api, s->plan->in.egress_network, err);
}

/* Creates the session network, then binds the plan to the subnet podman
 * assigned it and writes the files that follow from that subnet. */
static int step_network(session_t *s, as_error_t **err)
{
    session_plan_t *p = s->plan;
    _cleanup_free_ char *subnet = NULL;
    int r;
    if ((r = record(s, UNDO_NETWORK, p->network, err)) < 0 ||
        (r = podman_network_create(s->api, &p->network_spec, &subnet, err)) < 0)
        return r;
    if (p->egress == NULL)
        return 0;
    if ((r = session_plan_bind(p, subnet, err)) < 0)
        return r;
    return egress_files_write(p->egress, err);
}

static int create_and_start(podman_api_t *api, void *arg, as_error_t **err)
{
    const podman_container_spec_t *spec = arg;
    _cleanup_free_ char *id = NULL;
    int r;
    if ((r = podman_container_create(api, spec, &id, err)) < 0 ||
        (r = podman_container_start(api, id, err)) < 0)
        return r;
    return 0;
}

/* The router starts on a thread of its own: the readiness probe needs it,
 * but the pod does not, so the pod is made meanwhile. */
static int step_router_start(session_t *s, as_error_t **err)
{
    const egress_spec_t *e = s->plan->egress;
    const podman_container_spec_t *router = &e->router;
    int r = record(s, UNDO_CONTAINER, router->name, err);
    if (r < 0)
        return r;
    if (e->terminate.n_hosts == 0)
        return bg_start(&s->router_job, s->api, create_and_start, (void *)router, "starting the router", err);
    /* With held secrets the router is started by router_held_start, which
     * writes them through its stdin (docs/secrets.md). */
    s->held_job = (router_held_job_t){ .egress = e };
    if ((r = router_held_payload(e, s->plan->in.held->tls.key_pem, &s->held_job.payload, err)) < 0)
        return r;
    return bg_start(&s->router_job, s->api, router_held_start, &s->held_job, "starting the router", err);
}

static int step_pod(session_t *s, as_error_t **err)
{
    int r = record(s, UNDO_POD, s->plan->pod, err);
    return r < 0 ? r : podman_pod_create(s->api, &s->plan->pod_spec, err);
}

void session_on_progress(session_t *s, void (*fn)(const char *what, void *ctx), void *ctx)
{
    s->progress = fn;
    s->progress_ctx = ctx;
}

static void login_copy_progress(void *ctx)
{
    session_t *s = ctx;
    s->progress("copying your login from the old shared home into its own volume (once)", s->progress_ctx);
}

/* Tells the progress callback about a home volume that is not there yet,
 * because its first container fills it from the image and that takes
 * seconds. Podman is asked only when someone shows progress. */
static void home_progress(session_t *s, podman_api_t *api, const char *volume)
{
    bool exists = true;
    as_error_t *e = NULL;
    if (s->progress != NULL && podman_volume_exists(api, volume, &exists, &e) == 0 && !exists)
        s->progress("setting up a new home volume for this directory (its first session)", s->progress_ctx);
    as_error_free(&e);
}

/* Makes the home and the login volume on first use (the login is copied
 * once from the old shared home), writes the git identity's file, then
 * creates and attaches the agent's container. The agent is never started
 * here: it starts only once the egress path has proved itself. */
static int homes_and_agent(podman_api_t *api, void *arg, as_error_t **err)
{
    session_t *s = arg;
    const session_plan_t *p = s->plan;
    int r;
    if (p->in.home_volume != NULL)
        home_progress(s, api, p->in.home_volume);
    if (p->in.home_volume != NULL &&
        (r = home_volume_ensure(api, p->in.home_volume, p->in.home_per_project ? p->in.workdir : NULL, err)) < 0)
        return r;
    if (p->login_volume != NULL) {
        _cleanup_free_ char *copier = NULL;
        if (asprintf(&copier, "%s-login-copy", p->pod) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        login_migration_t m = {
            .legacy_home = p->legacy_home, .image = p->in.image, .container = copier,
            .labels = p->labels, .n_labels = ARRAY_SIZE(p->labels),
            .on_copy = s->progress != NULL ? login_copy_progress : NULL, .on_copy_ctx = s,
        };
        if ((r = login_volume_ensure(api, p->login_volume, &m, err)) < 0)
            return r;
    }
    if (p->in.git_config != NULL &&
        (r = file_write_atomic(p->in.session_dir, SESSION_GIT_CONFIG_FILE, p->in.git_config, 0644, err)) < 0)
        return as_error_prefix(err, "writing the git identity for the sandbox");
    if ((r = podman_container_create(api, &p->agent_spec->spec, &s->agent_id, err)) < 0)
        return r;
    return session_attach_agent(api, s, err);
}

int session_attach_agent(podman_api_t *api, session_t *s, as_error_t **err)
{
    _cleanup_(http_stream_freep) http_stream_t *out = NULL;
    _cleanup_(http_stream_freep) http_stream_t *in = NULL;
    int r = podman_container_attach(api, s->agent_id, s->plan->in.tty, &out, err);
    if (r == 0 && !s->plan->in.tty)
        r = podman_container_attach_input(api, s->agent_id, &in, err);
    if (r < 0)
        return r;
    s->agent_out = steal_pointer(&out);
    s->agent_in = steal_pointer(&in);
    return 0;
}

/* The agent is created on a thread of its own while the forwarder proves
 * the path, since neither waits for the other. */
static int step_agent_create(session_t *s, as_error_t **err)
{
    int r = record(s, UNDO_POD_CONTAINER, s->plan->agent, err);
    return r < 0 ? r : bg_start(&s->agent_job, s->api, homes_and_agent, s, NULL, err);
}

/* The forwarder is attached before its start, so that its readiness line
 * cannot be missed (the attach also sets it and the pod's network
 * namespace up). */
static int step_forwarder(session_t *s, as_error_t **err)
{
    const podman_container_spec_t *fw = &s->plan->egress->forwarder;
    int r;
    if ((r = record(s, UNDO_POD_CONTAINER, fw->name, err)) < 0 ||
        (r = podman_container_create(s->api, fw, &s->forwarder_id, err)) < 0)
        return r;
    return podman_container_attach(s->api, s->forwarder_id, false, &s->forwarder_output, err);
}

static int step_router_join(session_t *s, as_error_t **err)
{
    return bg_join(&s->router_job, err);
}

/* The forwarder starts only once the router runs: before, the router's
 * address may not answer at all, and the probe's lookups would only be cut
 * short (0.5 s each) and asked again. */
static int step_forwarder_start(session_t *s, as_error_t **err)
{
    return podman_container_start(s->api, s->forwarder_id, err);
}

/* Set-up fails closed: the agent starts only once an allowed name resolves
 * to its forwarder, a denied one does not, and every listener is up. */
static int step_ready(session_t *s, as_error_t **err)
{
    router_wait_t w = {
        .router = s->plan->router, .egress = s->plan->egress,
        .timeout_ms = ROUTER_READY_TIMEOUT_MS, .signals = s->signals,
    };
    int r = router_wait_ready(s->api, &w, s->forwarder_output, err);
    http_stream_free(steal_pointer(&s->forwarder_output));
    return r;
}

/* Tells the router, before the agent starts, that what it logged so far
 * was the probe's, so that the probe's queries never read as the agent's. */
static int step_mark(session_t *s, as_error_t **err)
{
    router_wait_t w = {
        .router = s->plan->router, .egress = s->plan->egress,
        .timeout_ms = ROUTER_MARK_TIMEOUT_MS, .signals = s->signals,
    };
    return router_mark_start(s->api, &w, s->plan->in.verify, err);
}

static int step_agent_join(session_t *s, as_error_t **err)
{
    return bg_join(&s->agent_job, err);
}

typedef struct step {
    int (*run)(session_t *s, as_error_t **err);
    const char *what;        /* its error's prefix; NULL when the error says it */
    bool egress;             /* only with a router */
} step_t;

static const step_t steps[] = {
    { step_egress_network, "preparing the shared egress network", true },
    { step_network, NULL, false },
    { step_router_start, "starting the router", true },
    { step_pod, NULL, false },
    { step_forwarder, "starting the forwarder", true },
    { step_router_join, NULL, true },      /* bg_join prefixes its error */
    { step_forwarder_start, "starting the forwarder", true },
    /* The agent is created during the readiness wait: earlier, its creation
     * in the pod holds up the forwarder's (bench/startup.sh). */
    { step_agent_create, NULL, false },
    { step_ready, NULL, true },
    { step_mark, NULL, true },
    { step_agent_join, NULL, false },
};

static int check_interrupted(session_t *s, as_error_t **err)
{
    int sig = signal_source_terminating(s->signals);
    if (sig != 0)
        return as_error_make(err, EINTR, "interrupted by %s during set-up", strsignal(sig));
    return 0;
}

int session_setup(session_t *s, as_error_t **err)
{
    bool egress = s->plan->egress != NULL;
    int r = 0;
    for (size_t i = 0; i < ARRAY_SIZE(steps) && r == 0; i++) {
        if (steps[i].egress && !egress)
            continue;
        if ((r = check_interrupted(s, err)) < 0)
            break;
        if ((r = steps[i].run(s, err)) < 0 && steps[i].what != NULL)
            as_error_prefix(err, "%s", steps[i].what);
    }
    /* Whatever still runs is waited for, so that no thread outlives set-up,
     * and its failure is told too. */
    int router = bg_join(&s->router_job, err), agent = bg_join(&s->agent_job, err);
    if (r == 0)
        r = router < 0 ? router : agent;
    return r < 0 ? r : check_interrupted(s, err);
}
