/* The agent's spec with its home volume, and the home volume's owner check. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "plan_of.h"
#include "base/strv.h"
#include "podman/names.h"
#include "session/agent_spec.h"
#include "session/home_volume.h"
#include "session/session_plan.h"

static char *cmd[] = { "claude", "--continue", NULL };
static char *env[] = { "TERM=xterm", "LANG=C.UTF-8", NULL };

static session_inputs_t inputs(void)
{
    return (session_inputs_t){
        .id = "0123456789ab", .cli_pid = 4242, .workdir = "/home/u/proj",
        .image = "localhost/agent-sandbox:dev", .command = cmd, .env = env,
        .home_volume = "agent-sandbox-home",
    };
}

static void home_volume_at_agent_home(void **state)
{
    (void)state;
    session_plan_t *p = plan_of(inputs());
    agent_spec_t a;
    as_error_t *err = NULL;
    assert_int_equal(agent_spec_build(p, &a, &err), 0);

    assert_int_equal(a.n_volumes, 1);
    assert_int_equal(a.spec.n_volumes, 1);
    assert_ptr_equal(a.spec.volumes, a.volumes);
    assert_string_equal(a.volumes[0].name, "agent-sandbox-home");
    assert_string_equal(a.volumes[0].destination, AGENT_HOME);
    assert_string_equal(AGENT_HOME, "/home/agent");
    assert_true(strv_contains(a.volumes[0].options, "nocopy"));   /* nothing of the image copied in */

    /* the plan's env, in order, then HOME */
    assert_string_equal(a.spec.env[0], "TERM=xterm");
    assert_string_equal(a.spec.env[1], "LANG=C.UTF-8");
    assert_string_equal(a.spec.env[2], "HOME=/home/agent");
    assert_null(a.spec.env[3]);

    /* the launch directory stays the one host path; nothing else at HOME */
    assert_string_equal(a.mounts[0].source, "/home/u/proj");
    for (size_t i = 0; i < a.n_mounts; i++) {
        assert_string_not_equal(a.mounts[i].destination, AGENT_HOME);
        if (i > 0 && a.mounts[i].source != NULL)
            fail_msg("a second host path: %s", a.mounts[i].source);
    }
    session_plan_free(p);
}

/* Review mode (docs/review.md): the launch directory as an overlay whose
 * upper and work directories are the review's; nothing else changes. */
static void review_mode_overlays_the_launch_directory(void **state)
{
    (void)state;
    session_inputs_t in = inputs();
    in.review_upper = "/home/u/.local/state/agent-sandbox/reviews/0123456789ab/upper";
    in.review_work = "/home/u/.local/state/agent-sandbox/reviews/0123456789ab/work";
    session_plan_t *p = plan_of(in);
    agent_spec_t a;
    as_error_t *err = NULL;
    assert_int_equal(agent_spec_build(p, &a, &err), 0);
    assert_string_equal(a.mounts[0].type, "overlay");
    assert_string_equal(a.mounts[0].source, "/home/u/proj");
    assert_string_equal(a.mounts[0].destination, "/home/u/proj");
    assert_string_equal(a.mounts[0].options[0], "upperdir=/home/u/.local/state/agent-sandbox/reviews/0123456789ab/upper");
    assert_string_equal(a.mounts[0].options[1], "workdir=/home/u/.local/state/agent-sandbox/reviews/0123456789ab/work");
    assert_null(a.mounts[0].options[2]);
    for (size_t i = 1; i < a.n_mounts; i++)
        assert_string_not_equal(a.mounts[i].type, "overlay");
    session_plan_free(p);

    /* a layer path the kernel's option string would split is refused */
    in.workdir = "/home/u/a,b";
    session_plan_t *bad = NULL;
    assert_int_equal(session_plan_build(&in, &bad, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "review mode cannot put an overlay"));
    as_error_free(&err);
}

/* Nested podman needs nothing of the outer container but the volume: no
 * capability, device, unmasked path or sysctl (docs/nested-podman.md). */
static void nested_podman_adds_no_privilege(void **state)
{
    (void)state;
    session_plan_t *p = plan_of(inputs());
    agent_spec_t a;
    as_error_t *err = NULL;
    assert_int_equal(agent_spec_build(p, &a, &err), 0);
    assert_true(a.spec.no_new_privileges);
    assert_string_equal(a.spec.cap_drop[0], "all");
    assert_null(a.spec.cap_drop[1]);
    assert_null(a.spec.cap_add);
    assert_int_equal(a.spec.n_sysctls, 0);
    assert_null(a.spec.user);               /* keep-id: the caller's uid */
    assert_false(a.spec.read_only);
    session_plan_free(p);
}

static void explicit_home_is_kept(void **state)
{
    (void)state;
    char *home_env[] = { "HOME=/elsewhere", "TERM=xterm", NULL };
    session_inputs_t in = inputs();
    in.env = home_env;
    session_plan_t *p = plan_of(in);
    agent_spec_t a;
    as_error_t *err = NULL;
    assert_int_equal(agent_spec_build(p, &a, &err), 0);
    assert_string_equal(a.spec.env[0], "HOME=/elsewhere");
    assert_string_equal(a.spec.env[1], "TERM=xterm");
    assert_null(a.spec.env[2]);
    assert_int_equal(a.n_volumes, 1);
    session_plan_free(p);
}

