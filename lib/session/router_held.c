#include "router_held.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "base/msg.h"
#include "base/util.h"
#include "egress/router_terminate.h"

#define SEND_TIMEOUT_MS 10000L

int router_held_payload(const egress_spec_t *e, const char *key_pem, char **ret, as_error_t **err)
{
    _cleanup_free_ char *values = NULL;
    int r = router_render_held_values(&e->terminate, &values, err);
    if (r < 0)
        return r;
    msg_t o;
    if ((r = msg_open_secret(&o, err)) < 0) {
        explicit_bzero(values, strlen(values));
        return r;
    }
    fprintf(o.f, ROUTER_HELD_BEGIN "\n%s" ROUTER_HELD_VALUES_LINE "\n%s" ROUTER_HELD_END "\n",
            key_pem, values);
    explicit_bzero(values, strlen(values));
    return msg_close(&o, ret, err);
}

static int send_all(http_stream_t *in, const char *buf, size_t len, as_error_t **err)
{
    long deadline = monotonic_ms() + SEND_TIMEOUT_MS;
    while (len > 0) {
        ssize_t n = http_stream_send_some(in, buf, len, err);
        if (n == -EAGAIN) {
            long left = deadline - monotonic_ms();
            if (left <= 0)
                return as_error_make(err, ETIMEDOUT, "the router did not take its held secrets");
            struct pollfd p = { .fd = http_stream_fd(in), .events = POLLOUT };
            poll(&p, 1, (int)left);
            continue;
        }
        if (n < 0)
            return (int)n;
        buf += n;
        len -= (size_t)n;
    }
    return http_stream_close_write(in, err);
}

int router_held_start(podman_api_t *api, void *arg, as_error_t **err)
{
    router_held_job_t *job = arg;
    const podman_container_spec_t *spec = &job->egress->router;
    _cleanup_free_ char *id = NULL;
    _cleanup_(http_stream_freep) http_stream_t *in = NULL;
    int r;
    if ((r = podman_container_create(api, spec, &id, err)) == 0 &&
        (r = podman_container_attach_input(api, id, &in, err)) == 0 &&
        (r = podman_container_start(api, id, err)) == 0)
        r = send_all(in, job->payload, strlen(job->payload), err);
    explicit_bzero(job->payload, strlen(job->payload));
    free(steal_pointer(&job->payload));
    return r < 0 ? as_error_prefix(err, "handing the router its held secrets") : 0;
}
