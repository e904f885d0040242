/* --publish: the spec's syntax, the list's rules, the host port check
 * against a real socket, and what the plan makes of it (the pod's port on
 * the host's loopback, the forwarder's relay to the pod's loopback). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/allowlist.h"
#include "config/publish.h"
#include "session/egress_spec.h"
#include "session/session_plan.h"

static void parse_forms(void **state)
{
    (void)state;
    publish_t p;
    as_error_t *err = NULL;
    assert_int_equal(publish_parse("3000", &p, &err), 0);
    assert_int_equal(p.host_port, 3000);
    assert_int_equal(p.port, 3000);
    assert_int_equal(publish_parse("18080:8080", &p, &err), 0);
    assert_int_equal(p.host_port, 18080);
    assert_int_equal(p.port, 8080);
    assert_int_equal(publish_parse("65535:1", &p, &err), 0);
    static const char *const bad[] = {
        "", ":", "0", "65536", "-1", "+80", "080", " 80", "80 ", "1:2:3", "127.0.0.1:80:80",
        "80:", ":80", "0x50", "8080/udp", "99999999999999999999",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (publish_parse(bad[i], &p, &err) != -EINVAL)
            fail_msg("\"%s\" was taken", bad[i]);
        assert_non_null(strstr(err->msg, "[HOSTPORT:]PORT"));
        as_error_free(&err);
    }
    /* a relay port inside would make the relay reach itself */
    assert_int_equal(publish_parse("8000:61003", &p, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "61000-61015"));
    as_error_free(&err);
    assert_int_equal(publish_parse("61003:8000", &p, &err), 0);   /* on the host it is any port */
}

static void list_rules(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    publish_t v[PUBLISH_MAX + 1];
    for (size_t i = 0; i <= PUBLISH_MAX; i++)
        v[i] = (publish_t){ .host_port = (uint16_t)(20000 + i), .port = 80 };
    assert_int_equal(publish_list_check(v, PUBLISH_MAX, &err), 0);   /* one server, many host ports */
    assert_int_equal(publish_list_check(v, PUBLISH_MAX + 1, &err), -E2BIG);
    as_error_free(&err);
    v[3].host_port = v[1].host_port;
    assert_int_equal(publish_list_check(v, 4, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "host port 20001 is published twice"));
    as_error_free(&err);
    assert_int_equal(publish_relay_port(0), 61000);
    assert_int_equal(publish_relay_port(PUBLISH_MAX - 1), 61015);
}

/* A port a listener holds is refused; once it is closed, it is free. */
static void host_port_check(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 1), 0);
    socklen_t alen = sizeof(a);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
    publish_t p = { .host_port = ntohs(a.sin_port), .port = 8080 };
    as_error_t *err = NULL;
    assert_int_equal(publish_host_port_check(&p, &err), -EADDRINUSE);
    assert_non_null(strstr(err->msg, "is in use by another program"));
    assert_non_null(strstr(err->msg, "--publish HOSTPORT:8080"));
    as_error_free(&err);
    close(fd);
    assert_int_equal(publish_host_port_check(&p, &err), 0);
}

static char *cmd[] = { "true", NULL };

static session_inputs_t inputs(const publish_t *pub, size_t n)
{
    return (session_inputs_t){
        .id = "0123456789ab", .cli_pid = 4242, .workdir = "/home/u/proj",
        .image = "localhost/agent-sandbox:dev", .command = cmd, .session_dir = "/run/user/1/as/x",
        .router_image = "localhost/agent-sandbox-router:dev", .egress_network = "agent-sandbox-egress",
        .resolver = "10.0.2.3", .publish = pub, .n_publish = n,
    };
}

static bool argv_has(char *const *v, const char *s)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

static void plan_publishes_through_the_forwarder(void **state)
{
    (void)state;
    const char *text = "api.example.test\n";
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_parse("t", text, strlen(text), &al, &err), 0);
    publish_t pub[] = { { .host_port = 18080, .port = 8080 }, { .host_port = 5173, .port = 5173 } };
    session_inputs_t in = inputs(pub, 2);
    in.allowlist = al;
    session_plan_t *p = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), 0);
    /* the pod's ports: on the host's loopback only, to the relay ports */
    assert_int_equal(p->pod_spec.n_ports, 2);
    assert_string_equal(p->pod_spec.ports[0].host_ip, "127.0.0.1");
    assert_int_equal(p->pod_spec.ports[0].host_port, 18080);
    assert_int_equal(p->pod_spec.ports[0].container_port, 61000);
    assert_int_equal(p->pod_spec.ports[1].host_port, 5173);
    assert_int_equal(p->pod_spec.ports[1].container_port, 61001);
    /* the forwarder relays each to the agent's server on the pod's loopback */
    assert_int_equal(session_plan_bind(p, "10.89.7.0/24", &err), 0);
    char *const *argv = p->egress->forwarder.command;
    assert_true(argv_has(argv, "0.0.0.0:61000=127.0.0.1:8080"));
    assert_true(argv_has(argv, "0.0.0.0:61001=127.0.0.1:5173"));
    assert_true(argv_has(argv, "127.0.0.2:443=10.89.7.254:443"));   /* egress unchanged */
    char *described = NULL;
    assert_int_equal(session_plan_describe(p, &described, &err), 0);
    assert_non_null(strstr(described, "publish: 127.0.0.1:18080 on the host -> port 8080 in the sandbox"));
    free(described);
    session_plan_free(p);

    /* no publish: no port of the pod anywhere */
    in = inputs(NULL, 0);
    in.allowlist = al;
    assert_int_equal(session_plan_build(&in, &p, &err), 0);
    assert_int_equal(p->pod_spec.n_ports, 0);
    session_plan_free(p);

    /* without the router, nothing to relay with: refused */
    in = inputs(pub, 2);
    in.router_image = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "forwarder"));
    as_error_free(&err);
    allowlist_free(al);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_forms),
        cmocka_unit_test(list_rules),
        cmocka_unit_test(host_port_check),
        cmocka_unit_test(plan_publishes_through_the_forwarder),
    };
    return cmocka_run_group_tests_name("publish", tests, NULL, NULL);
}
