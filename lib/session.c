#include "session.h"

#include "agent_spec.h"
#include "home_volume.h"
#include "session_router.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "signals.h"
#include "terminal.h"
#include "util.h"

/* A container in the pod goes with the pod's forced removal: one API call
 * instead of one per container. */
typedef enum { RES_NETWORK, RES_POD, RES_CONTAINER, RES_POD_CONTAINER } resource_kind_t;

typedef struct {
    resource_kind_t kind;
    char *name;
} resource_t;

struct session {
    podman_api_t *api;
    const session_plan_t *plan;
    router_runtime_t router;
    resource_t created[8];
    size_t n_created;
    char *agent_id;
    const attach_io_t *io;  /* while the agent runs */
    int forwarded;        /* terminating signals forwarded to the agent so far */
    bool output_lost;     /* the agent was stopped because its output could not be written */
    void (*egress_lost)(void *ctx);
    void *egress_lost_ctx;
};

void session_on_egress_lost(session_t *s, void (*fn)(void *ctx), void *ctx)
{
    s->egress_lost = fn;
    s->egress_lost_ctx = ctx;
}

/* The router or the forwarder stopped: stop the other too, so that nothing
 * of the egress path is left half up (the router is reachable from the pod
 * without the forwarder), then tell the user. */
static void on_watch(void *ctx)
{
    session_t *s = ctx;
    const char *parts[] = { s->plan->router, s->plan->forwarder };
    for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
        as_error_t *e = NULL;
        podman_container_kill(s->api, parts[i], SIGKILL, &e);
        as_error_free(&e);        /* the one that died is gone already */
    }
    if (s->egress_lost != NULL)
        s->egress_lost(s->egress_lost_ctx);
}

int session_new(podman_api_t *api, const session_plan_t *plan, session_t **ret, as_error_t **err)
{
    session_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    s->api = api;
    s->plan = plan;
    *ret = s;
    return 0;
}

void session_free(session_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n_created; i++)
        free(s->created[i].name);
    router_runtime_clear(&s->router);
    free(s->agent_id);
    free(s);
}

void session_set_api(session_t *s, podman_api_t *api)
{
    s->api = api;
}

static int record(session_t *s, resource_kind_t kind, const char *name, as_error_t **err)
{
    if (s->n_created == ARRAY_SIZE(s->created))
        return as_error_make(err, ENOSPC, "internal error: too many session resources");
    char *copy = strdup(name);
    if (copy == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    s->created[s->n_created++] = (resource_t){ kind, copy };
    return 0;
}

/* One API call sequence on a thread of its own, with its own connection:
 * the router starts while the pod is made, and goes while the pod goes. */
typedef struct bg_job {
    pthread_t thread;
    podman_api_t *api;
    int (*fn)(podman_api_t *api, const void *arg, as_error_t **err);
    const void *arg;
    int rc;
    as_error_t *err;
} bg_job_t;

static void *bg_main(void *p)
{
    bg_job_t *j = p;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);    /* signals are the main thread's */
    j->rc = j->fn(j->api, j->arg, &j->err);
    return NULL;
}

