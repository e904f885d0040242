/* A session's ending (session_finish, lib/session/session_life.h) without
 * podman: a session set up against the stub libpod server (stub_libpod.h),
 * then ended as the lifecycle ends it. What the user is told comes through
 * the session's `say`; what happened comes back typed in the ending. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stub_libpod.h"
#include "base/file_write.h"
#include "config/allowlist.h"
#include "session/session_life.h"
#include "session/session_plan.h"
#include "session/session_review.h"

typedef struct fixture {
    stub_libpod_t *stub;
    char root[64];               /* the runtime and state directories, and a launch directory */
    allowlist_t *allowlist;
    session_request_t req;
    session_inputs_t in;
    session_events_t ev;
    session_ending_t end;
    session_life_t life;
    char said[8192];             /* every line said, "LEVEL text\n" */
} fixture_t;

static char *cmd[] = { "true", NULL };

static void said(say_level_t level, const char *text, void *ctx)
{
    fixture_t *f = ctx;
    static const char *const names[] = { "error", "warning", "note", "plain" };
    size_t at = strlen(f->said);
    snprintf(f->said + at, sizeof(f->said) - at, "%s %s\n", names[level], text);
}

static void dir_in(const fixture_t *f, const char *name, char *ret, size_t n)
{
    snprintf(ret, n, "%s/%s", f->root, name);
    mkdir(ret, 0700);
}

static int fixture_up(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    as_error_t *err = NULL;
    const char *hosts = "api.allowed.test\n";
    char path[128];
    if (f == NULL || stub_libpod_start(&f->stub) < 0 ||
        allowlist_parse("allowed-hosts", hosts, strlen(hosts), &f->allowlist, &err) < 0)
        return -1;
    strcpy(f->root, "/tmp/test_session_finish.XXXXXX");
    if (mkdtemp(f->root) == NULL)
        return -1;
    dir_in(f, "run", path, sizeof(path));
    setenv("XDG_RUNTIME_DIR", path, 1);
    dir_in(f, "state", path, sizeof(path));
    setenv("XDG_STATE_HOME", path, 1);
    dir_in(f, "proj", path, sizeof(path));
    f->ev = (session_events_t){ .say = { .line = said, .ctx = f } };
    *state = f;
    return 0;
}

static int fixture_down(void **state)
{
    fixture_t *f = *state;
    as_error_t *err = NULL;
    backend_stop(&f->life.backend, NULL);
    allowlist_free(f->allowlist);
    review_info_clear(&f->life.review);
    session_ending_clear(&f->end);
    stub_libpod_stop(f->stub);
    remove_tree(f->root, &err);
    as_error_free(&err);
    free(f);
    return 0;
}

/* A session set up against the stub, its agent exited, as the lifecycle
 * hands it to session_finish; the backend has no service of its own (the
 * removals after the prompt need one: they are done in line then). */
static void set_up(fixture_t *f, size_t n_publish)
{
    as_error_t *err = NULL;
    session_life_t *l = &f->life;
    static char id[] = "0123456789ab", workdir[128];
    snprintf(workdir, sizeof(workdir), "%s/proj", f->root);
    if (backend_open(id, NULL, &l->backend, &err) < 0 ||
        podman_api_new(stub_libpod_socket(f->stub), &l->backend.api, &err) < 0)
        fail_msg("%s", err->msg);
    f->req.n_publish = n_publish;
    f->req.publish[0] = (publish_t){ .host_port = 18080, .port = 8080 };
    f->in = (session_inputs_t){
        .id = id, .cli_pid = getpid(), .workdir = workdir, .image = "localhost/agent-sandbox:dev",
        .command = cmd, .session_dir = l->backend.dir->path, .router_image = "localhost/agent-sandbox-router:dev",
        .egress_network = "agent-sandbox-egress", .resolver = "10.0.0.53", .allowlist = f->allowlist,
        .publish = f->req.publish, .n_publish = n_publish,
    };
    *l = (session_life_t){ .req = &f->req, .in = &f->in, .ev = &f->ev, .backend = l->backend, .end = &f->end,
                           .exited = true };
    if (session_plan_build(&f->in, &l->plan, &err) < 0 || session_new(l->backend.api, l->plan, NULL, &l->s, &err) < 0 ||
        session_setup(l->s, &err) < 0)
        fail_msg("%s", err->msg);
}

static void assert_said(const fixture_t *f, const char *text)
{
    if (strstr(f->said, text) == NULL)
        fail_msg("not said: \"%s\"; said:\n%s", text, f->said);
}

/* Nothing to report, every resource removed, the session and plan freed;
 * without a service of its own the removals are done in line. */
