/* The executor's set-up and teardown against the stub libpod server
 * (stub_libpod.h), with scripted failures at each step: whatever was made
 * is undone, teardown keeps going past failures and reports every one, and
 * two steps that fail at once are both told. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stub_libpod.h"
#include "base/util.h"
#include "config/allowlist.h"
#include "session/egress_spec.h"
#include "session/session.h"
#include "session/session_plan.h"

typedef struct fixture {
    stub_libpod_t *stub;
    allowlist_t *allowlist;
    session_plan_t *plan;
    podman_api_t *api;
    session_t *s;
    char session_dir[128];
} fixture_t;

static char *cmd[] = { "true", NULL };
#define ID "0123456789ab"

static int fixture_up(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    as_error_t *err = NULL;
    const char *hosts = "api.allowed.test\n";
    if (f == NULL || stub_libpod_start(&f->stub) < 0 ||
        allowlist_parse("allowed-hosts", hosts, strlen(hosts), &f->allowlist, &err) < 0)
        return -1;
    snprintf(f->session_dir, sizeof(f->session_dir), "%s/" ID, stub_libpod_dir(f->stub));
    if (mkdir(f->session_dir, 0700) < 0 || podman_api_new(stub_libpod_socket(f->stub), &f->api, &err) < 0)
        return -1;
    *state = f;
    return 0;
}

static int fixture_down(void **state)
{
    fixture_t *f = *state;
    session_free(f->s);
    session_plan_free(f->plan);
    podman_api_free(f->api);
    allowlist_free(f->allowlist);
    stub_libpod_stop(f->stub);
    free(f);
    return 0;
}

static void new_session(fixture_t *f, const signal_source_t *signals)
{
    session_inputs_t in = {
        .id = ID, .cli_pid = getpid(), .workdir = "/home/u/proj", .image = "localhost/agent-sandbox:dev",
        .command = cmd, .session_dir = f->session_dir, .router_image = "localhost/agent-sandbox-router:dev",
        .egress_network = "agent-sandbox-egress", .resolver = "10.0.0.53", .allowlist = f->allowlist,
    };
    as_error_t *err = NULL;
    if (session_plan_build(&in, &f->plan, &err) < 0 || session_new(f->api, f->plan, signals, &f->s, &err) < 0)
        fail_msg("%s", err->msg);
}

static void assert_torn_down(fixture_t *f)
{
    as_error_t *err = NULL;
    if (session_teardown(f->s, &err) < 0)
        fail_msg("teardown: %s", err->msg);
    char *left = session_leftovers(f->s);
    assert_string_equal(left, "");
    free(left);
}

static void set_up_in_order_and_undone(void **state)
{
    fixture_t *f = *state;
    new_session(f, NULL);
    as_error_t *err = NULL;
    if (session_setup(f->s, &err) < 0)
        fail_msg("%s", err->msg);
    /* bound from podman's subnet, and written */
    assert_true(f->plan->egress->bound);
    assert_string_equal(f->plan->egress->router_ip, "10.89.7.254");
    assert_string_equal(f->plan->pod_spec.dns_servers[0], "10.89.7.254");
    char path[256], text[256] = "";
    snprintf(path, sizeof(path), "%s/resolv.conf", f->session_dir);
    FILE *rf = fopen(path, "re");
    assert_non_null(rf);
    assert_true(fread(text, 1, sizeof(text) - 1, rf) > 0);
    fclose(rf);
    assert_non_null(strstr(text, "nameserver 10.89.7.254\n"));
    snprintf(path, sizeof(path), "%s/router/nginx.conf", f->session_dir);
    assert_int_equal(access(path, R_OK), 0);
    /* the agent exists but never started: that is session_run's, after the proof */
    assert_int_equal(stub_libpod_count(f->stub, "POST", "-agent/start"), 0);
    /* the router marked where the agent's events begin (SIGUSR1), and it answered */
    assert_true(stub_libpod_count(f->stub, "POST", "-router/kill?signal=10") >= 1);
    assert_int_equal(stub_libpod_count(f->stub, "POST", "-router/kill?signal=12"), 0);
    snprintf(path, sizeof(path), "%s/router-log/started", f->session_dir);
    rf = fopen(path, "re");
    assert_non_null(rf);
    assert_non_null(fgets(text, sizeof(text), rf));
    fclose(rf);
    assert_string_equal(text, "agent\n");
    assert_int_equal(stub_libpod_count(f->stub, "POST", "/containers/create"), 3);
    assert_torn_down(f);
    /* the pod took its containers along; the router and the network went too */
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/pods/agent-sandbox-" ID "?"), 1);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/containers/agent-sandbox-" ID "-router?"), 1);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/networks/agent-sandbox-" ID "-net?"), 1);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "-agent?"), 0);
    /* the router killed before its removal (libpod's own stop polls every
     * 100 ms); the pod is not (405-agent-lost.bats, "bug 8") */
    char *log = stub_libpod_log(f->stub);
    const char *router_kill = strstr(log, "-router/kill?signal=9");
    assert_non_null(router_kill);
    assert_ptr_equal(strstr(router_kill, "DELETE /v4.0.0/libpod/containers/agent-sandbox-" ID "-router?"),
                     strstr(log, "DELETE /v4.0.0/libpod/containers/agent-sandbox-" ID "-router?"));
    assert_null(strstr(log, "/pods/agent-sandbox-" ID "/kill"));
    free(log);
}

