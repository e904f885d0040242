#include "exec_failure.h"

#include <stdio.h>
#include <string.h>

typedef enum { NOT_REPORT, PREFIX, REPORT } shape_t;

/* Matches s against `lit` from *i on; PREFIX when s ends inside it. */
static shape_t literal(const char *s, size_t n, size_t *i, const char *lit)
{
    for (size_t k = 0; lit[k] != '\0'; k++, (*i)++) {
        if (*i == n)
            return PREFIX;
        if (s[*i] != lit[k])
            return NOT_REPORT;
    }
    return REPORT;
}

/* "ERROR (catatonit:<pid>): failed to exec pid1: <reason>\n" (or "\r\n" on
 * a terminal), and nothing after it. */
static shape_t shape(const char *s, size_t n, size_t *ret_reason, size_t *ret_reason_len)
{
    size_t i = 0;
    shape_t m = literal(s, n, &i, "ERROR (catatonit:");
    if (m != REPORT)
        return m;
    size_t digits = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == n)
        return PREFIX;
    if (i == digits)
        return NOT_REPORT;
    if ((m = literal(s, n, &i, "): failed to exec pid1: ")) != REPORT)
        return m;
    size_t reason = i;
    while (i < n && s[i] != '\r' && s[i] != '\n') {
        if ((unsigned char)s[i] < 0x20)
            return NOT_REPORT;
        i++;
    }
    if (i == n)
        return PREFIX;
    size_t reason_len = i - reason;
    if (s[i] == '\r' && (m = literal(s, n, &i, "\r")) != REPORT)
        return m;
    if ((m = literal(s, n, &i, "\n")) != REPORT)
        return m;
    if (i != n || reason_len == 0)
        return NOT_REPORT;
    *ret_reason = reason;
    *ret_reason_len = reason_len;
    return REPORT;
}

bool exec_failure_offer(exec_failure_t *ef, const char *data, size_t len)
{
    if (ef->decided)
        return false;
    /* after a whole report, more output means the command did run */
    if (ef->seen || len > sizeof(ef->held) - ef->len) {
        ef->decided = true;
        ef->seen = false;
        return false;
    }
    char probe[EXEC_FAILURE_HELD_MAX];
    memcpy(probe, ef->held, ef->len);
    memcpy(probe + ef->len, data, len);
    size_t reason, reason_len;
    shape_t m = shape(probe, ef->len + len, &reason, &reason_len);
    if (m == NOT_REPORT) {
        ef->decided = true;
        return false;
    }
    memcpy(ef->held + ef->len, data, len);
    ef->len += len;
    ef->seen = m == REPORT;
    return true;
}

void exec_failure_decline(exec_failure_t *ef)
{
    ef->decided = true;
    ef->seen = false;
}

const char *exec_failure_reason(const exec_failure_t *ef, char *buf, size_t n)
{
    size_t reason, reason_len;
    if (!ef->seen || shape(ef->held, ef->len, &reason, &reason_len) != REPORT)
        return NULL;
    snprintf(buf, n, "%.*s", (int)reason_len, ef->held + reason);
    return buf;
}

bool exec_failure_not_found(const char *reason)
{
    /* strerror(ENOENT) inside the image, whose C library speaks English */
    return strcmp(reason, "No such file or directory") == 0;
}