static void an_ending_removes_everything_and_says_nothing_more(void **state)
{
    fixture_t *f = *state;
    set_up(f, 0);
    session_finish(&f->life);
    assert_null(f->life.s);
    assert_null(f->life.plan);
    assert_false(f->end.teardown_failed);
    assert_false(f->end.teardown_later);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/pods/agent-sandbox-0123456789ab?"), 1);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/networks/agent-sandbox-0123456789ab-net?"), 1);
    assert_string_equal(f->said, "");
}

/* A removal that fails is said with what is left, and the ending says it
 * failed (the CLI's exit code, cmd/run/session_lines.c). */
static void a_failed_removal_is_told_and_typed(void **state)
{
    fixture_t *f = *state;
    set_up(f, 1);
    stub_libpod_rule(f->stub, "DELETE", "/pods/", NULL, 500, NULL, 0);
    session_finish(&f->life);
    assert_true(f->end.teardown_failed);
    assert_said(f, "error tearing down the session: ");
    assert_said(f, "plain left behind (the next start or `agent-sandbox cleanup` removes them):\n");
    assert_said(f, "\npod agent-sandbox-0123456789ab\n");
}

/* The router's logs are kept in the state directory and summed up: what
 * was blocked, and how to allow it. */
static void the_egress_is_told_at_the_end(void **state)
{
    fixture_t *f = *state;
    set_up(f, 0);
    char dir[256];
    as_error_t *err = NULL;
    snprintf(dir, sizeof(dir), "%s/router-log", f->life.backend.dir->path);
    if (file_write_atomic(dir, "dns.log", "agent-sandbox-router: from here on: agent\n"
                          "Dec  1 00:10:15 dnsmasq[7]: query[A] pypi.org from 10.89.0.1\n"
                          "Dec  1 00:10:15 dnsmasq[7]: config pypi.org is NXDOMAIN\n", 0600, &err) < 0)
        fail_msg("%s", err->msg);
    session_finish(&f->life);
    assert_said(f, "plain egress: 1 blocked: pypi.org (1x); allow with: agent-sandbox allow pypi.org --save\n");
    assert_said(f, "plain egress: every query and connection: agent-sandbox log 0123456789ab\n");
    char kept[256];
    snprintf(kept, sizeof(kept), "%s/state/agent-sandbox/logs/0123456789ab/dns.log", f->root);
    assert_int_equal(access(kept, R_OK), 0);
}

/* In review mode the review is summed up (an empty one removed) and the
 * removals come first, in line: the summary reads an upper directory no
 * container holds. */
static void a_review_is_summed_up_after_the_removals(void **state)
{
    fixture_t *f = *state;
    set_up(f, 0);
    f->life.reviewing = true;
    assert_int_equal(review_session_begin(f->in.id, f->in.workdir, f->in.image, &f->ev.say, &f->life.review),
                     SESSION_OK);
    session_finish(&f->life);
    assert_false(f->end.teardown_later);
    assert_int_equal(stub_libpod_count(f->stub, "DELETE", "/pods/agent-sandbox-0123456789ab?"), 1);
    assert_said(f, "plain review 0123456789ab: no changes (the review is removed)\n");
}

/* What the removals after an earlier prompt could not do is told once,
 * with their log, and no more. */
static void earlier_failures_are_told_once(void **state)
{
    fixture_t *f = *state;
    char dir[256];
    as_error_t *err = NULL;
    snprintf(dir, sizeof(dir), "%s/state/agent-sandbox/logs/fedcba987654", f->root);
    if (mkdir(dir, 0700) < 0 && errno == ENOENT) {
        char parent[256];
        snprintf(parent, sizeof(parent), "%s/state/agent-sandbox", f->root);
        mkdir(parent, 0700);
        strcat(parent, "/logs");
        mkdir(parent, 0700);
        assert_int_equal(mkdir(dir, 0700), 0);
    }
    if (file_write_atomic(dir, TEARDOWN_LOG, "agent-sandbox: error: the pod would not go\n", 0600, &err) < 0 ||
        file_write_atomic(dir, TEARDOWN_FAILED, "", 0600, &err) < 0)
        fail_msg("%s", err->msg);
    session_finish_failures_tell(&f->ev.say);
    assert_said(f, "warning the removals after session fedcba987654 ended could not remove everything (");
    assert_said(f, "agent-sandbox: error: the pod would not go\nwhat is left is removed now\n");
    f->said[0] = '\0';
    session_finish_failures_tell(&f->ev.say);
    assert_string_equal(f->said, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(an_ending_removes_everything_and_says_nothing_more, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(a_failed_removal_is_told_and_typed, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(the_egress_is_told_at_the_end, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(a_review_is_summed_up_after_the_removals, fixture_up, fixture_down),
        cmocka_unit_test_setup_teardown(earlier_failures_are_told_once, fixture_up, fixture_down),
    };
    return cmocka_run_group_tests_name("session_finish", tests, NULL, NULL);
}