static int bg_start(bg_job_t *j, podman_api_t *api,
                    int (*fn)(podman_api_t *, const void *, as_error_t **), const void *arg,
                    as_error_t **err)
{
    *j = (bg_job_t){ .fn = fn, .arg = arg };
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

/* Waits for the job; its error, if any, becomes *err unless one is there. */
static int bg_join(bg_job_t *j, as_error_t **err)
{
    if (j->api == NULL)
        return 0;
    pthread_join(j->thread, NULL);
    podman_api_free(j->api);
    j->api = NULL;
    if (j->rc < 0 && err != NULL && *err == NULL) {
        *err = j->err;
        j->err = NULL;
    }
    as_error_free(&j->err);
    return j->rc;
}

static int create_and_start(podman_api_t *api, const void *arg, as_error_t **err)
{
    const podman_container_spec_t *spec = arg;
    _cleanup_free_ char *id = NULL;
    int r;
    if ((r = podman_container_create(api, spec, &id, err)) < 0 ||
        (r = podman_container_start(api, id, err)) < 0)
        return r;
    return 0;
}

static int remove_container(podman_api_t *api, const void *arg, as_error_t **err)
{
    int r = podman_container_remove(api, arg, err);
    if (r == -ENOENT) {
        as_error_free(err);
        return 0;
    }
    return r;
}

static int check_interrupted(as_error_t **err)
{
    int sig = signals_terminating();
    if (sig != 0)
        return as_error_make(err, EINTR, "interrupted by %s during set-up", strsignal(sig));
    return 0;
}

/* The home and the login volume, made on first use (the login copied once
 * from the old shared home). */
static int homes_ensure(session_t *s, as_error_t **err)
{
    const session_plan_t *p = s->plan;
    int r;
    if (p->home_volume != NULL &&
        (r = home_volume_ensure(s->api, p->home_volume, p->home_project, err)) < 0)
        return r;
    if (p->login_volume == NULL)
        return 0;
    _cleanup_free_ char *copier = NULL;
    if (asprintf(&copier, "%s-login-copy", p->pod) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    login_migration_t m = {
        .legacy_home = p->legacy_home, .image = p->image, .container = copier,
        .labels = p->labels, .n_labels = ARRAY_SIZE(p->labels),
    };
    if ((r = check_interrupted(err)) < 0)
        return r;
    return login_volume_ensure(s->api, p->login_volume, &m, err);
}

/* Longer than the forwarder's own 20 s, so its reason arrives first. */
#define ROUTER_READY_TIMEOUT_MS 25000L

int session_setup(session_t *s, as_error_t **err)
{
    const session_plan_t *p = s->plan;
    bool egress = p->router_image != NULL;
    int r;

    if (egress && (r = egress_network_ensure(s->api, p->egress_network, err)) < 0)
        return as_error_prefix(err, "preparing the shared egress network");

    /* Record before create: if the CLI dies between the two, the label
     * sweep finds it; if create fails, teardown's 404 is harmless. */
    podman_network_spec_t net = {
        .name = p->network, .internal = true, .dns_enabled = false,
        .labels = p->labels, .n_labels = 2,
    };
    _cleanup_free_ char *subnet = NULL;
    if ((r = check_interrupted(err)) < 0 ||
        (r = record(s, RES_NETWORK, p->network, err)) < 0 ||
        (r = podman_network_create(s->api, &net, &subnet, err)) < 0)
        return r;

    /* The router starts on a thread of its own while the pod and the
     * forwarder are made; the probe below needs all three. */
    char *dns[] = { NULL, NULL };
    podman_container_spec_t router;
    bg_job_t router_job = {0};
    if (egress) {
        if ((r = router_runtime_prepare(p, subnet, &s->router, err)) < 0)
            return r;
        router_container_spec(p, &s->router, &router);
        if ((r = check_interrupted(err)) < 0 ||
            (r = record(s, RES_CONTAINER, router.name, err)) < 0 ||
            (r = bg_start(&router_job, s->api, create_and_start, &router, err)) < 0)
            return r;
        dns[0] = s->router.router_ip;
    }

    /* No IPv6 at all in the pod, not even link-local. */
    static const podman_label_t pod_sysctls[] = {
        { "net.ipv6.conf.all.disable_ipv6", "1" },
        { "net.ipv6.conf.default.disable_ipv6", "1" },
    };
    podman_pod_spec_t pod = {
        .name = p->pod, .network = p->network, .userns_keep_id = true,
        .no_manage_hosts = egress, .dns_servers = egress ? dns : NULL,
        .sysctls = pod_sysctls, .n_sysctls = ARRAY_SIZE(pod_sysctls),
        .labels = p->labels, .n_labels = 2,
    };
    if ((r = check_interrupted(err)) < 0 ||
        (r = record(s, RES_POD, p->pod, err)) < 0 ||
        (r = podman_pod_create(s->api, &pod, err)) < 0) {
        bg_join(&router_job, NULL);
        return r;
    }

    if (egress) {
        /* Attached before its start, so its readiness line cannot be missed. */
        podman_container_spec_t forwarder;
        forwarder_container_spec(p, &s->router, &forwarder);
        _cleanup_free_ char *fid = NULL;
        http_stream_t *output = NULL;
        if ((r = check_interrupted(err)) == 0 &&
            (r = record(s, RES_POD_CONTAINER, forwarder.name, err)) == 0 &&
            (r = podman_container_create(s->api, &forwarder, &fid, err)) == 0 &&
            (r = podman_container_attach(s->api, fid, false, &output, err)) == 0)
            r = podman_container_start(s->api, fid, err);
        if (bg_join(&router_job, err) < 0) {
            http_stream_free(output);
            return as_error_prefix(err, "starting the router");
        }
        if (r < 0) {
            http_stream_free(output);
            return as_error_prefix(err, "starting the forwarder");
        }
        /* Fail closed: the agent starts only once an allowed name resolves
         * to its forwarder, a denied one does not, and every listener is up. */
        r = router_wait_ready(s->api, p, &s->router, output, ROUTER_READY_TIMEOUT_MS, err);
        http_stream_free(output);
        if (r < 0)
            return r;
    }

    if ((r = homes_ensure(s, err)) < 0)
        return r;
    agent_spec_t agent;
    if ((r = agent_spec_build(p, &agent, err)) < 0)
        return r;
    if (egress) {
        /* Only the allowed names, nothing of the host's (no host.containers.internal);
         * only the router as resolver. Both read-only. */
        static char *const ro_bind[] = { "ro", "rbind", "rprivate", NULL };
        podman_mount_t hosts = { .source = s->router.hosts_path, .destination = "/etc/hosts",
                                 .type = "bind", .options = ro_bind };
        podman_mount_t resolv = { .source = s->router.resolv_path, .destination = "/etc/resolv.conf",
                                  .type = "bind", .options = ro_bind };
        if ((r = agent_spec_add_mount(&agent, &hosts, err)) < 0 ||
            (r = agent_spec_add_mount(&agent, &resolv, err)) < 0)
            return r;
    }
    if ((r = check_interrupted(err)) < 0 ||
        (r = record(s, RES_POD_CONTAINER, p->agent, err)) < 0 ||
        (r = podman_container_create(s->api, &agent.spec, &s->agent_id, err)) < 0)
        return r;
    return check_interrupted(err);
}

static void resize_agent(session_t *s)
{
    unsigned rows, cols;
    if (s->agent_id != NULL && s->io != NULL && terminal_size(s->io->in_fd, &rows, &cols)) {
        as_error_t *e = NULL;
        podman_container_resize(s->api, s->agent_id, rows, cols, &e);
        as_error_free(&e);       /* a lost resize only misdraws the screen */
    }
}

static void on_signal(int signo, void *ctx)
{
    session_t *s = ctx;
    if (signo == SIGWINCH) {
        if (s->plan->tty)
            resize_agent(s);
        return;
    }
    /* First: pass it on, so the agent can finish in order. Again: kill. */
    as_error_t *e = NULL;
    podman_container_kill(s->api, s->agent_id, s->forwarded++ == 0 ? signo : SIGKILL, &e);
    as_error_free(&e);           /* the agent may already be gone */
}

/* The agent's output cannot be written: end it, as a shell pipeline ends
 * a writer whose reader went away (SIGPIPE), or as a lost output should
 * (SIGTERM); SIGKILL when it is still there after the grace. */
static void on_output_lost(int errnum, bool again, void *ctx)
{
    session_t *s = ctx;
    s->output_lost = true;
    as_error_t *e = NULL;
    podman_container_kill(s->api, s->agent_id, again ? SIGKILL : errnum == EPIPE ? SIGPIPE : SIGTERM, &e);
    as_error_free(&e);           /* the agent may already be gone */
}

/* Without a TTY, stdin goes up a connection of its own (attach_pump). */
static int attach_agent(session_t *s, http_stream_t **ret_out, http_stream_t **ret_in, as_error_t **err)
{
    http_stream_t *out = NULL, *in = NULL;
    int r = podman_container_attach(s->api, s->agent_id, s->plan->tty, &out, err);
    if (r == 0 && !s->plan->tty && (r = podman_container_attach_input(s->api, s->agent_id, &in, err)) < 0)
        http_stream_free(out);
    if (r < 0)
        return r;
    *ret_out = out;
    *ret_in = in;
    return 0;
}

/* How long a removal from outside may take to finish after the exit it caused. */
#define REMOVAL_WAIT_MS 3000L

/* The container is gone, or is within wait_ms: a `podman rm` from outside
 * stops the agent first and removes it only after we hear of its exit. */
static bool container_removed(session_t *s, long wait_ms)
{
    long deadline = monotonic_ms() + wait_ms;
    for (;;) {
        bool running = false;
        as_error_t *e = NULL;
        int r = podman_container_running(s->api, s->agent_id, &running, &e);
        as_error_free(&e);
        if (r == -ENOENT)
            return true;
        if (r < 0 || monotonic_ms() >= deadline)
            return false;
        struct timespec pause = { .tv_nsec = 50 * 1000000L };
        nanosleep(&pause, NULL);
    }
}

/* Its exit status, or why there is none. A SIGTERM or SIGKILL the CLI did
 * not send is what `podman rm` or `stop` from outside gives. */
static int agent_end(session_t *s, session_result_t *res, as_error_t **err)
{
    int r = podman_container_wait(s->api, s->agent_id, &res->exit_code, err);
    if (r == -ENOENT) {
        /* no exit code: removed and forgotten, or its monitor died before writing one */
        as_error_free(err);
        res->end = container_removed(s, 0) ? SESSION_AGENT_REMOVED : SESSION_MONITOR_DIED;
        return 0;
    }
    if (r < 0)
        return r;
    bool outside = s->forwarded == 0 && !s->output_lost &&
                   (res->exit_code == 128 + SIGTERM || res->exit_code == 128 + SIGKILL);
    res->end = outside && container_removed(s, REMOVAL_WAIT_MS) ? SESSION_AGENT_REMOVED
                                                                : SESSION_AGENT_EXITED;
    return 0;
}

int session_run(session_t *s, const attach_io_t *io, session_result_t *ret, as_error_t **err)
{
    http_stream_t *stream = NULL, *input = NULL;
    int r = attach_agent(s, &stream, &input, err);
    if (r < 0)
        return r;
    r = podman_container_start(s->api, s->agent_id, err);
    if (r < 0) {
        http_stream_free(stream);
        http_stream_free(input);
        return r;
    }
    s->io = io;
    if (s->plan->tty)
        resize_agent(s);
    /* A signal that came between set-up and start is forwarded now. */
    if (signals_terminating() != 0)
        on_signal(signals_terminating(), s);

    /* Watch the egress path: if it dies, egress is closed (nothing falls
     * back to another route) and the user is told. */
    http_stream_t *events = NULL;
    if (s->plan->router_image != NULL) {
        char *watched[] = { s->plan->router, s->plan->forwarder, NULL };
        as_error_t *werr = NULL;
        if (podman_events_died(s->api, watched, &events, &werr) < 0)
            as_error_free(&werr);     /* only the notice is lost, not the confinement */
    }
    attach_hooks_t hooks = { .on_signal = on_signal, .watch = events, .on_watch = on_watch,
                             .on_output_lost = on_output_lost, .ctx = s };
    session_result_t res = {0};
    r = attach_pump(stream, input, io, &hooks, &res.io, err);
    http_stream_free(stream);
    http_stream_free(input);
    http_stream_free(events);
    s->io = NULL;
    if (r < 0 || (r = agent_end(s, &res, err)) < 0)
        return r;
    *ret = res;
    return 0;
}

static bool pod_recorded(const session_t *s)
{
    for (size_t i = 0; i < s->n_created; i++)
        if (s->created[i].kind == RES_POD)
            return true;
    return false;
}

int session_teardown(session_t *s, as_error_t **err)
{
    int first = 0;
    bg_job_t side = {0};
    while (s->n_created > 0) {
        /* The pod and the router (a container outside it, made just
         * before it) go at the same time. */
        if (side.api == NULL && s->n_created >= 2 && s->created[s->n_created - 1].kind == RES_POD &&
            s->created[s->n_created - 2].kind == RES_CONTAINER) {
            as_error_t *e = NULL;
            if (bg_start(&side, s->api, remove_container, s->created[s->n_created - 2].name, &e) < 0)
                as_error_free(&e);    /* then it goes in turn, below */
        }
        resource_t *res = &s->created[s->n_created - 1];
        as_error_t *e = NULL;
        int r = 0;
        switch (res->kind) {
        case RES_POD_CONTAINER:
            if (!pod_recorded(s))
                r = podman_container_remove(s->api, res->name, &e);
            break;
        case RES_CONTAINER:
            r = side.api != NULL ? bg_join(&side, &e) : podman_container_remove(s->api, res->name, &e);
            break;
        case RES_POD:       r = podman_pod_remove(s->api, res->name, &e); break;
        default:            r = podman_network_remove(s->api, res->name, &e); break;
        }
        if (r < 0 && r != -ENOENT) {
            if (first == 0) {
                first = r;
                *err = e;
                e = NULL;
            }
            as_error_free(&e);
            bg_join(&side, NULL);
            return first;     /* keep the rest recorded: the sweep removes them */
        }
        as_error_free(&e);
        free(res->name);
        s->n_created--;
    }
    return first;
}

char *session_leftovers(const session_t *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    static const char *kinds[] = { "network", "pod", "container", "container" };
    for (size_t i = s->n_created; i > 0; i--)
        fprintf(f, "%s %s\n", kinds[s->created[i - 1].kind], s->created[i - 1].name);
    fclose(f);
    return text;
}
