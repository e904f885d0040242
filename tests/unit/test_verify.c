/* `verify`'s judgement of probe output: each property passes on the evidence
 * of a confined sandbox and fails on the evidence of a leak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "verify/verify.h"

/* What the probe prints in a well-confined session. */
static const char confined[] =
    "MOUNT\t/\t/\trw,relatime\toverlay\toverlay\n"
    "MOUNT\t/\t/proc\trw,nosuid\tproc\tproc\n"
    "MOUNT\t/sys\t/proc/sys\tro,nosuid\tproc\tproc\n"
    "MOUNT\t/null\t/dev/null\trw\tdevtmpfs\tdevtmpfs\n"
    "MOUNT\t/home/u/proj\t/home/u/proj\trw,relatime\text4\t/dev/vda\n"
    "MOUNT\t/run/user/1000/agent-sandbox/abc/hosts\t/etc/hosts\tro\text4\t/dev/vda\n"
    "MOUNT\t/x/userdata/hostname\t/etc/hostname\trw\text4\t/dev/vda\n"
    "STATUS\tCapInh\t0000000000000000\n"
    "STATUS\tCapPrm\t0000000000000000\n"
    "STATUS\tCapEff\t0000000000000000\n"
    "STATUS\tCapBnd\t0000000000000000\n"
    "STATUS\tCapAmb\t0000000000000000\n"
    "STATUS\tNoNewPrivs\t1\n"
    "ENV\tPATH=/usr/bin:/bin\n"
    "ENV\tHOME=/home/u\n"
    "NET\tdns-denied\t2\t\n"
    "NET\tip-egress\t1\tNetwork is unreachable\n"
    "NET\tgateway-80\t1\tConnection refused\n"
    "NET\tgateway-53\t1\tConnection refused\n"
    "NET\tdefault-route\t1\t\n"
    "NET\tipv6-route\t1\t\n"
    "NET\tsni-spoof\t35\tcurl: (35) SSL_ERROR_SYSCALL\n"
    "NET\thost-spoof\t0\tblocked by agent-sandbox: spoof.invalid  HTTP 403\n"
    "NET\tfirst-allowed\t28\tcurl: (28) timed out HTTP 000\n"
    "NET\twrite-hosts\t1\tRead-only file system\n"
    "NET\twrite-resolv\t1\tRead-only file system\n"
    "NET\tkcore-size\t0\t0\n"
    "NET\tkeys-read\t0\t\n"
    "NET\tfirmware-list\t0\t\n"
    "DONE\n";

static char *host_env[] = { "PATH=/usr/bin:/bin", "HOME=/home/u", "SSH_AUTH_SOCK=/run/user/1000/ssh",
                            "AWS_SECRET=hunter2", NULL };
static char *no_env[] = { NULL };
static char *extra[] = { "/etc/hosts", "/etc/resolv.conf", NULL };

static verify_expect_t expect(void)
{
    return (verify_expect_t){
        .workdir = "/home/u/proj", .extra_mountpoints = extra, .host_env = host_env,
        .passed_env = no_env, .secret = "5ecre7", .host_home = "/home/u",
        .first_allowed = "api.allowed.test",
    };
}

static verify_status_t status_of(const verify_report_t *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->results[i].id, id) == 0)
            return r->results[i].status;
    fail_msg("no result %s", id);
    return VERIFY_FAIL;
}

static verify_report_t *judge(const char *output)
{
    verify_expect_t x = expect();
    verify_report_t *r = NULL;
    as_error_t *err = NULL;
    assert_int_equal(verify_evaluate(output, &x, &r, &err), 0);
    return r;
}

/* The confined output with one line replaced or added. */
static char *with(const char *find, const char *replace)
{
    const char *at = strstr(confined, find);
    assert_non_null(at);
    char *out = NULL;
    assert_true(asprintf(&out, "%.*s%s%s", (int)(at - confined), confined, replace, at + strlen(find)) > 0);
    return out;
}