static void no_home_volume_no_home(void **state)
{
    (void)state;
    session_inputs_t in = inputs();
    in.home_volume = NULL;
    session_plan_t *p = plan_of(in);
    agent_spec_t a;
    as_error_t *err = NULL;
    assert_int_equal(agent_spec_build(p, &a, &err), 0);
    assert_int_equal(a.n_volumes, 0);
    assert_int_equal(a.spec.n_volumes, 0);
    assert_ptr_equal(a.spec.env, p->env);
    assert_false(strv_contains(a.spec.env, "HOME=/home/agent"));
    session_plan_free(p);
}

/* verify's probe: an empty tmpfs of its own, owned by the agent; no volume. */
static void private_home_is_an_empty_tmpfs(void **state)
{
    (void)state;
    session_inputs_t in = inputs();
    in.home_volume = NULL;
    in.private_home = true;
    session_plan_t *p = plan_of(in);
    agent_spec_t a;
    as_error_t *err = NULL;
    assert_int_equal(agent_spec_build(p, &a, &err), 0);
    assert_int_equal(a.spec.n_volumes, 0);
    const podman_mount_t *home = NULL;
    for (size_t i = 0; i < a.n_mounts; i++)
        if (strcmp(a.mounts[i].destination, AGENT_HOME) == 0)
            home = &a.mounts[i];
    assert_non_null(home);
    assert_string_equal(home->type, "tmpfs");
    assert_null(home->source);
    assert_true(strv_contains(home->options, "U"));
    assert_true(strv_contains(home->options, "mode=0700"));
    assert_true(strv_contains(a.spec.env, "HOME=/home/agent"));
    session_plan_free(p);
    /* and never with a volume */
    in.home_volume = "agent-sandbox-home";
    assert_int_equal(session_plan_build(&in, &p, &err), -EINVAL);
    as_error_free(&err);
}

static void project_home_names(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    char *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(home_volume_project_name("agent-sandbox", "/home/u/src/My Proj", &a, &err), 0);
    assert_int_equal(home_volume_project_name("agent-sandbox", "/home/u/other/My Proj", &b, &err), 0);
    assert_int_equal(home_volume_project_name("p", "/", &c, &err), 0);
    assert_int_equal(strncmp(a, "agent-sandbox-home-my_proj-", 27), 0);
    assert_int_equal(strlen(a), 27 + 16);
    assert_string_not_equal(a, b);                  /* same name, other tree */
    assert_true(network_name_valid(a) && network_name_valid(c));
    assert_int_equal(strncmp(c, "p-home-", 7), 0);
    assert_int_equal(strlen(c), 7 + 16);
    assert_int_equal(home_volume_project_name("p", "relative", &c, &err), -EINVAL);
    as_error_free(&err);
    free(a);
    free(b);
    free(c);
}

static void too_many_env_entries(void **state)
{
    (void)state;
    static char entries[AGENT_MAX_ENV][16];
    char *big[AGENT_MAX_ENV + 1];
    for (int i = 0; i < AGENT_MAX_ENV; i++) {
        snprintf(entries[i], sizeof(entries[i]), "V%d=x", i);
        big[i] = entries[i];
    }
    big[AGENT_MAX_ENV] = NULL;

    /* AGENT_MAX_ENV entries and HOME: one too many, refused with the plan */
    session_inputs_t in = inputs();
    in.env = big;
    session_plan_t *p = NULL;
    agent_spec_t a;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), -E2BIG);
    assert_non_null(strstr(err->msg, "environment variables"));
    as_error_free(&err);

    /* one fewer fits, HOME last */
    big[AGENT_MAX_ENV - 1] = NULL;
    p = plan_of(in);
    assert_int_equal(agent_spec_build(p, &a, &err), 0);
    assert_string_equal(a.spec.env[AGENT_MAX_ENV - 1], "HOME=/home/agent");
    assert_null(a.spec.env[AGENT_MAX_ENV]);
    session_plan_free(p);
}

static void volume_name_checked_and_described(void **state)
{
    (void)state;
    static char *const bad[] = { "", "-x", "../x", "a/b", "a b", "a\nb", ".x" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        session_inputs_t in = inputs();
        in.home_volume = bad[i];
        session_plan_t *p = NULL;
        as_error_t *err = NULL;
        assert_true(session_plan_build(&in, &p, &err) < 0);
        assert_null(p);
        assert_non_null(strstr(err->msg, "home volume name"));
        as_error_free(&err);
    }
    session_plan_t *p = plan_of(inputs());
    char *text = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_describe(p, &text, &err), 0);
    assert_non_null(strstr(text, "home:    volume agent-sandbox-home"));
    free(text);
    session_plan_free(p);
}

/* whoami, ~ and HOME agree: the host user's name and ids, with the HOME the
 * agent gets; podman's own entry stays when a field cannot be written as is. */
