/* libFuzzer target for the parser of an HTTP answer's head on a hijacked
 * stream (lib/base/http_head.c), whose bytes come from the API socket.
 * Whatever they are, the verdict is one of three; a whole head ends at the
 * first blank line and is within HTTP_HEAD_MAX; and reading more bytes
 * never changes a verdict already reached: a prefix shorter than the head
 * needs more, one that holds it gives the same head, and once refused,
 * always refused. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "base/http_head.h"

/* The verdict on the first n bytes, from a buffer of exactly n bytes. */
static int parse(const uint8_t *data, size_t n, http_head_t *ret)
{
    char *copy = malloc(n > 0 ? n : 1);
    CHECK(copy != NULL);
    memcpy(copy, data, n);
    as_error_t *err = NULL;
    *ret = (http_head_t){0};
    int r = http_head_parse(copy, n, ret, &err);
    CHECK(r == 1 || r == 0 || r == -EPROTO);
    CHECK((r < 0) == (err != NULL));
    if (r < 0) {
        CHECK(err->code == EPROTO && err->msg != NULL && err->msg[0] != '\0');
        as_error_free(&err);
    }
    if (r == 1) {
        CHECK(ret->status >= 100 && ret->status <= 999);
        CHECK(ret->len >= 4 && ret->len <= n && ret->len <= HTTP_HEAD_MAX);
        CHECK(memcmp(copy + ret->len - 4, "\r\n\r\n", 4) == 0);
        CHECK(memmem(copy, ret->len - 1, "\r\n\r\n", 4) == NULL);
        CHECK(memcmp(copy, "HTTP/1.", 7) == 0);
    }
    free(copy);
    return r;
}

/* The verdict on a prefix of k bytes, given the verdict on all of them. */
static void check_prefix(const uint8_t *data, size_t size, int whole, const http_head_t *head, size_t k)
{
    http_head_t h;
    int r = parse(data, k, &h);
    if (whole == 1) {
        CHECK(r == (k < head->len ? 0 : 1));
        CHECK(r == 0 || (h.status == head->status && h.len == head->len));
    } else if (whole == 0) {
        CHECK(r == 0);
    } else if (r < 0) {
        http_head_t later;               /* refused stays refused */
        CHECK(parse(data, k + (size - k) / 2, &later) < 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    http_head_t head;
    int whole = parse(data, size, &head);
    for (size_t k = 0; k < size && k <= 64; k++)
        check_prefix(data, size, whole, &head, k);
    check_prefix(data, size, whole, &head, size / 2);
    if (whole == 1) {
        check_prefix(data, size, whole, &head, head.len - 1);
        check_prefix(data, size, whole, &head, head.len);
    }
    return 0;
}
