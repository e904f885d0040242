/* The router's own firewall, as iptables-restore input (pure rendering).
 * nginx cannot filter the addresses its resolver returns, so the kernel
 * does: the router may reach its resolver on UDP port 53, the networks the
 * allowlist names with allow-upstream-net, and public IPv4 over TCP; never
 * the refused ranges of lib/config/ipv4_net.h (loopback, link-local and the
 * metadata address, RFC 1918, CGNAT and the other special ranges), never
 * anything over IPv6. */
#ifndef AS_ROUTER_FIREWALL_H
#define AS_ROUTER_FIREWALL_H

#include "base/error.h"
#include "config/allowlist.h"

/* Rules for iptables-restore (IPv4). resolver_ip is an IPv4 address. */
int router_render_iptables(const allowlist_t *al, const char *resolver_ip, char **ret_text,
                           as_error_t **err);
/* Rules for ip6tables-restore: loopback only. */
int router_render_ip6tables(char **ret_text, as_error_t **err);

#endif
