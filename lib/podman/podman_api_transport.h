/* How the typed calls reach libpod: the handle on the service's socket,
 * one request checked against the statuses that mean success, the
 * streamed requests, and libpod's error answers mapped into as_error_t
 * (a 404 gives -ENOENT and a 409 -EEXIST, so callers can tell them
 * apart). It knows HTTP and libpod's error shape, and no endpoint.
 * The handle's life, the ping and the error mapping are for everyone
 * (through podman_api.h); the requests are for the calls in
 * podman_api.c and podman_api_stream.c, since everything above
 * lib/podman/ speaks the typed calls. */
#ifndef AS_PODMAN_API_TRANSPORT_H
#define AS_PODMAN_API_TRANSPORT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/http.h"
#include "base/json.h"
#include "base/util.h"

/* The prefix of every libpod endpoint: the API version we speak. */
#define PODMAN_API "/v4.0.0/libpod"

/* Generous, since a container create on vfs storage copies the whole image. */
#define PODMAN_CALL_TIMEOUT_MS 120000L

typedef struct podman_api podman_api_t;

int podman_api_new(const char *socket_path, podman_api_t **ret, as_error_t **err);
void podman_api_free(podman_api_t *api);
DEFINE_CLEANUP_FUNC(podman_api_t, podman_api_free)
/* Another handle on the same service: one per thread. */
int podman_api_clone(const podman_api_t *api, podman_api_t **ret, as_error_t **err);

/* GET /_ping with a short timeout; fails while the service is not up yet. */
int podman_ping(podman_api_t *api, long timeout_ms, as_error_t **err);

/* Maps a libpod error answer (status + body) into *err; `what` names the call.
 * Exposed for unit tests. */
int podman_error_from_answer(long status, const char *body, const char *what, as_error_t **err);

/* One request. `ok1` and `ok2` are the statuses that mean success; any
 * other status becomes an error named by `what`, in libpod's words.
 * ret_status (may be NULL) receives the status of a success; ret_doc
 * (may be NULL) its parsed body, and a success without one is -ENODATA. */
int podman_request(podman_api_t *api, const char *method, const char *path, const char *body,
                   long timeout_ms, long ok1, long ok2, const char *what,
                   long *ret_status, json_t **ret_doc, as_error_t **err);

/* One request whose 200 answer goes to `sink` as it comes (a tar stream,
 * a build's progress), without a deadline; `body` of `len` bytes is sent
 * as `content_type`. A failure is named by `what`; a refusal is reported
 * in libpod's words. */
int podman_request_stream(podman_api_t *api, const char *method, const char *path, const void *body,
                          size_t len, const char *content_type, http_sink_fn sink, void *ctx,
                          const char *what, as_error_t **err);

/* A stream left open for the caller to read (an attach, events). A
 * refusal is reported in libpod's words, named by `what`; with `what`
 * NULL it is left in HTTP's words, for the caller to name. */
int podman_stream_open(podman_api_t *api, const char *method, const char *path, const char *what,
                       http_stream_t **ret, as_error_t **err);

/* Percent-encodes a path or query component; NULL when out of memory. */
char *podman_escape(podman_api_t *api, const char *text);

/* A new string printed from fmt (a request's path, a call's name); NULL
 * when out of memory. */
char *podman_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline int podman_oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

#endif
