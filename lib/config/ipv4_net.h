/* IPv4 networks in CIDR form, and the one table of the ranges the router
 * refuses as upstream addresses (RFC 6890 and friends) unless the allowlist
 * lifts them with allow-upstream-net. Everything that knows those ranges
 * reads this table: the allowlist parser (whether an allow-upstream-net line
 * lifts anything), the router's firewall, and a unit test that checks the
 * table in docs/allowlist.md against it. Pure code. */
#ifndef AS_IPV4_NET_H
#define AS_IPV4_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "a.b.c.d/p" with the longest address and prefix, and its NUL. */
#define IPV4_NET_TEXT_MAX 19

typedef struct ipv4_net {
    uint32_t addr;       /* host byte order, host bits zero */
    unsigned prefix;     /* 0..32 */
} ipv4_net_t;

typedef struct refused_range {
    ipv4_net_t net;
    const char *why;     /* what the range is, as docs/allowlist.md says it */
} refused_range_t;

/* The refused ranges, in address order (the firewall's order). */
const refused_range_t *refused_ranges(size_t *ret_n);

/* Whether net shares any address with one of the refused ranges. */
bool refused_ranges_overlap(ipv4_net_t net);

/* Four decimal parts, each 0..255 without sign or leading zeros: none of
 * inet_aton's octal, hex or short forms. */
bool ipv4_parse_strict(const char *s, size_t len, uint32_t *ret);

/* "a.b.c.d/p" (strict parts, a decimal prefix 0..32 without leading
 * zeros); a bare address is /32. The address is stored as written: whether
 * it has host bits set is the caller's question (ipv4_prefix_mask). */
bool ipv4_net_parse(const char *s, size_t len, ipv4_net_t *ret);

uint32_t ipv4_prefix_mask(unsigned prefix);
bool ipv4_nets_overlap(ipv4_net_t a, ipv4_net_t b);

/* "a.b.c.d/p" into buf (at least IPV4_NET_TEXT_MAX bytes). */
void ipv4_net_format(ipv4_net_t net, char *buf, size_t size);

#endif
