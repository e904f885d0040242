/* The multiplexed attach stream parser, fed in pieces of every size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_buffer),
        cmocka_unit_test(every_split_point),
        cmocka_unit_test(large_frame_length_is_big_endian),
        cmocka_unit_test(unknown_stream_is_a_protocol_error),
        cmocka_unit_test(sink_failure_stops_parsing),
    };
    return cmocka_run_group_tests_name("attach_stream", tests, NULL, NULL);
}