static void passwd_entry_names_the_user(void **state)
{
    (void)state;
    session_inputs_t in = inputs();
    in.user_name = "ada";
    in.uid = 1004;
    in.gid = 1005;
    session_plan_t *p = plan_of(in);
    assert_string_equal(p->agent_spec->spec.passwd_entry, "ada:*:1004:1005:ada:/home/agent:/bin/sh");
    char *text = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_describe(p, &text, &err), 0);
    assert_non_null(strstr(text, "passwd:  ada:*:1004:1005:ada:/home/agent:/bin/sh"));
    free(text);
    session_plan_free(p);

    char *own_home[] = { "HOME=/home/u/proj/.h", NULL };
    in.env = own_home;
    p = plan_of(in);
    assert_string_equal(p->agent_spec->spec.passwd_entry, "ada:*:1004:1005:ada:/home/u/proj/.h:/bin/sh");
    session_plan_free(p);

    in = inputs();
    in.home_volume = NULL;                  /* no HOME of ours: podman's, the working directory */
    in.user_name = "ada";
    p = plan_of(in);
    assert_string_equal(p->agent_spec->spec.passwd_entry, "ada:*:0:0:ada:/home/u/proj:/bin/sh");
    session_plan_free(p);

    static char *const names[] = { "a:b", "-x", ".x", "$UID", "a b", "a\nb", "",
                                         "abcdefghijklmnopqrstuvwxyz0123456" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        in = inputs();
        in.user_name = names[i];
        p = plan_of(in);
        if (p->agent_spec->spec.passwd_entry != NULL)
            fail_msg("an entry for \"%s\": %s", names[i], p->agent_spec->spec.passwd_entry);
        session_plan_free(p);
    }
    char *odd_home[] = { "HOME=/h/$HOME", NULL };
    in = inputs();
    in.user_name = "ada";
    in.env = odd_home;
    p = plan_of(in);
    assert_null(p->agent_spec->spec.passwd_entry);
    session_plan_free(p);
}

/* The git identity is git's system config, read-only. */
static void git_identity_is_the_system_config(void **state)
{
    (void)state;
    session_inputs_t in = inputs();
    in.session_dir = "/run/user/1/as/x";
    in.git_config = "[user]\n\tname = \"Ada\"\n";
    session_plan_t *p = plan_of(in);
    const podman_mount_t *m = NULL;
    for (size_t i = 0; i < p->agent_spec->n_mounts; i++)
        if (strcmp(p->agent_spec->mounts[i].destination, "/etc/gitconfig") == 0)
            m = &p->agent_spec->mounts[i];
    assert_non_null(m);
    assert_string_equal(m->source, "/run/user/1/as/x/gitconfig");
    assert_string_equal(m->type, "bind");
    assert_true(strv_contains(m->options, "ro"));
    assert_string_equal(p->in.git_config, in.git_config);
    session_plan_free(p);

    in.git_config = NULL;                   /* none, or turned off: no file at all */
    p = plan_of(in);
    for (size_t i = 0; i < p->agent_spec->n_mounts; i++)
        assert_string_not_equal(p->agent_spec->mounts[i].destination, "/etc/gitconfig");
    session_plan_free(p);
}

static void owner_check(void **state)
{
    (void)state;
    char dir[] = "/tmp/as-test-home-XXXXXX";
    assert_non_null(mkdtemp(dir));
    as_error_t *err = NULL;

    assert_int_equal(home_volume_check_owner("v", dir, getuid(), &err), 0);
    assert_null(err);

    /* someone else's: refused, naming the volume and the fix */
    assert_int_equal(home_volume_check_owner("v", dir, getuid() + 1, &err), -EPERM);
    char *want = NULL;
    assert_true(asprintf(&want, "podman unshare chown 0:0 %s", dir) > 0);
    if (strstr(err->msg, want) == NULL || strstr(err->msg, "home volume v belongs to uid") == NULL)
        fail_msg("message \"%s\"", err->msg);
    free(want);
    as_error_free(&err);

    /* not a directory; missing */
    char file[sizeof(dir) + 8];
    snprintf(file, sizeof(file), "%s/f", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(home_volume_check_owner("v", file, getuid(), &err), -ENOTDIR);
    as_error_free(&err);
    assert_int_equal(unlink(file), 0);
    assert_int_equal(home_volume_check_owner("v", file, getuid(), &err), -ENOENT);
    as_error_free(&err);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(home_volume_at_agent_home),
        cmocka_unit_test(nested_podman_adds_no_privilege),
        cmocka_unit_test(explicit_home_is_kept),
        cmocka_unit_test(no_home_volume_no_home),
        cmocka_unit_test(private_home_is_an_empty_tmpfs),
        cmocka_unit_test(project_home_names),
        cmocka_unit_test(too_many_env_entries),
        cmocka_unit_test(volume_name_checked_and_described),
        cmocka_unit_test(passwd_entry_names_the_user),
        cmocka_unit_test(git_identity_is_the_system_config),
        cmocka_unit_test(owner_check),
        cmocka_unit_test(review_mode_overlays_the_launch_directory),
    };
    return cmocka_run_group_tests_name("agent_spec", tests, NULL, NULL);
}