/* One scripted failure, and what the error must say. */
typedef struct failure {
    const char *method, *path, *body, *says;
} failure_t;

static const failure_t failures[] = {
    { "GET", "/networks/agent-sandbox-egress/exists", NULL, "preparing the shared egress network" },
    { "POST", "/networks/create", NULL, "step failed" },
    { "POST", "/containers/create", "-router\"", "starting the router" },
    { "POST", "/pods/create", NULL, "step failed" },
    { "POST", "/containers/create", "-forwarder\"", "starting the forwarder" },
    { "POST", "-forwarder/start", NULL, "starting the forwarder" },
    { "POST", "/containers/create", "-agent\"", "step failed" },
};

static void each_failed_step_is_undone(void **state)
{
    fixture_t *f = *state;
    for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
        const failure_t *x = &failures[i];
        stub_libpod_rule(f->stub, x->method, x->path, x->body, 500,
                         "{\"cause\":\"step failed\",\"message\":\"step failed\",\"response\":500}", 1);
        new_session(f, NULL);
        as_error_t *err = NULL;
        assert_true(session_setup(f->s, &err) < 0);
        if (strstr(err->msg, x->says) == NULL || strstr(err->msg, "step failed") == NULL)
            fail_msg("step %zu (%s %s): \"%s\" does not say \"%s\"", i, x->method, x->path, err->msg, x->says);
        as_error_free(&err);
        assert_torn_down(f);
        assert_int_equal(stub_libpod_count(f->stub, "POST", "-agent/start"), 0);
        session_free(f->s);
        session_plan_free(f->plan);
        f->s = NULL;
        f->plan = NULL;
    }
    /* every network made was removed again: one per run past the first step */
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/networks/"),
                     (int)(sizeof(failures) / sizeof(failures[0])) - 1);
}

/* Regression: the router's error was dropped, and the forwarder's was
 * reported as "starting the router". */
static void router_and_forwarder_failing_together_are_both_told(void **state)
{
    fixture_t *f = *state;
    stub_libpod_rule(f->stub, "POST", "/containers/create", "-router\"", 500,
                     "{\"cause\":\"router broke\",\"message\":\"router broke\",\"response\":500}", 0);
    stub_libpod_rule(f->stub, "POST", "/containers/create", "-forwarder\"", 500,
                     "{\"cause\":\"forwarder broke\",\"message\":\"forwarder broke\",\"response\":500}", 0);
    new_session(f, NULL);
    as_error_t *err = NULL;
    assert_true(session_setup(f->s, &err) < 0);
    const char *r = strstr(err->msg, "starting the router: "), *fw = strstr(err->msg, "starting the forwarder: ");
    if (r == NULL || fw == NULL || strstr(r, "router broke") == NULL || strstr(fw, "forwarder broke") == NULL)
        fail_msg("both failures must be told, each as its own: %s", err->msg);
    /* neither is told as the other's */
    const char *first_end = strchr(r < fw ? r : fw, ';');
    assert_non_null(first_end);
    if (r < fw)
        assert_null(memmem(r, (size_t)(first_end - r), "forwarder broke", 15));
    else
        assert_null(memmem(fw, (size_t)(first_end - fw), "router broke", 12));
    as_error_free(&err);
    assert_torn_down(f);
}

