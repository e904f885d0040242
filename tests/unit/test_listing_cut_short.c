/* A listing cut short fails closed (issue 46: the code review's fail-open
 * listings). readdir(3) is wrapped (-Wl,--wrap=readdir, Makefile): for the
 * directory the test names, it returns the first entry, then NULL with
 * errno EIO, as a file system failing in the middle of a listing does. The
 * end-of-session check's hooks listing then disables the hooks directory
 * (git may run a hook after the entry it could not read), and a derived
 * image's build context refuses to pack a folder it could not list to its
 * end. Real directories made beside the test binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "real_tree.h"
#include "images/build_context.h"
#include "workspace/workspace_int.h"

struct dirent *__real_readdir(DIR *d);
struct dirent *__wrap_readdir(DIR *d);

/* The directory whose listing is cut after its first entry ("" : none). */
static char cut_dir[PATH_MAX * 2];
static unsigned cut_count;

struct dirent *__wrap_readdir(DIR *d)
{
    char fdpath[64], where[PATH_MAX * 2];
    snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", dirfd(d));
    ssize_t n = cut_dir[0] != '\0' ? readlink(fdpath, where, sizeof(where) - 1) : -1;
    if (n < 0 || (where[n] = '\0', strcmp(where, cut_dir) != 0))
        return __real_readdir(d);
    struct dirent *e;
    /* "." and ".." and one name pass, then the listing fails */
    if (cut_count++ < 3 && (e = __real_readdir(d)) != NULL)
        return e;
    errno = EIO;
    return NULL;
}

static void cut(const char *path)
{
    snprintf(cut_dir, sizeof(cut_dir), "%s", path);
    cut_count = 0;
}

static void make(const struct real *r, const char *spec, const char *content)
{
    real_make(r, spec, content, false);
}

/* A repository's hooks directory listed only in part: git could run a hook
 * past the cut, so the directory is disabled whole. */
static void hooks_listing_cut_short(void **state)
{
    struct real *r = *state;
    make(r, "sub/.git/HEAD", "ref: refs/heads/main\n");
    make(r, "sub/.git/objects/", NULL);
    make(r, "sub/.git/refs/", NULL);
    make(r, "sub/.git/config", "[core]\n\tbare = false\n");
    make(r, "sub/.git/hooks/a.sample", "#!/bin/sh\n");
    workspace_rules_t *rules = NULL;
    as_error_t *err = NULL;
    workspace_config_t cfg = { .launch_dir = r->launch, .home = r->home };
    workspace_t *ws = NULL;
    if (workspace_rules_build(&cfg, &rules, &err) < 0 || workspace_plan(r->launch, r->home, rules, &ws, &err) < 0 ||
        workspace_begin(ws, &err) < 0)
        fail_msg("begin: %s", err->msg);
    make(r, "sub/.git/hooks/b.sample", "#!/bin/sh\n");
    make(r, "sub/.git/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/x\n");
    workspace_snapshot_t *after = NULL;
    assert_int_equal(ws_snapshot_take(ws, ws->before, &after, &err), 0);
    char hooks[PATH_MAX * 2];
    snprintf(hooks, sizeof(hooks), "%s/sub/.git/hooks", r->launch);
    cut(hooks);
    ws_actions_t acts = { 0 };
    assert_int_equal(ws_git_check(ws, after, &acts, &err), 0);
    cut("");
    bool disabled = false;
    for (size_t i = 0; i < acts.n; i++)
        disabled |= strcmp(acts.v[i].rel, "sub/.git/hooks") == 0 && acts.v[i].kind == ACT_MOVED &&
                    strstr(acts.v[i].why, "could not list to its end") != NULL;
    if (!disabled)
        fail_msg("the hooks directory listed in part was not disabled (%zu actions)", acts.n);
    assert_true(real_exists(r, "sub/.git/hooks" DISABLED_SUFFIX) && !real_exists(r, "sub/.git/hooks"));
    ws_actions_clear(&acts);
    ws_snapshot_free(after);
    workspace_free(ws);
}

/* A derived image's folder listed only in part: no context at all. */
static void build_context_cut_short(void **state)
{
    struct real *r = *state;
    make(r, "ctx/Containerfile", "FROM x\n");
    make(r, "ctx/a", "1");
    make(r, "ctx/b", "2");
    char dir[PATH_MAX * 2];
    snprintf(dir, sizeof(dir), "%s/ctx", r->launch);
    build_context_t c = { 0 };
    as_error_t *err = NULL;
    assert_int_equal(build_context_pack(dir, "salt", &c, &err), 0);   /* whole: packed */
    build_context_clear(&c);
    cut(dir);
    int rc = build_context_pack(dir, "salt", &c, &err);
    cut("");
    assert_true(rc < 0);
    assert_non_null(strstr(err->msg, "cannot list it to its end"));
    assert_null(c.tar);
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hooks_listing_cut_short, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(build_context_cut_short, real_setup, real_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
