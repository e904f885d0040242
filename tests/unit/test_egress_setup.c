/* Pure parts of the egress path set-up: the router's address, its firewall
 * rules, and the choice of the host's resolver. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/allowlist.h"
#include "config/ipv4_net.h"
#include "egress/resolv_conf.h"
#include "egress/router_firewall.h"
#include "session/session_router.h"

static void router_ip_is_last_usable_address(void **state)
{
    (void)state;
    char ip[16];
    as_error_t *err = NULL;
    assert_int_equal(router_ip_for_subnet("10.89.3.0/24", ip, &err), 0);
    assert_string_equal(ip, "10.89.3.254");
    assert_int_equal(router_ip_for_subnet("10.89.0.0/16", ip, &err), 0);
    assert_string_equal(ip, "10.89.255.254");
    assert_int_equal(router_ip_for_subnet("192.168.7.8/29", ip, &err), 0);
    assert_string_equal(ip, "192.168.7.14");
    static const char *const bad[] = { "10.89.3.0", "10.89.3.0/", "10.89.3.0/33", "x/24",
                                       "10.89.3.0/30", "fd00::/64", "10.89.3.0/24x", NULL };
    for (size_t i = 0; bad[i] != NULL; i++) {
        assert_true(router_ip_for_subnet(bad[i], ip, &err) < 0);
        as_error_free(&err);
    }
}

static void firewall_refuses_private_ranges_after_allowed_nets(void **state)
{
    (void)state;
    const char *text = "api.allowed.test\nallow-upstream-net 10.90.1.0/24\n";
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_parse("t", text, strlen(text), &al, &err), 0);
    char *rules = NULL;
    assert_int_equal(router_render_iptables(al, "10.90.1.53", &rules, &err), 0);
    /* default deny, resolver allowed, the allowed net before the refusals */
    assert_non_null(strstr(rules, ":OUTPUT DROP"));
    assert_non_null(strstr(rules, "-A OUTPUT -d 10.90.1.53/32 -p udp --dport 53 -j ACCEPT"));
    char *allowed = strstr(rules, "-A OUTPUT -d 10.90.1.0/24 -p tcp -j ACCEPT");
    char *refused = strstr(rules, "-A OUTPUT -d 10.0.0.0/8 -p tcp -j REJECT");
    assert_non_null(allowed);
    assert_non_null(refused);
    assert_true(allowed < refused);
    /* every range of the one table (lib/config/ipv4_net.h), in its order, and no other */
    size_t n = 0, rejects = 0;
    const refused_range_t *ranges = refused_ranges(&n);
    const char *at = rules;
    for (size_t i = 0; i < n; i++) {
        char net[IPV4_NET_TEXT_MAX], line[80];
        ipv4_net_format(ranges[i].net, net, sizeof(net));
        snprintf(line, sizeof(line), "-A OUTPUT -d %s -p tcp -j REJECT --reject-with tcp-reset\n", net);
        at = strstr(at, line);
        assert_non_null(at);
    }
    for (const char *p = rules; (p = strstr(p, "-j REJECT --reject-with tcp-reset")) != NULL; p++)
        rejects++;
    assert_int_equal(rejects, n);
    /* the last word: nothing but TCP leaves */
    assert_non_null(strstr(rules, "-A OUTPUT -p tcp -j ACCEPT\n-A OUTPUT -j REJECT"));
    assert_non_null(strstr(rules, "COMMIT\n"));
    /* nothing may reach the router's own addresses (they go over lo) but
     * the second dnsmasq, from its own loopback address, on its own port */
    assert_null(strstr(rules, "-o lo -j ACCEPT"));
    size_t lo = 0;
    for (const char *p = rules; (p = strstr(p, "-o lo")) != NULL; p++)
        lo++;
    assert_int_equal(lo, 2);
    assert_non_null(strstr(rules, "-A OUTPUT -o lo -s 127.0.0.1 -d 127.0.0.1 -p udp --dport 5354 -j ACCEPT\n"));
    assert_non_null(strstr(rules, "-A OUTPUT -o lo -s 127.0.0.1 -d 127.0.0.1 -p tcp --dport 5354 -j ACCEPT\n"));
    free(rules);
    allowlist_free(al);
}

/* An allowed NAME:53 whose name resolves to the resolver (a home router's
 * private address) is a connection nginx makes for the agent: over TCP it
 * meets the refused ranges like any other. Only UDP, which nginx relays
 * for no one, goes to the resolver before them. */
