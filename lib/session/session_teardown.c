/* Teardown runs every recorded undo, newest first, and goes on past any
 * failure, so that one resource that cannot go does not keep the others. */
#include "session_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/msg.h"
#include "base/util.h"

/* The router (a container outside the pod) is killed first, then removed:
 * a removal stops a running container itself, but libpod 4 then polls for
 * its end every 100 ms, while a container killed a call earlier is gone by
 * the first look. A kill that fails (not running, gone) is no matter: the removal
 * after it says what is wrong. The pod is not killed first: a kill of a pod
 * whose agent lost its conmon leaves the pod's removal failing
 * (405-agent-lost.bats, "bug 8"), and the removal kills it as well. */
static void kill_first(podman_api_t *api, const char *name)
{
    as_error_t *e = NULL;
    podman_container_kill(api, name, SIGKILL, &e);
    as_error_free(&e);
}

static int remove_container(podman_api_t *api, void *arg, as_error_t **err)
{
    kill_first(api, arg);
    int r = podman_container_remove(api, arg, err);
    if (r == -ENOENT) {
        as_error_free(err);
        return 0;
    }
    return r;
}

/* A pod's removal is asked once more when it fails, because podman 4.3
 * once answered a pod's forced removal with HTTP 500 ("invalid memory
 * address or nil pointer dereference"; e2e 070 under load, a terminal
 * session's removals after its prompt). What fails twice is reported as
 * before. */
static int remove_pod(podman_api_t *api, const char *name, as_error_t **err)
{
    int r = podman_pod_remove(api, name, err);
    if (r == 0 || r == -ENOENT)
        return r;
    as_error_free(err);
    nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000000L }, NULL);
    return podman_pod_remove(api, name, err);
}

static bool pod_recorded(const session_t *s)
{
    for (size_t i = 0; i < s->n_done; i++)
        if (s->done[i].kind == UNDO_POD)
            return true;
    return false;
}

/* Runs one undo. -ENOENT (gone already) counts as done, since the goal is
 * that the resource is gone. */
static int undo_one(session_t *s, const undo_t *u, bg_job_t *side, as_error_t **err)
{
    int r;
    switch (u->kind) {
    case UNDO_POD_CONTAINER:
        return 0;           /* it goes with the pod (see below) */
    case UNDO_CONTAINER:
        if (side->api != NULL)
            return bg_join(side, err);
        kill_first(s->api, u->name);
        r = podman_container_remove(s->api, u->name, err);
        break;
    case UNDO_POD:
        r = remove_pod(s->api, u->name, err);
        break;
    default:
        r = podman_network_remove(s->api, u->name, err);
        break;
    }
    if (r == -ENOENT) {
        as_error_free(err);
        return 0;
    }
    return r;
}

/* Starts the router's removal on a thread of its own when the pod's is
 * next, so that the pod and the router (a container outside it, made just
 * before it) go at the same time. */
static void start_side(session_t *s, size_t i, bg_job_t *side)
{
    if (side->api != NULL || i == 0 || s->done[i].kind != UNDO_POD || s->done[i - 1].kind != UNDO_CONTAINER)
        return;
    as_error_t *e = NULL;
    if (bg_start(side, s->api, remove_container, s->done[i - 1].name, "removing the router", &e) < 0)
        as_error_free(&e);    /* then the router goes in turn */
}

int session_teardown(session_t *s, as_error_t **err)
{
    bool with_pod = pod_recorded(s);
    bool left[SESSION_MAX_UNDO] = { false };
    int first = 0, pod_rc = 0;
    bg_job_t side = {0};
    for (size_t i = s->n_done; i > 0; i--) {
        undo_t *u = &s->done[i - 1];
        start_side(s, i - 1, &side);
        as_error_t *e = NULL;
        int r = u->kind == UNDO_POD_CONTAINER && !with_pod
                    ? remove_container(s->api, u->name, &e) : undo_one(s, u, &side, &e);
        if (u->kind == UNDO_POD)
            pod_rc = r;
        if (r < 0) {
            left[i - 1] = true;
            if (first == 0)
                first = r;
            as_error_add(err, &e);
        }
        as_error_free(&e);
    }
    bg_join(&side, err);
    /* What is left stays recorded, in order, so that the sweep removes it
     * later. */
    size_t n = 0;
    for (size_t i = 0; i < s->n_done; i++) {
        bool stays = left[i] || (s->done[i].kind == UNDO_POD_CONTAINER && with_pod && pod_rc < 0);
        if (stays)
            s->done[n++] = s->done[i];
        else
            free(s->done[i].name);
    }
    s->n_done = n;
    return first;
}

char *session_leftovers(const session_t *s)
{
    char *text = NULL;
    msg_t m;
    if (msg_open(&m, NULL) < 0)
        return NULL;
    static const char *kinds[] = { "network", "pod", "container", "container" };
    for (size_t i = s->n_done; i > 0; i--)
        fprintf(m.f, "%s %s\n", kinds[s->done[i - 1].kind], s->done[i - 1].name);
    if (msg_close(&m, &text, NULL) < 0)
        return NULL;
    return text;
}
