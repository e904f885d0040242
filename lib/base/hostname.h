/* Host names as the allowlist stores them and everything downstream
 * re-checks them (the router's renderers, the log reader, the reports):
 * RFC 1123 letters, digits, '-' and '.', at least two labels, none a number
 * (so no IPv4 address in disguise). */
#ifndef AS_HOSTNAME_H
#define AS_HOSTNAME_H

#include <stdbool.h>
#include <stddef.h>

#define HOSTNAME_MAX 253          /* bytes, without a trailing dot */

typedef enum hostname_check {
    HOSTNAME_OK = 0,
    HOSTNAME_EMPTY,
    HOSTNAME_BAD_CHAR,
    HOSTNAME_TOO_LONG,
    HOSTNAME_EMPTY_LABEL,
    HOSTNAME_LONG_LABEL,
    HOSTNAME_HYPHEN,
    HOSTNAME_NUMERIC,
    HOSTNAME_SINGLE_LABEL,
} hostname_check_t;

/* Checks len bytes of s, a host name without a trailing dot. On failure
 * *where points at the offending character or label (*where_len bytes). */
hostname_check_t hostname_check(const char *s, size_t len, size_t *where, size_t *where_len);

/* Whether `name` is a host name in the canonical form stored in an
 * allowlist entry: it passes hostname_check and has no upper case. */
bool hostname_is_canonical(const char *name);

#endif