static void firewall_resolver_tcp_meets_the_refused_ranges(void **state)
{
    (void)state;
    const char *text = "dns.home.test:53\napi.allowed.test\n";
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_parse("t", text, strlen(text), &al, &err), 0);
    char *rules = NULL;
    assert_int_equal(router_render_iptables(al, "192.168.1.1", &rules, &err), 0);
    const char *refused = strstr(rules, "-A OUTPUT -d 192.168.0.0/16 -p tcp -j REJECT");
    assert_non_null(refused);
    /* every ACCEPT before the refusals: established, the loopback pair, UDP to the resolver */
    size_t accepts = 0;
    for (const char *p = rules; (p = strstr(p, "-j ACCEPT")) != NULL && p < refused; p++)
        accepts++;
    assert_int_equal(accepts, 4);
    assert_non_null(strstr(rules, "-A OUTPUT -d 192.168.1.1/32 -p udp --dport 53 -j ACCEPT\n"));
    assert_null(strstr(rules, "-d 192.168.1.1/32 -p tcp"));
    free(rules);
    allowlist_free(al);
}

static void firewall_needs_an_ipv4_resolver(void **state)
{
    (void)state;
    char *rules = NULL;
    as_error_t *err = NULL;
    assert_true(router_render_iptables(NULL, "10.0.0.1; -A OUTPUT -j ACCEPT", &rules, &err) < 0);
    as_error_free(&err);
    assert_true(router_render_iptables(NULL, "::1", &rules, &err) < 0);
    as_error_free(&err);
    assert_int_equal(router_render_iptables(NULL, "10.0.0.1", &rules, &err), 0);
    free(rules);
    assert_int_equal(router_render_ip6tables(&rules, &err), 0);
    assert_non_null(strstr(rules, ":OUTPUT DROP"));
    assert_null(strstr(rules, "ACCEPT\n-A OUTPUT -j ACCEPT"));
    free(rules);
}

static void resolver_skips_loopback_stubs(void **state)
{
    (void)state;
    char ip[16];
    assert_int_equal(resolv_conf_first_ipv4("# comment\nsearch example\nnameserver 127.0.0.53\n"
                                            "nameserver fd00::1\n  nameserver\t192.0.2.10 \n"
                                            "nameserver 198.51.100.1\n", ip, NULL), 0);
    assert_string_equal(ip, "192.0.2.10");
    assert_int_equal(resolv_conf_first_ipv4("nameserver 127.0.0.53\n", ip, NULL), -ENOENT);
    assert_int_equal(resolv_conf_first_ipv4("", ip, NULL), -ENOENT);
    assert_int_equal(resolv_conf_first_ipv4("nameserver 0.0.0.0\nnameserver 1.2.3", ip, NULL), -ENOENT);
    assert_int_equal(resolv_conf_first_ipv4("nameservers 10.0.0.1\n", ip, NULL), -ENOENT);
}

/* A resolv.conf is read whole, however long its comments: the nameserver
 * lines past its first 16 KiB were once cut off without a word. */
static void resolver_file_is_read_whole(void **state)
{
    (void)state;
    char path[] = "/tmp/test_resolv.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    for (int i = 0; i < 400; i++)
        fprintf(f, "# a comment of the host's tools, line %03d, to make the file long\n", i);
    fprintf(f, "nameserver 127.0.0.53\nnameserver 192.0.2.53\n");
    assert_true(ftell(f) > 16384);
    assert_int_equal(fclose(f), 0);
    char ip[16] = "";
    as_error_t *err = NULL;
    assert_int_equal(resolv_conf_file_ipv4(path, ip, &err), 0);
    assert_string_equal(ip, "192.0.2.53");
    unlink(path);
    assert_int_equal(resolv_conf_file_ipv4(path, ip, &err), -ENOENT);
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(router_ip_is_last_usable_address),
        cmocka_unit_test(firewall_refuses_private_ranges_after_allowed_nets),
        cmocka_unit_test(firewall_resolver_tcp_meets_the_refused_ranges),
        cmocka_unit_test(firewall_needs_an_ipv4_resolver),
        cmocka_unit_test(resolver_skips_loopback_stubs),
        cmocka_unit_test(resolver_file_is_read_whole),
    };
    return cmocka_run_group_tests_name("egress_setup", tests, NULL, NULL);
}
