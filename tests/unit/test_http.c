/* The transport of hijacked streams: the answer-head parser (pure), and
 * http_stream_open against a real unix-socket server on a thread that
 * answers as scripted: a refusal fills the error (the contract of every
 * fallible call), a 200 hands over the bytes after the head first, a head
 * that arrives one byte at a time is read whole. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "error_contract.h"
#include "base/http.h"
#include "base/http_head.h"
#include "podman/podman_api.h"

/* ---- the head parser ---- */

static int parse(const char *text, size_t len, http_head_t *head)
{
    as_error_t *err = NULL;
    int r = http_head_parse(text, len, head, &err);
    if (r < 0) {
        assert_non_null(err);
        assert_int_equal(err->code, EPROTO);
        as_error_free(&err);
    } else {
        assert_null(err);
    }
    return r;
}

static void head_complete_and_partial(void **state)
{
    (void)state;
    static const char answer[] = "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
                                 "Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n\x01\0\0\0\0\0\0\x02hi";
    size_t head_len = strstr(answer, "\r\n\r\n") + 4 - answer;
    http_head_t head;
    /* every prefix shorter than the head needs more; the head and more is whole */
    for (size_t n = 0; n < head_len; n++)
        assert_int_equal(parse(answer, n, &head), 0);
    for (size_t n = head_len; n < sizeof(answer); n++) {
        head = (http_head_t){ 0 };
        assert_int_equal(parse(answer, n, &head), 1);
        assert_int_equal(head.status, 101);
        assert_int_equal(head.len, head_len);
    }
    assert_int_equal(parse("HTTP/1.0 404\r\n\r\n", 16, &head), 1);     /* no reason phrase */
    assert_int_equal(head.status, 404);
    assert_int_equal(head.len, 16);
    assert_int_equal(parse("HTTP/1.1 200 OK\r\n\r\n", 19, &head), 1);
    assert_int_equal(head.status, 200);
}

static void head_refuses_what_is_not_http1(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "HTTP/2 200\r\n\r\n", "HTTP/1.x 200\r\n\r\n", "HTTP/1.1 20\r\n\r\n", "HTTP/1.1 2000\r\n\r\n",
        "HTTP/1.1  200\r\n\r\n", "http/1.1 200\r\n\r\n", "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 099 X\r\n\r\n",
        "HTTP/1.1 2a0 X\r\n\r\n", "\r\n\r\n", NULL,
    };
    http_head_t head;
    for (size_t i = 0; bad[i] != NULL; i++)
        if (parse(bad[i], strlen(bad[i]), &head) != -EPROTO)
            fail_msg("accepted: %s", bad[i]);
    /* refused as soon as the first bytes cannot start an answer */
    assert_int_equal(parse("X", 1, &head), -EPROTO);
    assert_int_equal(parse("HTTP/1.1 2", 10, &head), 0);

    /* a head that never ends is refused past the limit, not buffered forever */
    size_t big = HTTP_HEAD_MAX + 100;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, 'a', big);
    memcpy(text, "HTTP/1.1 200 OK\r\nX: ", 20);
    assert_int_equal(parse(text, HTTP_HEAD_MAX, &head), 0);
    assert_int_equal(parse(text, HTTP_HEAD_MAX + 1, &head), -EPROTO);
    memcpy(text + HTTP_HEAD_MAX + 10, "\r\n\r\n", 4);
    assert_int_equal(parse(text, big, &head), -EPROTO);
    free(text);
}

/* ---- a scripted server on a unix socket ---- */

#define MAX_EXCHANGES 10

/* Answers the requests of `n` connections, one each, in order: reads a
 * request (its head and its Content-Length body), writes the answer (one
 * byte at a time when trickle; after pause_ms), then echoes what comes
 * until EOF when echo, and closes. A deaf server reads nothing: it waits
 * for the client to hang up. */
