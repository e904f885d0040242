/* Plain decimal numbers in text the user wrote (an address's parts, a
 * port): the one parser, so that they all refuse the same spellings. */
#ifndef AS_DECIMAL_H
#define AS_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>

/* s[0..len) is digits only, without sign, blank or leading zero ("0" itself
 * is fine), at most `max`; *ret is set only then. */
static inline bool decimal_parse(const char *s, size_t len, unsigned max, unsigned *ret)
{
    if (len == 0 || (len > 1 && s[0] == '0'))
        return false;
    unsigned long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned long)(s[i] - '0');
        if (v > max)
            return false;
    }
    *ret = (unsigned)v;
    return true;
}

#endif