static void confined_session_passes(void **state)
{
    (void)state;
    verify_report_t *r = judge(confined);
    assert_true(r->passed);
    assert_int_equal(status_of(r, "allowed"), VERIFY_SKIP);   /* no network here */
    char *table = NULL, *json = NULL;
    as_error_t *err = NULL;
    assert_int_equal(verify_render_table(r, &table, &err), 0);
    assert_non_null(strstr(table, "PASS  only the launch directory is mounted"));
    assert_non_null(strstr(table, "0 failed"));
    assert_int_equal(verify_render_json(r, &json, &err), 0);
    assert_non_null(strstr(json, "{\"passed\":true,\"probes\":[{\"id\":"));
    free(table);
    free(json);
    verify_report_free(r);
}

static void expect_fail(const char *find, const char *replace, const char *id)
{
    char *out = with(find, replace);
    verify_report_t *r = judge(out);
    if (status_of(r, id) != VERIFY_FAIL)
        fail_msg("%s did not fail with \"%s\"", id, replace);
    assert_false(r->passed);
    verify_report_free(r);
    free(out);
}

static void each_leak_fails_its_property(void **state)
{
    (void)state;
    expect_fail("DONE\n", "MOUNT\t/home/u/.ssh\t/mnt/keys\tro\text4\t/dev/vda\nDONE\n", "mounts");
    expect_fail("DONE\n", "MOUNT\t/sda\t/dev/sda\trw\tdevtmpfs\tdevtmpfs\nDONE\n", "mounts");
    expect_fail("CapEff\t0000000000000000", "CapEff\t0000000000000400", "privileges");
    expect_fail("NoNewPrivs\t1", "NoNewPrivs\t0", "privileges");
    expect_fail("DONE\n", "SETUID\t/usr/bin/su\nDONE\n", "setuid");
    expect_fail("DONE\n", "ENV\tAWS_SECRET=hunter2\nDONE\n", "environment");
    expect_fail("DONE\n", "ENV\tX=5ecre7\nDONE\n", "environment");
    expect_fail("DONE\n", "SOCKET\t/run/user/1000/bus\nDONE\n", "host-sockets");
    expect_fail("DONE\n", "PRESENT\t/home/u/.ssh\nDONE\n", "host-sockets");
    expect_fail("NET\tdns-denied\t2", "NET\tdns-denied\t0", "dns");
    expect_fail("NET\tip-egress\t1", "NET\tip-egress\t0", "direct-ip");
    expect_fail("NET\tgateway-53\t1", "NET\tgateway-53\t0", "gateway");
    expect_fail("NET\tipv6-route\t1", "NET\tipv6-route\t0", "ipv6");
    expect_fail("NET\tsni-spoof\t35", "NET\tsni-spoof\t0", "sni");
    expect_fail("HTTP 403", "HTTP 200", "http-host");
    expect_fail("NET\twrite-hosts\t1", "NET\twrite-hosts\t0", "name-files");
    expect_fail("NET\tkcore-size\t0\t0", "NET\tkcore-size\t0\t140737471590400", "kernel");
    expect_fail("/proc/sys\tro", "/proc/sys\trw", "kernel");
    expect_fail("NET\tfirmware-list\t0\t", "NET\tfirmware-list\t0\tefi", "kernel");
}

static void passed_variables_and_own_sockets_are_fine(void **state)
{
    (void)state;
    char *out = with("DONE\n", "ENV\tHOME=/home/u\nSOCKET\t/home/u/proj/.dev.sock\nDONE\n");
    verify_report_t *r = judge(out);
    assert_int_equal(status_of(r, "environment"), VERIFY_PASS);
    assert_int_equal(status_of(r, "host-sockets"), VERIFY_PASS);
    verify_report_free(r);
    free(out);
}

static void truncated_output_fails(void **state)
{
    (void)state;
    verify_report_t *r = judge("MOUNT\t/\t/\trw\toverlay\toverlay\n");
    assert_false(r->passed);
    assert_int_equal(status_of(r, "probe"), VERIFY_FAIL);
    verify_report_free(r);
}

static void reachable_first_entry_passes(void **state)
{
    (void)state;
    char *out = with("NET\tfirst-allowed\t28\tcurl: (28) timed out HTTP 000", "NET\tfirst-allowed\t0\tHTTP 404");
    verify_report_t *r = judge(out);
    assert_int_equal(status_of(r, "allowed"), VERIFY_PASS);
    verify_report_free(r);
    free(out);
}

/* verify --agent: the agent's program, its telemetry switches, and none of
 * its credential variables. */