typedef struct server {
    char dir[32], path[64];
    int listen_fd;
    const char *answers[MAX_EXCHANGES];
    size_t answer_lens[MAX_EXCHANGES], n;
    bool trickle, echo, deaf;
    int pause_ms;
    char requests[MAX_EXCHANGES][2048];   /* what the client sent */
    pthread_t thread;
} server_t;

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void read_request(int fd, char *req, size_t cap)
{
    size_t got = 0, want = 0;
    req[0] = '\0';
    for (;;) {
        char *end = strstr(req, "\r\n\r\n");
        if (end != NULL) {
            const char *cl = strstr(req, "Content-Length: ");
            want = (size_t)(end - req) + 4 + (cl != NULL && cl < end ? strtoul(cl + 16, NULL, 10) : 0);
            if (got >= want)
                return;
        }
        ssize_t n = read(fd, req + got, cap - 1 - got);
        if (n <= 0)
            return;
        got += (size_t)n;
        req[got] = '\0';
    }
}

static void *serve(void *arg)
{
    server_t *s = arg;
    for (size_t k = 0; k < s->n; k++) {
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return NULL;
        if (s->deaf) {
            struct pollfd hup = { .fd = fd, .events = POLLRDHUP };
            while (poll(&hup, 1, -1) >= 0 && (hup.revents & (POLLRDHUP | POLLHUP)) == 0) { }
            close(fd);
            continue;
        }
        read_request(fd, s->requests[k], sizeof(s->requests[k]));
        if (s->pause_ms > 0)
            usleep((useconds_t)s->pause_ms * 1000);
        for (size_t i = 0; s->trickle && i < s->answer_lens[k]; i++) {
            write_all(fd, s->answers[k] + i, 1);
            usleep(1000);
        }
        if (!s->trickle)
            write_all(fd, s->answers[k], s->answer_lens[k]);
        char buf[256];
        ssize_t n;
        while (s->echo && (n = read(fd, buf, sizeof(buf))) > 0)
            write_all(fd, buf, (size_t)n);
        close(fd);
    }
    return NULL;
}

