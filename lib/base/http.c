#include "http.h"

#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "http_head.h"
#include "util.h"

struct http_client {
    CURL *curl;
    char *socket_path;
};

struct http_stream {
    CURL *curl;
    curl_socket_t fd;
    char *pending;      /* bytes read past the head, handed out first */
    size_t pending_len, pending_off;
};

static bool curl_ready;
static http_trace_fn trace;

void http_set_trace(http_trace_fn fn)
{
    trace = fn;
}

static double elapsed_ms(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

int http_client_new(const char *socket_path, http_client_t **ret, as_error_t **err)
{
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_NOTHING) != CURLE_OK)
            return as_error_make(err, EIO, "initialising libcurl failed");
        curl_ready = true;
    }
    _cleanup_(http_client_freep) http_client_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    c->curl = curl_easy_init();
    c->socket_path = strdup(socket_path);
    if (c->curl == NULL || c->socket_path == NULL)
        return as_error_make(err, ENOMEM, "initialising an HTTP handle failed");
    *ret = steal_pointer(&c);
    return 0;
}

int http_client_clone(const http_client_t *c, http_client_t **ret, as_error_t **err)
{
    return http_client_new(c->socket_path, ret, err);
}

void http_client_free(http_client_t *c)
{
    if (c == NULL)
        return;
    if (c->curl != NULL)
        curl_easy_cleanup(c->curl);
    free(c->socket_path);
    free(c);
}

char *http_escape(http_client_t *c, const char *s)
{
    char *e = curl_easy_escape(c->curl, s, 0);
    if (e == NULL)
        return NULL;
    char *copy = strdup(e);     /* callers free() it, not curl_free() */
    curl_free(e);
    return copy;
}

typedef struct {
    char *data;
    size_t len, cap;
    bool oom;
} buffer_t;

static size_t collect(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    buffer_t *b = userdata;
    size_t n = size * nmemb;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (p == NULL) {
            b->oom = true;
            return 0;   /* makes curl fail the transfer */
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

static void setup_common(CURL *curl, const char *socket_path, const char *url, long timeout_ms)
{
    curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, socket_path);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
}

/* One request on the client's handle: the body (none: empty for POST and
 * PUT) with its type, no "Expect: 100-continue" round trip, the answer to
 * `write`. The status is 0 when no answer came. */
typedef struct {
    const char *method, *path;
    const void *body;
    size_t body_len;
    const char *content_type;
    long timeout_ms;
    curl_write_callback write;
    void *write_data;
} request_t;

static CURLcode perform(http_client_t *c, const request_t *r, long *ret_status)
{
    _cleanup_free_ char *url = NULL, *type = NULL;
    if (asprintf(&url, "http://d%s", r->path) < 0 ||
        (r->content_type != NULL && asprintf(&type, "Content-Type: %s", r->content_type) < 0))
        return CURLE_OUT_OF_MEMORY;
    struct curl_slist *headers = NULL;
    curl_easy_reset(c->curl);
    setup_common(c->curl, c->socket_path, url, r->timeout_ms);
    curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, r->method);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, r->write);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, r->write_data);
    if (r->body != NULL || strcmp(r->method, "POST") == 0 || strcmp(r->method, "PUT") == 0) {
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, r->body != NULL ? r->body : "");
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
    }
    if (type != NULL)
        headers = curl_slist_append(headers, type);
    headers = curl_slist_append(headers, "Expect:");
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, headers);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CURLcode rc = curl_easy_perform(c->curl);
    curl_slist_free_all(headers);
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
    *ret_status = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, ret_status);
    if (trace != NULL)
        trace(r->method, r->path, *ret_status, elapsed_ms(&t0));
    return rc;
}

