/* The multiplexed attach stream parser, fed in pieces of every size; and
 * the output queue (attach_output.h): never blocking, in order across
 * stdout and stderr, the caller's descriptor left as it was, a failed
 * descriptor dropped alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "podman/attach_output.h"
#include "podman/attach_stream.h"

typedef struct {
    char out[256], err[256];
    size_t out_len, err_len;
} collected_t;

static int collect(int stream, const char *data, size_t len, void *ctx)
{
    collected_t *c = ctx;
    if (stream == 1) {
        memcpy(c->out + c->out_len, data, len);
        c->out_len += len;
    } else {
        memcpy(c->err + c->err_len, data, len);
        c->err_len += len;
    }
    return 0;
}

static size_t frame(char *buf, int stream, const char *payload, size_t len)
{
    memset(buf, 0, 8);
    buf[0] = (char)stream;
    buf[4] = (char)(len >> 24);
    buf[5] = (char)(len >> 16);
    buf[6] = (char)(len >> 8);
    buf[7] = (char)len;
    memcpy(buf + 8, payload, len);
    return 8 + len;
}

static size_t sample(char *buf)
{
    size_t n = 0;
    n += frame(buf + n, 1, "hello ", 6);
    n += frame(buf + n, 2, "oops\n", 5);
    n += frame(buf + n, 1, "", 0);              /* empty frame */
    n += frame(buf + n, 1, "world\n", 6);
    n += frame(buf + n, 3, "sys", 3);           /* podman's own error stream */
    return n;
}

static void whole_buffer(void **state)
{
    (void)state;
    char buf[128];
    size_t n = sample(buf);
    frame_parser_t p = {0};
    collected_t c = {0};
    as_error_t *err = NULL;
    assert_int_equal(frame_parser_feed(&p, buf, n, collect, &c, &err), 0);
    assert_int_equal(c.out_len, 12);
    assert_memory_equal(c.out, "hello world\n", 12);
    assert_int_equal(c.err_len, 8);
    assert_memory_equal(c.err, "oops\nsys", 8);
}

static void every_split_point(void **state)
{
    (void)state;
    char buf[128];
    size_t n = sample(buf);
    for (size_t step = 1; step <= n; step++) {
        frame_parser_t p = {0};
        collected_t c = {0};
        as_error_t *err = NULL;
        for (size_t off = 0; off < n; off += step) {
            size_t len = off + step > n ? n - off : step;
            assert_int_equal(frame_parser_feed(&p, buf + off, len, collect, &c, &err), 0);
        }
        assert_int_equal(c.out_len, 12);
        assert_memory_equal(c.out, "hello world\n", 12);
        assert_int_equal(c.err_len, 8);
    }
}

static int count_bytes(int stream, const char *data, size_t len, void *ctx)
{
    (void)data;
    assert_int_equal(stream, 1);
    assert_true(len > 0);
    *(size_t *)ctx += len;
    return 0;
}

static void large_frame_length_is_big_endian(void **state)
{
    (void)state;
    static char buf[8 + 70000];
    static char payload[70000];
    memset(payload, 'x', sizeof(payload));
    size_t n = frame(buf, 1, payload, sizeof(payload));
    frame_parser_t p = {0};
    as_error_t *err = NULL;
    size_t total = 0;
    assert_int_equal(frame_parser_feed(&p, buf, 8, count_bytes, &total, &err), 0);
    assert_int_equal(p.left, 70000);
    assert_int_equal(total, 0);
    assert_int_equal(frame_parser_feed(&p, buf + 8, n - 8, count_bytes, &total, &err), 0);
    assert_int_equal(total, 70000);
    assert_int_equal(p.left, 0);
}

static void unknown_stream_is_a_protocol_error(void **state)
{
    (void)state;
    char buf[16];
    size_t n = frame(buf, 7, "x", 1);
    frame_parser_t p = {0};
    collected_t c = {0};
    as_error_t *err = NULL;
    assert_true(frame_parser_feed(&p, buf, n, collect, &c, &err) < 0);
    assert_non_null(strstr(err->msg, "unknown stream 7"));
    as_error_free(&err);
}

static int fail_sink(int stream, const char *data, size_t len, void *ctx)
{
    (void)stream; (void)data; (void)len; (void)ctx;
    return -5;
}