static void server_listen(server_t *s)
{
    strcpy(s->dir, "/tmp/test_http.XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    snprintf(s->path, sizeof(s->path), "%s/api.sock", s->dir);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", s->path);
    s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s->listen_fd >= 0);
    assert_int_equal(bind(s->listen_fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    assert_int_equal(listen(s->listen_fd, 1), 0);
    assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

/* One exchange. */
static void server_start(server_t *s, const char *answer, size_t len, bool trickle, bool echo)
{
    *s = (server_t){ .answers = { answer }, .answer_lens = { len }, .n = 1,
                     .trickle = trickle, .echo = echo };
    server_listen(s);
}

/* One exchange per answer, in order; and a client API of its socket. */
static podman_api_t *server_start_answers(server_t *s, const char *const *answers, size_t n)
{
    assert_true(n <= sizeof(s->answers) / sizeof(s->answers[0]));
    *s = (server_t){ .n = n };
    for (size_t i = 0; i < n; i++) {
        s->answers[i] = answers[i];
        s->answer_lens[i] = strlen(answers[i]);
    }
    server_listen(s);
    podman_api_t *api = NULL;
    as_error_t *err = NULL;
    assert_int_equal(podman_api_new(s->path, &api, &err), 0);
    return api;
}

#define SERVER_ANSWERS(srv, ...)                                               \
    server_start_answers((srv), (const char *const[]){ __VA_ARGS__ },          \
                         sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

static void server_stop(server_t *s)
{
    pthread_join(s->thread, NULL);
    close(s->listen_fd);
    unlink(s->path);
    rmdir(s->dir);
}

/* A client of srv's socket. */
static http_client_t *client_of(const server_t *srv)
{
    http_client_t *c = NULL;
    as_error_t *err = NULL;
    if (http_client_new(srv->path, &c, &err) < 0)
        fail_msg("%s", err->msg);
    return c;
}

static const char not_found[] = "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n\r\n"
                                "{\"cause\":\"no such container\",\"message\":\"no container with "
                                "name or ID \\\"x\\\" found: no such container\",\"response\":404}\n";

/* Regression: on a refusal, http_stream_open returned -EPROTO and left
 * *err empty, so a caller that reported it had nothing to say. */
static void refusal_fills_the_error(void **state)
{
    (void)state;
    for (int with_refusal = 0; with_refusal < 2; with_refusal++) {
        server_t srv;
        server_start(&srv, not_found, sizeof(not_found) - 1, false, false);
        http_client_t *c = client_of(&srv);
        as_error_t *err = NULL;
        http_stream_t *s = NULL;
        http_response_t refusal = { 0 };
        int r = http_stream_open(c, "POST", "/v4.0.0/libpod/containers/x/attach?stream=true", NULL,
                                 10000, with_refusal ? &refusal : NULL, &s, &err);
        assert_int_equal(r, -ENOENT);
        assert_null(s);
        assert_non_null(err);
        assert_int_equal(err->code, ENOENT);
        assert_int_equal(err->http_status, 404);
        assert_non_null(strstr(err->msg, "POST /v4.0.0/libpod/containers/x/attach?stream=true: HTTP 404: {\"cause\""));
        as_error_free(&err);
        if (with_refusal) {
            assert_int_equal(refusal.status, 404);
            assert_string_equal(refusal.body, strstr(not_found, "{"));
            assert_int_equal(refusal.len, strlen(refusal.body));
            http_response_clear(&refusal);
        }
        http_client_free(c);
        server_stop(&srv);
        assert_non_null(strstr(srv.requests[0], "POST /v4.0.0/libpod/containers/x/attach?stream=true HTTP/1.1\r\n"));
    }
}

/* The same through the API: libpod's own words, and 404 as -ENOENT; an
 * error the caller holds is kept. */
static void attach_refusal_names_libpods_cause(void **state)
{
    (void)state;
    server_t srv;
    server_start(&srv, not_found, sizeof(not_found) - 1, false, false);
    podman_api_t *api = NULL;
    as_error_t *err = NULL;
    assert_int_equal(podman_api_new(srv.path, &api, &err), 0);
    http_stream_t *s = NULL;
    assert_int_equal(podman_container_attach(api, "x", true, &s, &err), -ENOENT);
    assert_null(s);
    assert_string_equal(err->msg, "attaching to container x: HTTP 404: no container with name or "
                        "ID \"x\" found: no such container");
    as_error_free(&err);
    podman_api_free(api);
    server_stop(&srv);

    /* An error the caller holds already is kept (the first wins), with
     * its code returned: the refusal used to free it. */
    server_start(&srv, not_found, sizeof(not_found) - 1, false, false);
    assert_int_equal(podman_api_new(srv.path, &api, &err), 0);
    as_error_make(&err, EINVAL, "the caller's own");
    as_error_t *first = err;
    int r = podman_container_attach(api, "x", true, &s, &err);
    assert_null(s);
    assert_ptr_equal(err, first);
    assert_failed_with(r, err, EINVAL);
    as_error_free(&err);
    podman_api_free(api);
    server_stop(&srv);
}

static void stream_hands_over_the_bytes_after_the_head(void **state)
{
    (void)state;
    static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n"
                             "early\0bytes";
    for (int trickle = 0; trickle < 2; trickle++) {
        server_t srv;
        server_start(&srv, ok, sizeof(ok) - 1, trickle, true);
        http_client_t *c = client_of(&srv);
        as_error_t *err = NULL;
        http_stream_t *s = NULL;
        assert_int_equal(http_stream_open(c, "POST", "/attach", "{}", 10000, NULL, &s, &err), 0);
        assert_null(err);
        assert_non_null(strstr(srv.requests[0], "Content-Length: 2\r\n\r\n"));

        char got[64];
        size_t n = 0;
        bool sent = false;
        static const char want[] = "early\0bytesping";
        while (n < sizeof(want) - 1) {
            if (n == 11 && !sent) {
                assert_int_equal(http_stream_send_some(s, "ping", 4, &err), 4);
                sent = true;
            }
            ssize_t r = http_stream_recv(s, got + n, n < 11 ? 11 - n : sizeof(got) - n, &err);
            assert_null(err);
            if (r == -EAGAIN) {
                usleep(1000);
                continue;
            }
            assert_true(r > 0);
            n += (size_t)r;
        }
        assert_int_equal(n, sizeof(want) - 1);
        assert_memory_equal(got, want, n);
        assert_int_equal(http_stream_close_write(s, &err), 0);
        ssize_t r;
        while ((r = http_stream_recv(s, got, sizeof(got), &err)) == -EAGAIN)
            usleep(1000);
        assert_int_equal(r, 0);                    /* the server saw EOF and closed */
        http_stream_free(s);
        http_client_free(c);
        server_stop(&srv);
    }
}

static void garbage_answer_is_an_error(void **state)
{
    (void)state;
    static const char ssh[] = "SSH-2.0-OpenSSH_9.2\r\n";
    server_t srv;
    server_start(&srv, ssh, sizeof(ssh) - 1, false, false);
    http_client_t *c = client_of(&srv);
    as_error_t *err = NULL;
    http_stream_t *s = NULL;
    assert_int_equal(http_stream_open(c, "GET", "/events", NULL, 10000, NULL, &s, &err), -EPROTO);
    assert_null(s);
    assert_string_equal(err->msg, "GET /events: the API answered something that is not HTTP/1.x");
    as_error_free(&err);
    http_client_free(c);
    server_stop(&srv);
}

/* A sink that stops the transfer: with an error of its own (ctx: its
 * code), or with a bare code and none (ctx NULL). */
static int failing_sink(const char *data, size_t len, void *ctx, as_error_t **err)
{
    (void)data, (void)len;
    if (ctx == NULL)
        return -ENOSPC;
    return as_error_make(err, *(int *)ctx, "the sink is full");
}

/* The error contract on a streamed answer's reader: a sink that stops
 * with a bare code still gives an error of that code, and an error the
 * caller holds already is kept (the first wins), with its code returned. */
static void a_stopped_sink_keeps_the_error_contract(void **state)
{
    (void)state;
    static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/x-tar\r\nContent-Length: 5\r\n"
                             "Connection: close\r\n\r\nbytes";
    int code = EFBIG;
    for (int round = 0; round < 2; round++) {
        server_t srv;
        server_start(&srv, ok, sizeof(ok) - 1, false, false);
        http_client_t *c = client_of(&srv);
        as_error_t *err = NULL, *first = NULL;
        long status = 0;
        if (round == 1) {
            as_error_make(&err, EINVAL, "the caller's own");
            first = err;
        }
        int r = http_request_stream(c, "GET", "/export", NULL, 0, NULL, 10000, failing_sink,
                                    round == 0 ? NULL : &code, &status, NULL, &err);
        assert_failed_with(r, err, round == 0 ? ENOSPC : EINVAL);
        if (round == 1)
            assert_ptr_equal(err, first);
        as_error_free(&err);
        http_client_free(c);
        server_stop(&srv);
    }
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A timeout of 0 is no limit, for a stream as for a request (it used to
 * mean "now" here: a head that was not there at once timed out). */
static void a_stream_without_a_timeout_waits_for_its_answer(void **state)
{
    (void)state;
    static const char ok[] = "HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n";
    server_t srv = { .answers = { ok }, .answer_lens = { sizeof(ok) - 1 }, .n = 1, .pause_ms = 300 };
    server_listen(&srv);
    http_client_t *c = client_of(&srv);
    as_error_t *err = NULL;
    http_stream_t *s = NULL;
    int r = http_stream_open(c, "POST", "/attach", NULL, 0, NULL, &s, &err);
    if (r < 0)
        fail_msg("%s", err->msg);
    http_stream_free(s);
    http_client_free(c);
    server_stop(&srv);
}

/* A server that takes none of the request: the send gives up at the
 * deadline (it used to wait for ever). */
static void a_request_nobody_reads_ends_at_its_deadline(void **state)
{
    (void)state;
    server_t srv = { .n = 1, .deaf = true };
    server_listen(&srv);
    size_t big = 16u << 20;                 /* far more than a socket takes */
    char *body = malloc(big + 1);
    assert_non_null(body);
    memset(body, 'x', big);
    body[big] = '\0';
    http_client_t *c = client_of(&srv);
    as_error_t *err = NULL;
    http_stream_t *s = NULL;
    alarm(20);                              /* a wait without its deadline fails the test */
    long t0 = now_ms();
    int r = http_stream_open(c, "POST", "/attach", body, 300, NULL, &s, &err);
    long took = now_ms() - t0;
    alarm(0);
    assert_failed_with(r, err, ETIMEDOUT);
    assert_non_null(strstr(err->msg, "took no more of the request within 300 ms"));
    assert_true(took >= 250 && took < 5000);
    as_error_free(&err);
    http_client_free(c);                    /* the server sees the hang-up */
    server_stop(&srv);
    free(body);
}

#define JSON_ANSWER(status, body) \
    "HTTP/1.1 " status "\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" body

/* The body of request k, after its head. */
static const char *body_of(const server_t *s, size_t k)
{
    const char *end = strstr(s->requests[k], "\r\n\r\n");
    assert_non_null(end);
    return end + 4;
}

/* Plain calls through the typed API: what libpod is sent and how its
 * answers are read (the opaque JSON tree, a missing member, a wrong type). */
static void api_calls_send_and_read_what_libpod_expects(void **state)
{
    (void)state;
    server_t srv;
    podman_api_t *api = SERVER_ANSWERS(&srv,
        JSON_ANSWER("200 OK", "{\"name\":\"n\",\"subnets\":[{\"subnet\":\"10.89.3.0/24\"}]}"),
        JSON_ANSWER("201 Created", "{}"),
        JSON_ANSWER("200 OK", "[{\"Names\":[\"c1\"],\"Labels\":{\"k\":\"s1\"}},"
                              "{\"Names\":[\"infra\"],\"Labels\":{\"k\":\"s1\"},\"IsInfra\":true},"
                              "{\"Names\":[\"c2\"],\"Labels\":{\"k\":\"s2\",\"other\":\"x\"}}]"),
        JSON_ANSWER("200 OK", "42"),
        JSON_ANSWER("200 OK", "{\"State\":{\"Running\":false}}"),
        JSON_ANSWER("200 OK", "\"x\""),
        JSON_ANSWER("200 OK", "{\"store\":{}}"));
    as_error_t *err = NULL;

    podman_label_t label = { "agent-sandbox.session", "abc" }, opt = { "o", "uid=1" };
    podman_network_spec_t net = { .name = "n", .internal = true, .labels = &label, .n_labels = 1 };
    char *subnet = NULL;
    assert_int_equal(podman_network_create(api, &net, &subnet, &err), 0);
    assert_string_equal(subnet, "10.89.3.0/24");
    free(subnet);
    assert_int_equal(podman_volume_create(api, "v", &label, 1, &opt, 1, &err), 0);

    podman_labelled_t *list = NULL;
    size_t n = 0;
    assert_int_equal(podman_list_labelled(api, PODMAN_CONTAINERS, "k", &list, &n, &err), 0);
    assert_int_equal(n, 2);                        /* the infra container goes with its pod */
    assert_string_equal(list[0].name, "c1");
    assert_string_equal(list[0].label_value, "s1");
    assert_string_equal(list[1].name, "c2");
    assert_string_equal(list[1].label_value, "s2");
    podman_labelled_free(list, n);

    int code = 0;
    assert_int_equal(podman_container_wait(api, "c1", &code, &err), 0);
    assert_int_equal(code, 42);
    assert_int_equal(podman_container_wait(api, "c1", &code, &err), -EPROTO);
    assert_string_equal(err->msg, "waiting for container c1: the answer is not an exit code");
    as_error_free(&err);
    char *root = NULL;
    assert_int_equal(podman_info_graphroot(api, &root, &err), -EPROTO);
    assert_string_equal(err->msg, "reading podman's info: the answer has no store.graphRoot");
    assert_null(root);
    as_error_free(&err);
    podman_api_free(api);
    server_stop(&srv);

    assert_non_null(strstr(srv.requests[0], "POST /v4.0.0/libpod/networks/create HTTP/1.1\r\n"));
    assert_string_equal(body_of(&srv, 0), "{\"name\":\"n\",\"internal\":true,\"dns_enabled\":false,"
                        "\"labels\":{\"agent-sandbox.session\":\"abc\"}}");
    assert_string_equal(body_of(&srv, 1), "{\"Name\":\"v\",\"Label\":{\"agent-sandbox.session\":"
                        "\"abc\"},\"Options\":{\"o\":\"uid=1\"}}");
    assert_non_null(strstr(srv.requests[2], "GET /v4.0.0/libpod/containers/json?all=true&filters="
                           "%7B%22label%22%3A%5B%22k%22%5D%7D HTTP/1.1\r\n"));
    assert_non_null(strstr(srv.requests[3], "POST /v4.0.0/libpod/containers/c1/wait?condition=exited&interval=10ms "));
}

/* A wait whose exit code is lost (the agent's conmon died): podman 5 sends
 * its 200 before it knows the exit code and then no body, or 0 while the
 * container still runs; podman 4 a 500 naming no such exit code. Both are -ENOENT, the session's "no exit code"
 * (lib/session/session_run.c), never an exit code of 0. */
static void lost_exit_code_is_no_exit_code_on_both_podmans(void **state)
{
    (void)state;
    server_t srv;
    podman_api_t *api = SERVER_ANSWERS(&srv,
        JSON_ANSWER("200 OK", ""),
        JSON_ANSWER("500 Internal Server Error", "{\"cause\":\"no such exit code\",\"message\":"
                    "\"getting exit code of container c1 from DB: no such exit code\",\"response\":500}"),
        JSON_ANSWER("200 OK", "0"),
        JSON_ANSWER("200 OK", "{\"State\":{\"Running\":true}}"));
    as_error_t *err = NULL;
    int code = -1;
    assert_int_equal(podman_container_wait(api, "c1", &code, &err), -ENOENT);
    assert_string_equal(err->msg, "waiting for container c1: podman has no exit code for it");
    as_error_free(&err);
    assert_int_equal(podman_container_wait(api, "c1", &code, &err), -ENOENT);
    assert_non_null(strstr(err->msg, "no such exit code"));
    as_error_free(&err);
    /* podman 5 with an attach: 0 while the container still runs */
    assert_int_equal(podman_container_wait(api, "c1", &code, &err), -ENOENT);
    assert_string_equal(err->msg, "waiting for container c1: podman has no exit code for it: the container still runs");
    as_error_free(&err);
    assert_int_equal(code, -1);
    podman_api_free(api);
    server_stop(&srv);
}

/* Podman 4.3 fails a whole list with 500 "no such pod" when an object goes
 * while it is listed (another session ending). A list is asked again; a
 * list that keeps failing so, and any other failure, is reported. */
#define NO_SUCH_POD JSON_ANSWER("500 Internal Server Error", "{\"cause\":\"no such pod\",\"message\":" \
    "\"could not find container 1f2e in pod 9a8b: no such pod\",\"response\":500}")

static void list_during_a_removal_is_asked_again(void **state)
{
    (void)state;
    server_t srv;
    podman_api_t *api = SERVER_ANSWERS(&srv,
        NO_SUCH_POD, NO_SUCH_POD,
        JSON_ANSWER("200 OK", "[{\"Names\":[\"c1\"],\"Labels\":{\"k\":\"s1\"}}]"),
        NO_SUCH_POD, NO_SUCH_POD, NO_SUCH_POD, NO_SUCH_POD, NO_SUCH_POD,
        JSON_ANSWER("500 Internal Server Error", "{\"cause\":\"database is locked\",\"message\":"
                    "\"database is locked\",\"response\":500}"));
    as_error_t *err = NULL;
    podman_labelled_t *list = NULL;
    size_t n = 0;
    assert_int_equal(podman_list_labelled(api, PODMAN_CONTAINERS, "k", &list, &n, &err), 0);
    assert_null(err);
    assert_int_equal(n, 1);
    assert_string_equal(list[0].name, "c1");
    podman_labelled_free(list, n);
    assert_int_equal(podman_list_labelled(api, PODMAN_PODS, "k", &list, &n, &err), -ENOENT);
    assert_non_null(strstr(err->msg, "listing pods labelled k: HTTP 500: could not find container"));
    as_error_free(&err);
    assert_int_equal(podman_list_labelled(api, PODMAN_PODS, "k", &list, &n, &err), -EPROTO);
    assert_non_null(strstr(err->msg, "database is locked"));
    as_error_free(&err);
    podman_api_free(api);
    server_stop(&srv);
    assert_non_null(strstr(srv.requests[8], "GET /v4.0.0/libpod/pods/json?"));
}

/* runc losing its init process before the container runs: the start is
 * asked once more; twice, it is reported, and so is any other failure. */
#define INIT_LOST JSON_ANSWER("500 Internal Server Error", "{\"cause\":\"OCI runtime error\",\"message\":" \
    "\"runc: runc create failed: unable to start container process: waiting for init preliminary setup: " \
    "read init-p: connection reset by peer: OCI runtime error\",\"response\":500}")
#define NO_ANSWER_BODY "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"

static void start_whose_runtime_lost_its_init_is_asked_again(void **state)
{
    (void)state;
    server_t srv;
    podman_api_t *api = SERVER_ANSWERS(&srv, INIT_LOST, NO_ANSWER_BODY, INIT_LOST, INIT_LOST,
        JSON_ANSWER("500 Internal Server Error", "{\"cause\":\"x\",\"message\":\"runc create failed: "
                    "permission denied\",\"response\":500}"));
    as_error_t *err = NULL;
    assert_int_equal(podman_container_start(api, "c1", &err), 0);
    assert_null(err);
    assert_int_equal(podman_container_start(api, "c1", &err), -EPROTO);
    assert_non_null(strstr(err->msg, "starting container c1: HTTP 500: runc: runc create failed"));
    as_error_free(&err);
    assert_int_equal(podman_container_start(api, "c1", &err), -EPROTO);
    assert_non_null(strstr(err->msg, "permission denied"));
    as_error_free(&err);
    podman_api_free(api);
    server_stop(&srv);
    assert_non_null(strstr(srv.requests[4], "POST /v4.0.0/libpod/containers/c1/start "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(head_complete_and_partial),
        cmocka_unit_test(head_refuses_what_is_not_http1),
        cmocka_unit_test(refusal_fills_the_error),
        cmocka_unit_test(attach_refusal_names_libpods_cause),
        cmocka_unit_test(stream_hands_over_the_bytes_after_the_head),
        cmocka_unit_test(garbage_answer_is_an_error),
        cmocka_unit_test(a_stopped_sink_keeps_the_error_contract),
        cmocka_unit_test(a_stream_without_a_timeout_waits_for_its_answer),
        cmocka_unit_test(a_request_nobody_reads_ends_at_its_deadline),
        cmocka_unit_test(api_calls_send_and_read_what_libpod_expects),
        cmocka_unit_test(lost_exit_code_is_no_exit_code_on_both_podmans),
        cmocka_unit_test(list_during_a_removal_is_asked_again),
        cmocka_unit_test(start_whose_runtime_lost_its_init_is_asked_again),
    };
    return cmocka_run_group_tests_name("http", tests, NULL, NULL);
}
