/* egress_state: the session's state for allow and deny, written and read
 * back, every value checked; the files that follow from a list; and how a
 * session is picked by its ID's first digits (session_find). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/allowlist.h"
#include "egress/egress_state.h"
#include "session/session_find.h"

static const egress_state_t good = {
    .id = "0123456789ab", .router = "agent-sandbox-0123456789ab-router",
    .router_ip = "10.89.3.254", .resolver = "10.88.0.1",
};

static void test_state_round_trip(void **state)
{
    (void)state;
    char *text = NULL;
    as_error_t *err = NULL;
    assert_int_equal(egress_state_format(&good, &text, &err), 0);
    egress_state_t *back = NULL;
    assert_int_equal(egress_state_parse("state", text, strlen(text), &back, &err), 0);
    assert_string_equal(back->id, good.id);
    assert_string_equal(back->router, good.router);
    assert_string_equal(back->router_ip, good.router_ip);
    assert_string_equal(back->resolver, good.resolver);
    egress_state_free(back);
    free(text);
    egress_state_free(NULL);
}

static void test_state_refused(void **state)
{
    (void)state;
    const struct { const char *text, *msg; } bad[] = {
        { "id 0123456789ab\nrouter r\nrouter-ip 10.0.0.1\n", "the router's address or resolver" },
        { "id 0123456789AB\nrouter r\nrouter-ip 10.0.0.1\nresolver 10.0.0.2\n", "the session id" },
        { "id 01234\nrouter r;x\nrouter-ip 10.0.0.1\nresolver 10.0.0.2\n", "not a container name" },
        { "id 01234\nrouter r\nrouter-ip 10.0.0.01\nresolver 10.0.0.2\n", "not an IPv4 address" },
        { "id 01234\nid 01234\n", "state:2: id twice" },
        { "port 80\n", "state:1: expected one of id, router" },
        { "id 01234 more\n", "state:1: expected one of" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        egress_state_t *st = NULL;
        as_error_t *err = NULL;
        assert_int_equal(egress_state_parse("state", bad[i].text, strlen(bad[i].text), &st, &err), -EINVAL);
        if (strstr(err->msg, bad[i].msg) == NULL)
            fail_msg("for `%s`: `%s` lacks `%s`", bad[i].text, err->msg, bad[i].msg);
        as_error_free(&err);
    }
    egress_state_t injected = good;
    injected.router = "r\nrouter-ip 1.1.1.1";
    char *text = NULL;
    as_error_t *err = NULL;
    assert_int_equal(egress_state_format(&injected, &text, &err), -EINVAL);
    as_error_free(&err);
}

static void test_names(void **state)
{
    (void)state;
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    const char *list = "api.example.com\n.wild.example\ndb.example.com:5432\n";
    assert_int_equal(allowlist_parse("list", list, strlen(list), &al, &err), 0);
    egress_names_t n;
    assert_int_equal(egress_names_render(al, &good, &n, &err), 0);
    assert_non_null(strstr(n.dnsmasq_conf, "listen-address=10.89.3.254\n"));
    assert_non_null(strstr(n.dnsmasq_conf, "addn-hosts=/etc/agent-sandbox-router/hosts\n"));
    assert_non_null(strstr(n.dnsmasq_conf, "servers-file=/etc/agent-sandbox-router/wildcards\n"));
    assert_non_null(strstr(n.nginx_conf, "resolver 10.88.0.1:53"));
    assert_non_null(strstr(n.nginx_conf, "--session 0123456789ab\";"));
    assert_non_null(strstr(n.dns_hosts, "127.0.0.3\tdb.example.com\n"));
    assert_non_null(strstr(n.dns_wildcards, "server=/wild.example/127.0.0.1#5354\n"));
    assert_non_null(strstr(n.agent_hosts, "127.0.0.1\tlocalhost\n"));
    /* the sandbox's own host name is answered in the pod, never asked of the router */
    assert_non_null(strstr(n.agent_hosts, "127.0.0.1\tlocalhost\n127.0.1.1\tagent-sandbox-0123456789ab\n"
                                       "::ffff:127.0.1.1\tagent-sandbox-0123456789ab\n"));
    assert_null(strstr(n.dns_hosts, "agent-sandbox-0123456789ab"));
    assert_string_equal(n.allowlist, list);
    /* the agent's view: the header, then the list */
    const char *body = strstr(n.agent_view, "\napi.example.com\n");
    assert_non_null(body);
    assert_string_equal(body + 1, list);
    assert_non_null(strstr(n.agent_view, "agent-sandbox allow NAME --session 0123456789ab\n"));
    egress_names_clear(&n);
    allowlist_free(al);
}

static void test_pick_session(void **state)
{
    (void)state;
    session_found_t v[3] = {
        { .id = "0123456789ab" }, { .id = "0123ffffffff" }, { .id = "abcdef012345" },
    };
    size_t at = 99;
    assert_int_equal(session_found_pick(v, 3, "abcd", &at), 0);
    assert_int_equal(at, 2);
    assert_int_equal(session_found_pick(v, 3, "0123456789ab", &at), 0);
    assert_int_equal(at, 0);
    assert_int_equal(session_found_pick(v, 3, "0123", &at), -EEXIST);
    assert_int_equal(session_found_pick(v, 3, "01234", &at), 0);
    assert_int_equal(session_found_pick(v, 3, "abc", &at), -ENOENT);      /* too short */
    assert_int_equal(session_found_pick(v, 3, "ffff", &at), -ENOENT);
    assert_int_equal(session_found_pick(v, 3, "0123456789abc", &at), -ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_round_trip),
        cmocka_unit_test(test_state_refused),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_pick_session),
    };
    return cmocka_run_group_tests_name("egress_state", tests, NULL, NULL);
}
