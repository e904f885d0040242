#include "backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "labels.h"
#include "stale.h"
#include "base/util.h"
#include "podman/podman_api_transport.h"

static int service_in(backend_t *b, as_error_t **err)
{
    _cleanup_free_ char *log = NULL;
    if (asprintf(&log, "%s/service.log", b->dir->path) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return podman_service_start(b->dir->socket_path, log, SERVICE_START_TIMEOUT_MS, b->signals,
                                &b->service, &b->api, err);
}

int backend_open(const char *id, const signal_source_t *signals, backend_t *ret, as_error_t **err)
{
    backend_t b = { .signals = signals };
    int r = session_dir_create(id, &b.dir, err);
    if (r < 0)
        return as_error_prefix(err, "creating the session directory");
    *ret = b;
    return 0;
}

int backend_service(backend_t *b, as_error_t **err)
{
    return b->service != NULL ? 0 : service_in(b, err);
}

int backend_start(const char *id, const signal_source_t *signals, backend_t *ret, as_error_t **err)
{
    backend_t b = {0};
    int r = backend_open(id, signals, &b, err);
    if (r < 0)
        return r;
    if ((r = backend_service(&b, err)) < 0) {
        backend_stop(&b, NULL);
        return r;
    }
    *ret = b;
    return 0;
}

int backend_run_once(backend_t *b, const podman_container_spec_t *spec, int *ret_exit, as_error_t **err)
{
    _cleanup_free_ char *id = NULL;
    int r = podman_container_create(b->api, spec, &id, err);
    if (r < 0)
        return r;
    r = podman_container_start(b->api, id, err);
    if (r == 0)
        r = podman_container_wait(b->api, id, ret_exit, err);
    as_error_t *rm_err = NULL;
    int rr = podman_container_remove(b->api, id, &rm_err);
    if (r == 0 && rr < 0)
        return as_error_pass(err, &rm_err);
    as_error_free(&rm_err);
    return r;
}

bool backend_usable(backend_t *b)
{
    /* a service of its own that ended answers no more; without one (a
     * connection to someone else's), the answer alone tells */
    if (b->service != NULL && podman_service_reap_if_ended(b->service))
        return false;
    /* a service dying right now may not have been reaped yet */
    as_error_t *err = NULL;
    bool ok = podman_ping(b->api, 2000, &err) == 0;
    as_error_free(&err);
    return ok;
}

int backend_restart(backend_t *b, as_error_t **err)
{
    podman_api_free(b->api);
    b->api = NULL;
    podman_service_stop(b->service, SERVICE_STOP_TIMEOUT_MS, NULL);
    podman_service_free(b->service);
    b->service = NULL;
    unlink(b->dir->socket_path);
    return service_in(b, err);
}

void backend_stop(backend_t *b, const session_say_t *to)
{
    as_error_t *err = NULL;
    podman_api_free(b->api);
    b->api = NULL;
    if (b->service != NULL && podman_service_stop(b->service, SERVICE_STOP_TIMEOUT_MS, &err) < 0)
        say_error(to, &err);
    podman_service_free(b->service);
    b->service = NULL;
    if (b->dir != NULL && session_dir_remove(b->dir, &err) < 0)
        say_error(to, &err);
    session_dir_free(b->dir);
    b->dir = NULL;
}

void backend_detach(backend_t *b)
{
    podman_api_free(b->api);
    b->api = NULL;
    podman_service_free(b->service);
    b->service = NULL;
    session_dir_free(b->dir);      /* the lock stays the child's */
    b->dir = NULL;
}

/* ---- the sweep of dead sessions ---------------------------------------- */

struct stale_sweep_job {
    pthread_t thread;
    podman_api_t *api;          /* the thread's own connection */
    const char *base, *own_id;  /* the backend's, which outlives the job */
    stale_report_t rep;
    as_error_t *err;
    int rc;
};

static void sweep_said(const session_say_t *to, int rc, as_error_t **err, const stale_report_t *rep, bool verbose)
{
    if (rc < 0) {
        as_error_prefix(err, "removing the leftovers of earlier sessions");
        say_error(to, err);
    }
    as_error_free(err);
    if (verbose || rep->resources > 0)
        say(to, SAY_PLAIN, "removed %zu leftover %s and %zu %s of %zu earlier %s whose CLI was gone",
            rep->resources, plural(rep->resources, "resource", "resources"), rep->dirs,
            plural(rep->dirs, "directory", "directories"), rep->sessions, plural(rep->sessions, "session", "sessions"));
}

void backend_sweep(backend_t *b, const session_say_t *to, bool verbose)
{
    as_error_t *err = NULL;
    stale_report_t rep = {0};
    int rc = stale_sweep(b->api, b->dir->base, b->dir->id, &rep, &err);
    sweep_said(to, rc, &err, &rep, verbose);
}

static void *sweep_main(void *arg)
{
    struct stale_sweep_job *j = arg;
    j->rc = stale_sweep(j->api, j->base, j->own_id, &j->rep, &j->err);
    return NULL;
}

void backend_sweep_begin(backend_t *b, const session_say_t *to)
{
    struct stale_sweep_job *j = calloc(1, sizeof(*j));
    as_error_t *err = NULL;
    if (j == NULL || podman_api_clone(b->api, &j->api, &err) < 0) {
        as_error_free(&err);
        free(j);
        backend_sweep(b, to, false);
        return;
    }
    j->base = b->dir->base;
    j->own_id = b->dir->id;
    if (pthread_create(&j->thread, NULL, sweep_main, j) != 0) {
        podman_api_free(j->api);
        free(j);
        backend_sweep(b, to, false);
        return;
    }
    b->sweep = j;
}

void backend_sweep_end(backend_t *b, const session_say_t *to)
{
    struct stale_sweep_job *j = b->sweep;
    if (j == NULL)
        return;
    b->sweep = NULL;
    pthread_join(j->thread, NULL);
    podman_api_free(j->api);
    sweep_said(to, j->rc, &j->err, &j->rep, false);
    free(j);
}

int image_status(podman_api_t *api, const char *image, bool *ret_present, char **ret_version,
                 as_error_t **err)
{
    bool present = false;
    char *version = NULL;
    int r = podman_image_exists(api, image, &present, err);
    if (r == 0 && present)
        r = podman_image_label(api, image, LABEL_VERSION, &version, err);
    if (r < 0)
        return r;
    *ret_present = present;
    *ret_version = version;
    return 0;
}
