#include "stale_sweep.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "cli.h"
#include "podman/podman_api_transport.h"
#include "base/util.h"
#include "session/stale.h"

struct stale_sweep_job {
    pthread_t thread;
    podman_api_t *api;          /* the thread's own connection */
    const char *base, *own_id;  /* the backend's, which outlives the job */
    stale_report_t rep;
    as_error_t *err;
    int rc;
};

static void sweep_report(int rc, as_error_t **err, const stale_report_t *rep, bool verbose)
{
    if (rc < 0) {
        as_error_prefix(err, "removing the leftovers of earlier sessions");
        report_error(err);
    }
    as_error_free(err);
    if (verbose || rep->resources > 0)
        report("removed %zu leftover %s and %zu %s of %zu earlier %s whose CLI was gone",
               rep->resources, plural(rep->resources, "resource", "resources"), rep->dirs,
               plural(rep->dirs, "directory", "directories"), rep->sessions,
               plural(rep->sessions, "session", "sessions"));
}

void sweep_stale(cli_backend_t *b, bool verbose)
{
    as_error_t *err = NULL;
    stale_report_t rep = {0};
    int rc = stale_sweep(b->api, b->dir->base, b->dir->id, &rep, &err);
    sweep_report(rc, &err, &rep, verbose);
}

static void *sweep_main(void *arg)
{
    struct stale_sweep_job *j = arg;
    j->rc = stale_sweep(j->api, j->base, j->own_id, &j->rep, &j->err);
    return NULL;
}

void sweep_stale_begin(cli_backend_t *b)
{
    struct stale_sweep_job *j = calloc(1, sizeof(*j));
    as_error_t *err = NULL;
    if (j == NULL || podman_api_clone(b->api, &j->api, &err) < 0) {
        as_error_free(&err);
        free(j);
        sweep_stale(b, false);
        return;
    }
    j->base = b->dir->base;
    j->own_id = b->dir->id;
    if (pthread_create(&j->thread, NULL, sweep_main, j) != 0) {
        podman_api_free(j->api);
        free(j);
        sweep_stale(b, false);
        return;
    }
    b->sweep = j;
}

void sweep_stale_end(cli_backend_t *b)
{
    struct stale_sweep_job *j = b->sweep;
    if (j == NULL)
        return;
    b->sweep = NULL;
    pthread_join(j->thread, NULL);
    podman_api_free(j->api);
    sweep_report(j->rc, &j->err, &j->rep, false);
    free(j);
}