static int transfer_error(CURLcode rc, const char *method, const char *path, as_error_t **err)
{
    int code = rc == CURLE_OPERATION_TIMEDOUT ? ETIMEDOUT
             : rc == CURLE_COULDNT_CONNECT ? ECONNREFUSED
             : rc == CURLE_OUT_OF_MEMORY ? ENOMEM : EIO;
    return as_error_make(err, code, "%s %s: %s", method, path, curl_easy_strerror(rc));
}

int http_request(http_client_t *c, const char *method, const char *path,
                 const char *body, long timeout_ms, http_response_t *ret, as_error_t **err)
{
    buffer_t buf = {0};
    request_t r = { .method = method, .path = path, .body = body,
                    .body_len = body != NULL ? strlen(body) : 0,
                    .content_type = body != NULL ? "application/json" : NULL,
                    .timeout_ms = timeout_ms, .write = collect, .write_data = &buf };
    long status;
    CURLcode rc = perform(c, &r, &status);
    if (rc != CURLE_OK) {
        free(buf.data);
        if (buf.oom)
            return as_error_make(err, ENOMEM, "%s %s: out of memory reading the answer", method, path);
        return transfer_error(rc, method, path, err);
    }
    if (buf.data == NULL && (buf.data = strdup("")) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    ret->status = status;
    ret->body = buf.data;
    ret->len = buf.len;
    return 0;
}

typedef struct {
    CURL *curl;
    http_sink_fn sink;
    void *ctx;
    as_error_t *err;         /* the sink's */
    int sink_r;
    buffer_t refusal;
} stream_state_t;

static size_t to_sink(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    stream_state_t *st = userdata;
    size_t n = size * nmemb;
    long status = 0;
    curl_easy_getinfo(st->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299) {
        size_t room = st->refusal.len < 4096 ? 4096 - st->refusal.len : 0;
        if (room > 0 && collect(ptr, 1, n < room ? n : room, &st->refusal) == 0)
            return 0;
        return n;
    }
    st->sink_r = st->sink(ptr, n, st->ctx, &st->err);
    return st->sink_r < 0 ? 0 : n;
}

int http_request_stream(http_client_t *c, const char *method, const char *path, const void *body,
                        size_t body_len, const char *content_type, long timeout_ms, http_sink_fn sink,
                        void *ctx, long *ret_status, http_response_t *ret_refusal, as_error_t **err)
{
    stream_state_t st = { .curl = c->curl, .sink = sink, .ctx = ctx };
    request_t r = { .method = method, .path = path, .body = body, .body_len = body_len,
                    .content_type = content_type, .timeout_ms = timeout_ms,
                    .write = to_sink, .write_data = &st };
    long status;
    CURLcode rc = perform(c, &r, &status);
    if (st.sink_r < 0) {
        free(st.refusal.data);
        if (st.err == NULL)
            return as_error_make(err, -st.sink_r, "%s %s: the answer's reader failed", method, path);
        return as_error_pass(err, &st.err);
    }
    if (rc != CURLE_OK) {
        free(st.refusal.data);
        return transfer_error(rc, method, path, err);
    }
    *ret_status = status;
    if (ret_refusal != NULL) {
        ret_refusal->status = status;
        ret_refusal->body = st.refusal.data != NULL ? st.refusal.data : strdup("");
        ret_refusal->len = st.refusal.len;
        if (ret_refusal->body == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
    } else {
        free(st.refusal.data);
    }
    return 0;
}

void http_response_clear(http_response_t *r)
{
    if (r == NULL)
        return;
    free(r->body);
    r->body = NULL;
    r->len = 0;
    r->status = 0;
}

/* When a wait gives up: timeout_ms from its start, or never (0, as for
 * every call of this module). */
typedef struct deadline {
    bool none;
    struct timespec at;
} deadline_t;

static deadline_t deadline_after(long timeout_ms)
{
    deadline_t d = { .none = timeout_ms <= 0 };
    clock_gettime(CLOCK_MONOTONIC, &d.at);
    d.at.tv_sec += timeout_ms / 1000;
    d.at.tv_nsec += (timeout_ms % 1000) * 1000000;
    if (d.at.tv_nsec >= 1000000000) {
        d.at.tv_sec++;
        d.at.tv_nsec -= 1000000000;
    }
    return d;
}

/* Milliseconds left, 0 when it has passed; -1 without a deadline. */
static long remaining_ms(const deadline_t *d)
{
    if (d->none)
        return -1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (d->at.tv_sec - now.tv_sec) * 1000 + (d->at.tv_nsec - now.tv_nsec) / 1000000;
    return ms > 0 ? ms : 0;
}

/* Waits for fd until the deadline: false when it passed first. */
static bool wait_fd(curl_socket_t fd, short events, const deadline_t *d)
{
    struct pollfd p = { .fd = fd, .events = events };
    for (;;) {
        long left = remaining_ms(d);
        if (left == 0)
            return false;
        int n = poll(&p, 1, left < 0 ? -1 : (int)left);
        if (n > 0 || (n < 0 && errno != EINTR))
            return true;           /* ready, or an error the next call reports */
        if (n == 0)
            return false;
    }
}

static int send_all(CURL *curl, curl_socket_t fd, const void *data, size_t len, const deadline_t *d,
                    long timeout_ms, as_error_t **err)
{
    const char *p = data;
    while (len > 0) {
        size_t sent = 0;
        CURLcode rc = curl_easy_send(curl, p, len, &sent);
        if (rc == CURLE_AGAIN) {
            if (!wait_fd(fd, POLLOUT, d))
                return as_error_make(err, ETIMEDOUT, "the API took no more of the request within %ld ms",
                                     timeout_ms);
            continue;
        }
        if (rc != CURLE_OK)
            return as_error_make(err, EPIPE, "writing to the API stream: %s", curl_easy_strerror(rc));
        p += sent;
        len -= sent;
    }
    return 0;
}

/* Reads until the answer's head is complete (lib/base/http_head.h); what came
 * after it stays pending, handed out first by http_stream_recv. */
static int read_head(http_stream_t *s, const deadline_t *d, long timeout_ms, long *ret_status, as_error_t **err)
{
    buffer_t b = {0};
    http_head_t head;
    int r;
    for (;;) {
        char chunk[4096];
        size_t got = 0;
        CURLcode rc = curl_easy_recv(s->curl, chunk, sizeof(chunk), &got);
        if (rc == CURLE_AGAIN) {
            if (!wait_fd(s->fd, POLLIN, d)) {
                r = as_error_make(err, ETIMEDOUT, "no answer from the API within %ld ms", timeout_ms);
                break;
            }
            continue;
        }
        if (rc != CURLE_OK || got == 0) {
            r = as_error_make(err, ECONNRESET, "the API closed the connection before answering");
            break;
        }
        if (collect(chunk, 1, got, &b) != got) {
            r = as_error_make(err, ENOMEM, "out of memory");
            break;
        }
        if ((r = http_head_parse(b.data, b.len, &head, err)) != 0)
            break;
    }
    if (r > 0) {
        /* the buffer is NUL-terminated past its data (collect) */
        s->pending_len = b.len - head.len;
        memmove(b.data, b.data + head.len, s->pending_len + 1);
        s->pending = steal_pointer(&b.data);
        *ret_status = head.status;
        r = 0;
    }
    free(b.data);
    return r;
}

/* A new connection of its own, connected and nothing sent yet. */
static int stream_connect(const http_client_t *c, http_stream_t **ret, as_error_t **err)
{
    _cleanup_(http_stream_freep) http_stream_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    s->fd = CURL_SOCKET_BAD;
    s->curl = curl_easy_init();
    if (s->curl == NULL)
        return as_error_make(err, ENOMEM, "initialising an HTTP handle failed");
    setup_common(s->curl, c->socket_path, "http://d/", 0);
    curl_easy_setopt(s->curl, CURLOPT_CONNECT_ONLY, 1L);
    CURLcode rc = curl_easy_perform(s->curl);
    if (rc != CURLE_OK)
        return as_error_make(err, ECONNREFUSED, "connecting: %s", curl_easy_strerror(rc));
    curl_easy_getinfo(s->curl, CURLINFO_ACTIVESOCKET, &s->fd);
    *ret = steal_pointer(&s);
    return 0;
}

int http_stream_open(http_client_t *c, const char *method, const char *path, const char *body,
                     long timeout_ms, http_response_t *ret_refusal, http_stream_t **ret,
                     as_error_t **err)
{
    _cleanup_(http_stream_freep) http_stream_t *s = NULL;
    _cleanup_free_ char *req = NULL;
    size_t body_len = body != NULL ? strlen(body) : 0;
    if (asprintf(&req, "%s %s HTTP/1.1\r\nHost: d\r\nUser-Agent: agent-sandbox\r\n"
                       "Connection: Upgrade\r\nUpgrade: tcp\r\n"
                       "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                 method, path, body_len, body != NULL ? body : "") < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    long status = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* one deadline for the whole exchange: the request sent, the head read */
    deadline_t d = deadline_after(timeout_ms);
    if (stream_connect(c, &s, err) < 0 ||
        send_all(s->curl, s->fd, req, strlen(req), &d, timeout_ms, err) < 0 ||
        read_head(s, &d, timeout_ms, &status, err) < 0)
        return as_error_prefix(err, "%s %s", method, path);
    if (trace != NULL)
        trace(method, path, status, elapsed_ms(&t0));
    if (status == 101 || status == 200) {
        *ret = steal_pointer(&s);
        return 0;
    }
    /* A refusal: its body is a short document; what came with the head
     * names the cause (the rest may not be here yet). */
    const char *rest = s->pending != NULL ? s->pending : "";
    int r = as_error_http(err, status, "%s %s: HTTP %ld: %.*s", method, path, status,
                          (int)strcspn(rest, "\n"), rest);
    if (ret_refusal != NULL) {
        ret_refusal->status = status;
        ret_refusal->len = s->pending_len;
        ret_refusal->body = steal_pointer(&s->pending);
        if (ret_refusal->body == NULL)
            ret_refusal->body = strdup("");
    }
    return r;
}

int http_stream_fd(const http_stream_t *s)
{
    return (int)s->fd;
}

ssize_t http_stream_recv(http_stream_t *s, void *buf, size_t len, as_error_t **err)
{
    if (s->pending_off < s->pending_len) {
        size_t n = s->pending_len - s->pending_off;
        if (n > len)
            n = len;
        memcpy(buf, s->pending + s->pending_off, n);
        s->pending_off += n;
        return (ssize_t)n;
    }
    size_t got = 0;
    CURLcode rc = curl_easy_recv(s->curl, buf, len, &got);
    if (rc == CURLE_AGAIN)
        return -EAGAIN;
    if (rc != CURLE_OK)
        return as_error_make(err, ECONNRESET, "reading the API stream: %s", curl_easy_strerror(rc));
    return (ssize_t)got;
}

ssize_t http_stream_send_some(http_stream_t *s, const void *buf, size_t len, as_error_t **err)
{
    size_t sent = 0;
    CURLcode rc = curl_easy_send(s->curl, buf, len, &sent);
    if (rc == CURLE_AGAIN)
        return -EAGAIN;
    if (rc != CURLE_OK)
        return as_error_make(err, EPIPE, "writing to the API stream: %s", curl_easy_strerror(rc));
    return (ssize_t)sent;
}

int http_stream_close_write(http_stream_t *s, as_error_t **err)
{
    if (shutdown(s->fd, SHUT_WR) < 0)
        return as_error_errno(err, errno, "closing the API stream for writing");
    return 0;
}

void http_stream_free(http_stream_t *s)
{
    if (s == NULL)
        return;
    if (s->curl != NULL)
        curl_easy_cleanup(s->curl);
    free(s->pending);
    free(s);
}
