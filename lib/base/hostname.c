#include "hostname.h"

#include <ctype.h>
#include <string.h>

static bool is_hostchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || c == '-' || c == '.';
}

/* The last label decides whether a name is an IPv4 address in disguise:
 * inet_aton() accepts "127.1", "2130706433", "0x7f000001", "0177.0.0.1",
 * and in all of them the last part is decimal digits or 0x + hex digits.
 * No real top-level domain looks like that. */
static bool last_label_is_numeric(const char *name, size_t len)
{
    size_t start = len;
    while (start > 0 && name[start - 1] != '.')
        start--;
    const char *l = name + start;
    size_t n = len - start;
    if (n == 0)
        return false;
    size_t i = 0;
    if (n >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
        for (i = 2; i < n; i++)
            if (!isxdigit((unsigned char)l[i]))
                return false;
        return true;
    }
    for (i = 0; i < n; i++)
        if (l[i] < '0' || l[i] > '9')
            return false;
    return true;
}

hostname_check_t hostname_check(const char *s, size_t len, size_t *where, size_t *where_len)
{
    *where = 0;
    *where_len = 0;
    if (len == 0)
        return HOSTNAME_EMPTY;
    for (size_t i = 0; i < len; i++)
        if (!is_hostchar(s[i])) {
            *where = i;
            *where_len = 1;
            return HOSTNAME_BAD_CHAR;
        }
    if (len > HOSTNAME_MAX)
        return HOSTNAME_TOO_LONG;
    size_t labels = 0;
    for (size_t start = 0; start <= len;) {
        const char *dot = memchr(s + start, '.', len - start);
        size_t end = dot != NULL ? (size_t)(dot - s) : len;
        size_t n = end - start;
        *where = start;
        *where_len = n;
        if (n == 0)
            return HOSTNAME_EMPTY_LABEL;
        if (n > 63)
            return HOSTNAME_LONG_LABEL;
        if (s[start] == '-' || s[end - 1] == '-')
            return HOSTNAME_HYPHEN;
        labels++;
        start = end + 1;
    }
    *where = 0;
    *where_len = len;
    if (last_label_is_numeric(s, len))
        return HOSTNAME_NUMERIC;
    if (labels < 2)
        return HOSTNAME_SINGLE_LABEL;
    return HOSTNAME_OK;
}

bool hostname_is_canonical(const char *name)
{
    if (name == NULL)
        return false;
    size_t len = strlen(name);
    size_t w, wl;
    if (hostname_check(name, len, &w, &wl) != HOSTNAME_OK)
        return false;
    for (size_t i = 0; i < len; i++)
        if (name[i] >= 'A' && name[i] <= 'Z')
            return false;
    return true;
}