static verify_report_t *judge_agent(const char *output)
{
    static char *off[] = { "X_TELEMETRY=0", NULL };
    static char *creds[] = { "X_API_KEY", NULL };
    verify_expect_t x = expect();
    x.agent = "x";
    x.agent_telemetry_off = off;
    x.agent_credentials = creds;
    verify_report_t *r = NULL;
    as_error_t *err = NULL;
    assert_int_equal(verify_evaluate(output, &x, &r, &err), 0);
    return r;
}

static void agent_profile_holds(void **state)
{
    (void)state;
    verify_report_t *r = judge(confined);
    for (size_t i = 0; i < r->n; i++)
        assert_string_not_equal(r->results[i].id, "agent");      /* no agent: no such line */
    verify_report_free(r);

    const struct { const char *add; verify_status_t want; const char *evidence; } cases[] = {
        { "ENV\tX_TELEMETRY=0\nAGENT\tcommand\t/usr/local/bin/x\n", VERIFY_PASS, "x at /usr/local/bin/x" },
        { "ENV\tX_TELEMETRY=0\nAGENT\tcommand\t\n", VERIFY_FAIL, "no such program" },
        { "AGENT\tcommand\t/usr/local/bin/x\n", VERIFY_FAIL, "X_TELEMETRY=0 is not set" },
        { "ENV\tX_TELEMETRY=1\nAGENT\tcommand\t/usr/local/bin/x\n", VERIFY_FAIL, "X_TELEMETRY=0 is not set" },
        { "ENV\tX_TELEMETRY=0\nENV\tX_API_KEY=sk-1\nAGENT\tcommand\t/usr/local/bin/x\n", VERIFY_FAIL,
          "X_API_KEY is set inside" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = with("DONE\n", cases[i].add);
        char *done = NULL;
        assert_true(asprintf(&done, "%sDONE\n", out) > 0);
        r = judge_agent(done);
        const verify_result_t *a = NULL;
        for (size_t k = 0; k < r->n; k++)
            if (strcmp(r->results[k].id, "agent") == 0)
                a = &r->results[k];
        assert_non_null(a);
        assert_int_equal(a->status, cases[i].want);
        if (strstr(a->evidence, cases[i].evidence) == NULL)
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, a->evidence, cases[i].evidence);
        verify_report_free(r);
        free(out);
        free(done);
    }
}

/* verify --secret: the probe's search, judged against the values outside. */
#define STANDIN "tok-Abcd1234efgh"
#define VALUE "tok-Real9876vxyz"
static const char held_found[] =
    "HELD\tMY_TOKEN\t" STANDIN "\n"
    "PLANTED\tMY_TOKEN\t/home/u/.verify-held-n-MY_TOKEN\n"
    "PLANTED\tMY_TOKEN\t/tmp/verify-held-n-MY_TOKEN\n"
    "FOUND\t/proc/12/environ:" STANDIN "\n"
    "FOUND\t/home/u/.verify-held-n-MY_TOKEN:" STANDIN "\n"
    "FOUND\t/tmp/verify-held-n-MY_TOKEN:" STANDIN "\n"
    "FOUND\t/usr/lib/x.js:tok-Qwer5678zxcv\n"
    "HELDDONE\n";

static const verify_result_t *held_result(verify_report_t **r, const char *held, bool hold)
{
    static char *vars[] = { "MY_TOKEN", NULL }, *values[] = { VALUE, NULL };
    char *out = NULL;
    assert_true(asprintf(&out, "%.*s%sDONE\n", (int)(sizeof(confined) - sizeof("DONE\n")), confined, held) > 0);
    verify_expect_t x = expect();
    x.held_vars = hold ? vars : NULL;
    x.held_values = hold ? values : NULL;
    as_error_t *err = NULL;
    assert_int_equal(verify_evaluate(out, &x, r, &err), 0);
    free(out);
    for (size_t k = 0; k < (*r)->n; k++)
        if (strcmp((*r)->results[k].id, "held-secrets") == 0) {
            assert_null(strstr((*r)->results[k].evidence, VALUE));     /* never shown */
            return &(*r)->results[k];
        }
    fail_msg("no held-secrets line");
    return NULL;
}