static void sink_failure_stops_parsing(void **state)
{
    (void)state;
    char buf[16];
    size_t n = frame(buf, 1, "x", 1);
    frame_parser_t p = {0};
    as_error_t *err = NULL;
    assert_int_equal(frame_parser_feed(&p, buf, n, fail_sink, NULL, &err), -5);
}

/* Everything p's read end holds now. */
static size_t drain(int fd, char *into, size_t cap)
{
    size_t got = 0;
    ssize_t n;
    while (got < cap && (n = read(fd, into + got, cap - got)) > 0)
        got += (size_t)n;
    return got;
}

static void output_queue_never_blocks_and_keeps_order(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    attach_output_t *o = NULL;
    as_error_t *err = NULL;
    assert_int_equal(attach_output_open(p[1], p[1], &o, &err), 0);
    /* far more than the pipe takes, in pieces alternating between the
     * streams: the flush writes what fits and comes back */
    static char piece[1000];
    size_t total = 0;
    for (unsigned k = 0; attach_output_room(o, sizeof(piece)); k++) {
        memset(piece, 'a' + k % 26, sizeof(piece));
        assert_int_equal(attach_output_put(o, k % 2, piece, sizeof(piece)), 0);
        total += sizeof(piece);
    }
    assert_true(total > (1u << 19));
    bool to_err = false;
    assert_int_equal(attach_output_flush(o, &to_err), 0);
    assert_true(attach_output_pending(o) > 0);
    assert_int_equal(fcntl(p[1], F_GETFL) & O_NONBLOCK, 0);   /* the caller's description as it was */
    struct pollfd fds[2];
    assert_int_equal(attach_output_pollfds(o, fds), 1);
    /* the reader takes it all, in order */
    char *got = malloc(total);
    assert_non_null(got);
    assert_int_equal(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
    size_t n = 0;
    while (attach_output_pending(o) > 0) {
        n += drain(p[0], got + n, total - n);
        assert_int_equal(attach_output_flush(o, &to_err), 0);
    }
    n += drain(p[0], got + n, total - n);
    assert_int_equal(n, total);
    for (size_t i = 0; i < total; i++)
        if (got[i] != 'a' + (char)((i / sizeof(piece)) % 26))
            fail_msg("byte %zu out of order", i);
    /* a notice goes out ahead of what waits */
    assert_int_equal(attach_output_put(o, false, "agent", 5), 0);
    attach_output_notice(o, "notice");
    assert_int_equal(attach_output_flush(o, &to_err), 0);
    assert_int_equal(drain(p[0], got, total), 11);
    assert_memory_equal(got, "noticeagent", 11);
    free(got);
    attach_output_close(o);
    close(p[0]);
    close(p[1]);
}

static void a_failed_descriptor_is_dropped_alone(void **state)
{
    (void)state;
    int out[2], errp[2];
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
    attach_output_t *o = NULL;
    as_error_t *err = NULL;
    assert_int_equal(attach_output_open(out[1], errp[1], &o, &err), 0);
    close(out[0]);                       /* stdout's reader is gone */
    assert_int_equal(attach_output_put(o, false, "lost", 4), 0);
    assert_int_equal(attach_output_put(o, true, "kept", 4), 0);
    bool to_err = true;
    assert_int_equal(attach_output_flush(o, &to_err), -EPIPE);
    assert_false(to_err);
    assert_int_equal(attach_output_flush(o, &to_err), 0);
    assert_int_equal(attach_output_pending(o), 0);
    char got[8];
    assert_int_equal(read(errp[0], got, sizeof(got)), 4);
    assert_memory_equal(got, "kept", 4);
    assert_int_equal(attach_output_put(o, false, "more", 4), 0);   /* nothing for a failed one */
    assert_int_equal(attach_output_pending(o), 0);
    /* a stop drops what waits, and counts it */
    assert_int_equal(attach_output_put(o, true, "waits", 5), 0);
    assert_int_equal(attach_output_drop(o), 5);
    attach_output_close(o);
    close(out[1]);
    close(errp[0]);
    close(errp[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_buffer),
        cmocka_unit_test(every_split_point),
        cmocka_unit_test(large_frame_length_is_big_endian),
        cmocka_unit_test(unknown_stream_is_a_protocol_error),
        cmocka_unit_test(sink_failure_stops_parsing),
        cmocka_unit_test(output_queue_never_blocks_and_keeps_order),
        cmocka_unit_test(a_failed_descriptor_is_dropped_alone),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests_name("attach_stream", tests, NULL, NULL);
}
