#include "http_head.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The status line, when its first n bytes are all there is yet: whether
 * they can still start one, and the status once its digits are in. */
static int status_line(const char *s, size_t n, long *ret_status, as_error_t **err)
{
    static const char proto[] = "HTTP/1.";
    const size_t plen = sizeof(proto) - 1;
    /* "HTTP/1." DIGIT SP DIGIT DIGIT DIGIT, then SP or CR */
    for (size_t i = 0; i < n && i < plen + 6; i++) {
        bool ok = i < plen ? s[i] == proto[i]
                : i == plen ? is_digit(s[i])
                : i == plen + 1 ? s[i] == ' '
                : i < plen + 5 ? is_digit(s[i])
                : s[i] == ' ' || s[i] == '\r';
        if (!ok)
            return as_error_make(err, EPROTO, "the API answered something that is not HTTP/1.x");
    }
    if (n < plen + 6)
        return 0;
    long status = 0;
    for (size_t i = plen + 2; i < plen + 5; i++)
        status = status * 10 + (s[i] - '0');
    if (status < 100)
        return as_error_make(err, EPROTO, "the API answered with status %03ld", status);
    *ret_status = status;
    return 1;
}

int http_head_parse(const char *buf, size_t len, http_head_t *ret, as_error_t **err)
{
    long status = 0;
    int r = status_line(buf, len, &status, err);
    if (r <= 0)
        return r;
    const char *end = memmem(buf, len, "\r\n\r\n", 4);
    size_t head_len = end != NULL ? (size_t)(end - buf) + 4 : 0;
    if ((end == NULL && len > HTTP_HEAD_MAX) || head_len > HTTP_HEAD_MAX)
        return as_error_make(err, EPROTO, "the API's answer head is longer than %d bytes",
                             HTTP_HEAD_MAX);
    if (end == NULL)
        return 0;
    *ret = (http_head_t){ .status = status, .len = head_len };
    return 1;
}