/* The held output with one piece replaced. */
static void held_case(const char *find, const char *replace, verify_status_t want, const char *evidence)
{
    const char *at = strstr(held_found, find);
    assert_non_null(at);
    char *held = NULL;
    assert_true(asprintf(&held, "%.*s%s%s", (int)(at - held_found), held_found, replace, at + strlen(find)) > 0);
    verify_report_t *r = NULL;
    const verify_result_t *h = held_result(&r, held, true);
    if (h->status != want || strstr(h->evidence, evidence) == NULL)
        fail_msg("with \"%s\": %d \"%s\", wanted %d \"%s\"", replace, h->status, h->evidence, want, evidence);
    verify_report_free(r);
    free(held);
}

static void held_secret_is_searched_for(void **state)
{
    (void)state;
    verify_report_t *r = NULL;
    const verify_result_t *h = held_result(&r, "", false);
    assert_int_equal(h->status, VERIFY_SKIP);                      /* nothing held: said so */
    verify_report_free(r);

    held_case("", "", VERIFY_PASS, "4 strings of the held shapes");
    /* the value anywhere: where, never what */
    held_case("/usr/lib/x.js:tok-Qwer5678zxcv", "/etc/agent-sandbox/x:" VALUE, VERIFY_FAIL,
              "MY_TOKEN: its value is readable in /etc/agent-sandbox/x");
    held_case("HELDDONE\n", "ENV\tOTHER=" VALUE "\nHELDDONE\n", VERIFY_FAIL, "its value is readable inside");
    held_case("HELD\tMY_TOKEN\t" STANDIN, "HELD\tMY_TOKEN\t" VALUE, VERIFY_FAIL, "readable inside");
    /* a search that cannot have worked proves nothing */
    held_case("HELD\tMY_TOKEN\t" STANDIN, "HELD\tMY_TOKEN\t", VERIFY_FAIL, "not set inside");
    held_case("FOUND\t/proc/12/environ:" STANDIN "\n", "", VERIFY_FAIL, "processes' environments");
    held_case("FOUND\t/proc/12/environ:", "FOUND\t/proc/12/cmdline:", VERIFY_FAIL, "processes' environments");
    held_case("FOUND\t/tmp/verify-held-n-MY_TOKEN:" STANDIN "\n", "", VERIFY_FAIL,
              "planted in /tmp/verify-held-n-MY_TOKEN");
    held_case("PLANTED\tMY_TOKEN\t/tmp/verify-held-n-MY_TOKEN\n", "", VERIFY_FAIL, "could not be planted");
    held_case("HELDDONE\n", "", VERIFY_FAIL, "did not run to its end");
}

/* A held credential variable of the agent is named: its stand-in inside
 * is no leak. */
static void held_credential_is_named(void **state)
{
    (void)state;
    static char *creds[] = { "MY_TOKEN", NULL }, *vars[] = { "MY_TOKEN", NULL }, *values[] = { VALUE, NULL };
    char *out = NULL;
    assert_true(asprintf(&out, "%.*sENV\tMY_TOKEN=" STANDIN "\nAGENT\tcommand\t/usr/local/bin/x\n%sDONE\n",
                         (int)(sizeof(confined) - sizeof("DONE\n")), confined, held_found) > 0);
    verify_expect_t x = expect();
    x.agent = "x";
    x.agent_credentials = creds;
    x.held_vars = vars;
    x.held_values = values;
    verify_report_t *r = NULL;
    as_error_t *err = NULL;
    assert_int_equal(verify_evaluate(out, &x, &r, &err), 0);
    assert_int_equal(status_of(r, "agent"), VERIFY_PASS);
    assert_int_equal(status_of(r, "held-secrets"), VERIFY_PASS);
    assert_true(r->passed);
    verify_report_free(r);
    x.held_vars = NULL;                                            /* not held: a leak */
    assert_int_equal(verify_evaluate(out, &x, &r, &err), 0);
    assert_int_equal(status_of(r, "agent"), VERIFY_FAIL);
    verify_report_free(r);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(confined_session_passes),
        cmocka_unit_test(each_leak_fails_its_property),
        cmocka_unit_test(passed_variables_and_own_sockets_are_fine),
        cmocka_unit_test(truncated_output_fails),
        cmocka_unit_test(reachable_first_entry_passes),
        cmocka_unit_test(agent_profile_holds),
        cmocka_unit_test(held_secret_is_searched_for),
        cmocka_unit_test(held_credential_is_named),
    };
    return cmocka_run_group_tests_name("verify", tests, NULL, NULL);
}
