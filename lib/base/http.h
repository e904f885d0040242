/* The only module that knows libcurl: HTTP/1.1 over a unix socket.
 * Plain requests go through one reused handle, curl end to end; a
 * "hijacked" stream (attach, events) gets its own connection that stays
 * open as a raw byte pipe, its answer's head read by lib/base/http_head.h. */
#ifndef AS_HTTP_H
#define AS_HTTP_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "util.h"

typedef struct http_client http_client_t;

typedef struct http_response {
    long status;
    char *body;      /* NUL-terminated, may be empty; never NULL after success */
    size_t len;
} http_response_t;

int http_client_new(const char *socket_path, http_client_t **ret, as_error_t **err);
void http_client_free(http_client_t *c);
DEFINE_CLEANUP_FUNC(http_client_t, http_client_free)
/* A second client on the same socket, for another thread. */
int http_client_clone(const http_client_t *c, http_client_t **ret, as_error_t **err);

/* One request. `body` is JSON or NULL; timeout_ms 0 means no limit (wait).
 * Any HTTP status is a success of this call: callers check ret->status. */
int http_request(http_client_t *c, const char *method, const char *path,
                 const char *body, long timeout_ms, http_response_t *ret, as_error_t **err);
void http_response_clear(http_response_t *r);

/* One request whose answer is handed to `sink` as it comes (a tar stream,
 * a build's progress), decoded of its transfer encoding. `body` of
 * body_len bytes (may be binary, or NULL) is sent as `content_type`. The
 * sink sees only a 2xx answer; it returns 0, or a negative errno (with
 * *err filled) that stops the transfer and is returned. Any other status
 * comes back in *ret_status with the start of its body in ret_refusal
 * (4 KiB at most; NULL-able) for the caller to map. timeout_ms 0: none. */
typedef int (*http_sink_fn)(const char *data, size_t len, void *ctx, as_error_t **err);
int http_request_stream(http_client_t *c, const char *method, const char *path, const void *body,
                        size_t body_len, const char *content_type, long timeout_ms, http_sink_fn sink,
                        void *ctx, long *ret_status, http_response_t *ret_refusal, as_error_t **err);

/* Percent-encode a path or query component. */
char *http_escape(http_client_t *c, const char *s);

/* Optional observer of every request (method, path, status, milliseconds),
 * for `AGENT_SANDBOX_TRACE`; lib/ itself never prints. */
typedef void (*http_trace_fn)(const char *method, const char *path, long status, double ms);
void http_set_trace(http_trace_fn fn);

typedef struct http_stream http_stream_t;

/* Sends `method path` with `body` (may be NULL) on a new connection of its
 * own and reads the answer's head (lib/base/http_head.h), both within
 * timeout_ms (0: no limit, as for http_request). On 101 or 200 the
 * connection is handed over as a raw stream. Any other status is a failure
 * like any other (as_error_http: *err filled, with the status and the start
 * of the body); when ret_refusal is given it also receives the status and
 * what of the body came with the head, for the caller to map. */
int http_stream_open(http_client_t *c, const char *method, const char *path, const char *body,
                     long timeout_ms, http_response_t *ret_refusal, http_stream_t **ret,
                     as_error_t **err);
/* fd to poll for readability; do not read it directly */
int http_stream_fd(const http_stream_t *s);
/* > 0 bytes read, 0 on end of stream, -EAGAIN when nothing is ready */
ssize_t http_stream_recv(http_stream_t *s, void *buf, size_t len, as_error_t **err);
/* Writes what the socket takes now: > 0 bytes sent, -EAGAIN when full. */
ssize_t http_stream_send_some(http_stream_t *s, const void *buf, size_t len, as_error_t **err);
/* No more data from us: half-close, so the far side sees end of stdin. */
int http_stream_close_write(http_stream_t *s, as_error_t **err);
void http_stream_free(http_stream_t *s);
DEFINE_CLEANUP_FUNC(http_stream_t, http_stream_free)

#endif
