#include "ipv4_net.h"

#include <stdio.h>
#include <string.h>

#include "base/decimal.h"
#include "base/util.h"

#define IPV4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

static const refused_range_t refused[] = {
    { { IPV4(0, 0, 0, 0), 8 },      "\"this network\" (RFC 1122)" },
    { { IPV4(10, 0, 0, 0), 8 },     "private network (RFC 1918)" },
    { { IPV4(100, 64, 0, 0), 10 },  "carrier-grade NAT (RFC 6598)" },
    { { IPV4(127, 0, 0, 0), 8 },    "loopback" },
    { { IPV4(169, 254, 0, 0), 16 }, "link-local, including cloud metadata (169.254.169.254)" },
    { { IPV4(172, 16, 0, 0), 12 },  "private network (RFC 1918)" },
    { { IPV4(192, 0, 0, 0), 24 },   "IETF protocol assignments (RFC 6890)" },
    { { IPV4(192, 0, 2, 0), 24 },   "documentation, TEST-NET-1 (RFC 5737)" },
    { { IPV4(192, 168, 0, 0), 16 }, "private network (RFC 1918)" },
    { { IPV4(198, 18, 0, 0), 15 },  "benchmarking (RFC 2544)" },
    { { IPV4(198, 51, 100, 0), 24 },"documentation, TEST-NET-2 (RFC 5737)" },
    { { IPV4(203, 0, 113, 0), 24 }, "documentation, TEST-NET-3 (RFC 5737)" },
    { { IPV4(224, 0, 0, 0), 4 },    "multicast" },
    { { IPV4(240, 0, 0, 0), 4 },    "reserved, and the broadcast address" },
};

const refused_range_t *refused_ranges(size_t *ret_n)
{
    *ret_n = ARRAY_SIZE(refused);
    return refused;
}

bool refused_ranges_overlap(ipv4_net_t net)
{
    for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
        if (ipv4_nets_overlap(net, refused[i].net))
            return true;
    return false;
}

bool ipv4_parse_strict(const char *s, size_t len, uint32_t *ret)
{
    uint32_t addr = 0;
    size_t start = 0;
    for (int part = 0; part < 4; part++) {
        size_t end = start;
        while (end < len && s[end] != '.')
            end++;
        if ((part < 3) != (end < len))
            return false;
        unsigned v;
        if (!decimal_parse(s + start, end - start, 255, &v))
            return false;
        addr = addr << 8 | v;
        start = end + 1;
    }
    *ret = addr;
    return true;
}

bool ipv4_net_parse(const char *s, size_t len, ipv4_net_t *ret)
{
    const char *slash = memchr(s, '/', len);
    size_t alen = slash != NULL ? (size_t)(slash - s) : len;
    ipv4_net_t net = { .prefix = 32 };
    if (!ipv4_parse_strict(s, alen, &net.addr) ||
        (slash != NULL && !decimal_parse(slash + 1, len - alen - 1, 32, &net.prefix)))
        return false;
    *ret = net;
    return true;
}

uint32_t ipv4_prefix_mask(unsigned prefix)
{
    return prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
}

bool ipv4_nets_overlap(ipv4_net_t a, ipv4_net_t b)
{
    uint32_t m = ipv4_prefix_mask(a.prefix < b.prefix ? a.prefix : b.prefix);
    return (a.addr & m) == (b.addr & m);
}

void ipv4_net_format(ipv4_net_t net, char *buf, size_t size)
{
    snprintf(buf, size, "%u.%u.%u.%u/%u", net.addr >> 24, (net.addr >> 16) & 255,
             (net.addr >> 8) & 255, net.addr & 255, net.prefix);
}
