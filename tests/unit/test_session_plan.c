/* The session plan: names, labels, the agent's spec, input validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "podman/names.h"
#include "session/agent_spec.h"
#include "session/session_plan.h"
#include "workspace/workspace.h"

static char *cmd[] = { "sh", "-c", "exit 42", NULL };
static char *env[] = { "TERM=xterm", "LANG=C.UTF-8", NULL };

static session_inputs_t good(void)
{
    return (session_inputs_t){
        .id = "0123456789ab", .cli_pid = 4242, .workdir = "/home/u/proj",
        .image = "localhost/agent-sandbox:dev", .command = cmd, .tty = false, .env = env,
    };
}

static void names_and_labels(void **state)
{
    (void)state;
    session_inputs_t in = good();
    session_plan_t *p = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), 0);
    assert_string_equal(p->network, "agent-sandbox-0123456789ab-net");
    assert_string_equal(p->pod, "agent-sandbox-0123456789ab");
    assert_string_equal(p->agent, "agent-sandbox-0123456789ab-agent");
    assert_string_equal(p->labels[0].key, LABEL_SESSION);
    assert_string_equal(p->labels[0].value, "0123456789ab");
    assert_string_equal(p->labels[1].key, LABEL_PID);
    assert_string_equal(p->labels[1].value, "4242");
    session_plan_free(p);
    session_plan_free(NULL);
}

static void agent_spec_confines(void **state)
{
    (void)state;
    session_inputs_t in = good();
    session_plan_t *p = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), 0);
    agent_spec_t a;
    assert_int_equal(agent_spec_build(p, &a, &err), 0);
    podman_container_spec_t spec = a.spec;
    podman_mount_t *mounts = a.mounts;
    /* the launch directory, at the same path, is the only host mount; /tmp is its own */
    assert_int_equal(a.n_mounts, 2);
    assert_ptr_equal(spec.mounts, a.mounts);
    assert_string_equal(mounts[0].source, "/home/u/proj");
    assert_string_equal(mounts[0].destination, "/home/u/proj");
    assert_string_equal(mounts[0].type, "bind");
    assert_string_equal(mounts[1].destination, "/tmp");
    assert_string_equal(mounts[1].type, "tmpfs");
    assert_null(mounts[1].source);
    assert_string_equal(spec.work_dir, "/home/u/proj");
    assert_string_equal(spec.pod, p->pod);
    assert_true(spec.no_new_privileges);
    assert_string_equal(spec.cap_drop[0], "all");
    assert_null(spec.cap_drop[1]);
    assert_null(spec.cap_add);
    assert_null(spec.user);                 /* keep-id: the caller's uid */
    assert_string_equal(spec.command[2], "exit 42");
    assert_string_equal(spec.env[1], "LANG=C.UTF-8");
    assert_null(spec.env[2]);
    session_plan_free(p);
}

static void describe_hides_env_values(void **state)
{
    (void)state;
    char *secret_env[] = { "ANTHROPIC_API_KEY=sk-secret", NULL };
    session_inputs_t in = good();
    in.env = secret_env;
    session_plan_t *p = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), 0);
    char *text = NULL;
    assert_int_equal(session_plan_describe(p, &text, &err), 0);
    assert_non_null(strstr(text, "ANTHROPIC_API_KEY"));
    assert_null(strstr(text, "sk-secret"));
    assert_non_null(strstr(text, "/home/u/proj"));
    free(text);
    session_plan_free(p);
}

static void expect_refused(session_inputs_t in, const char *fragment)
{
    session_plan_t *p = NULL;
    as_error_t *err = NULL;
    assert_true(session_plan_build(&in, &p, &err) < 0);
    assert_null(p);
    if (strstr(err->msg, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err->msg, fragment);
    as_error_free(&err);
}

static void bad_inputs_are_refused(void **state)
{
    (void)state;
    session_inputs_t in = good();
    in.id = "XYZ";
    expect_refused(in, "session id");
    in = good();
    in.image = "evil image";
    expect_refused(in, "not a valid image reference");
    in.image = "a/../b";
    expect_refused(in, "not a valid image reference");
    in.image = "img?x=1";
    expect_refused(in, "not a valid image reference");
    in = good();
    in.workdir = "relative/dir";
    expect_refused(in, "absolute");
    in = good();
    char *empty[] = { NULL };
    in.command = empty;
    expect_refused(in, "no command");
    in = good();
    char *bad_env[] = { "=x", NULL };
    in.env = bad_env;
    expect_refused(in, "NAME=VALUE");
}

/* One launch directory: protected paths of another are refused, and the
 * home of the launch tree is the plan's workdir, held nowhere else. */
static void one_launch_directory(void **state)
{
    (void)state;
    workspace_t other = { .launch_dir = "/home/u/other" };
    session_inputs_t in = good();
    in.workspace = &other;
    expect_refused(in, "the protected paths are of /home/u/other, the session of /home/u/proj");
    in = good();
    in.home_per_project = true;
    expect_refused(in, "needs its volume");
    in.home_volume = "agent-sandbox-home-proj-0123456789abcdef";
    session_plan_t *p = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), 0);
    assert_true(p->in.home_per_project);
    assert_string_equal(p->in.workdir, "/home/u/proj");
    session_plan_free(p);
}

static void image_refs(void **state)
{
    (void)state;
    assert_true(image_ref_valid("localhost/agent-sandbox:dev"));
    assert_true(image_ref_valid("quay.io/a/b@sha256:0123abcd"));
    assert_false(image_ref_valid(""));
    assert_false(image_ref_valid("-x"));
    assert_false(image_ref_valid("a%2Fb"));
    assert_false(image_ref_valid("a#b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_and_labels),
        cmocka_unit_test(agent_spec_confines),
        cmocka_unit_test(describe_hides_env_values),
        cmocka_unit_test(bad_inputs_are_refused),
        cmocka_unit_test(one_launch_directory),
        cmocka_unit_test(image_refs),
    };
    return cmocka_run_group_tests_name("session_plan", tests, NULL, NULL);
}