/* Regression: teardown returned at the first failure, leaving the rest. */
static void teardown_goes_on_and_reports_every_failure(void **state)
{
    fixture_t *f = *state;
    new_session(f, NULL);
    as_error_t *err = NULL;
    if (session_setup(f->s, &err) < 0)
        fail_msg("%s", err->msg);
    stub_libpod_rule(f->stub, "DELETE", "/pods/", NULL, 500,
                     "{\"cause\":\"pod stuck\",\"message\":\"pod stuck\",\"response\":500}", 0);
    stub_libpod_rule(f->stub, "DELETE", "/networks/", NULL, 500,
                     "{\"cause\":\"network stuck\",\"message\":\"network stuck\",\"response\":500}", 0);
    assert_true(session_teardown(f->s, &err) < 0);
    assert_non_null(strstr(err->msg, "pod stuck"));
    assert_non_null(strstr(err->msg, "network stuck"));
    as_error_free(&err);
    /* the router went (with the pod's attempts: a failed one is asked
     * once more), the network was still tried */
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/pods/"), 2);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "-router?"), 1);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/networks/"), 1);
    char *left = session_leftovers(f->s);
    assert_string_equal(left, "container agent-sandbox-" ID "-agent\ncontainer agent-sandbox-" ID "-forwarder\n"
                              "pod agent-sandbox-" ID "\nnetwork agent-sandbox-" ID "-net\n");
    free(left);
    /* a second try, once podman lets go, removes the rest */
    stub_libpod_rule(f->stub, "DELETE", "/", NULL, 200, "{}", 0);
    assert_torn_down(f);
}

/* A signal source that reports SIGTERM once the pod has been asked for. */
static int term_after_pod(void *ctx)
{
    fixture_t *f = ctx;
    return stub_libpod_count(f->stub, "POST", "/pods/create") > 0 ? SIGTERM : 0;
}

static void interrupted_set_up_is_undone(void **state)
{
    fixture_t *f = *state;
    signal_source_t sig = { .fd = -1, .terminating = term_after_pod, .ctx = f };
    new_session(f, &sig);
    as_error_t *err = NULL;
    assert_int_equal(session_setup(f->s, &err), -EINTR);
    assert_non_null(strstr(err->msg, "interrupted by"));
    as_error_free(&err);
    assert_int_equal(stub_libpod_count(f->stub, "POST", "-forwarder/start"), 0);
    assert_torn_down(f);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/pods/"), 1);
}

static void not_ready(stub_libpod_t *s, int fd, const char *container, bool input_only, void *ctx)
{
    (void)s; (void)container; (void)input_only; (void)ctx;
    stub_send_upgrade(fd);
    stub_send_frame(fd, 1, "agent-sandbox-forwarder: not ready: probe: nothing listens on 127.0.0.2:443 yet\n");
}

/* The ready line in the same read as the 101 head: still seen at once
 * (it waits for no poll that would never fire). */
static void ready_with_head(stub_libpod_t *s, int fd, const char *container, bool input_only, void *ctx)
{
    (void)s; (void)container; (void)input_only; (void)ctx;
    static const char both[] = "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
                               "Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n"
                               "\1\0\0\0\0\0\0\x1f" "agent-sandbox-forwarder: ready\n";
    stub_send(fd, both, sizeof(both) - 1);
    char junk[256];
    while (read(fd, junk, sizeof(junk)) > 0) { }
}

static void ready_line_with_the_head_is_seen(void **state)
{
    fixture_t *f = *state;
    stub_libpod_on_attach(f->stub, "-forwarder", ready_with_head, NULL);
    new_session(f, NULL);
    as_error_t *err = NULL;
    long t0 = monotonic_ms();
    if (session_setup(f->s, &err) < 0)
        fail_msg("%s", err->msg);
    assert_true(monotonic_ms() - t0 < 1000);
    assert_torn_down(f);
}

static void forwarder_not_ready_fails_closed(void **state)
{
    fixture_t *f = *state;
    stub_libpod_on_attach(f->stub, "-forwarder", not_ready, NULL);
    new_session(f, NULL);
    as_error_t *err = NULL;
    assert_true(session_setup(f->s, &err) < 0);
    assert_non_null(strstr(err->msg, "the egress path is not confined as planned: "
                                     "agent-sandbox-forwarder: not ready: probe: nothing listens"));
    as_error_free(&err);
    assert_torn_down(f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(set_up_in_order_and_undone, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(each_failed_step_is_undone, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(router_and_forwarder_failing_together_are_both_told, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(teardown_goes_on_and_reports_every_failure, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(interrupted_set_up_is_undone, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(forwarder_not_ready_fails_closed, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(ready_line_with_the_head_is_seen, fixture_up, fixture_down),
    };
    return cmocka_run_group_tests_name("session_setup", tests, NULL, NULL);
}
