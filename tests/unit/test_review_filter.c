/* The filter's verdicts, one rule at a time, on changes built by hand (the
 * links' on a real tree: they are judged where they would land). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "real_tree.h"
#include "review/review_filter.h"
#include "workspace/link_resolve.h"

static char *rules[] = { (char *)".envrc", (char *)".git/hooks", (char *)".vscode", (char *)".idea/workspace.xml" };

static review_verdicts_t *judge(const char *root, review_change_t *v, size_t n, char **include, size_t n_include)
{
    review_filter_t f = { .root = root, .protected_paths = rules, .n_protected = ARRAY_SIZE(rules),
                          .include = include, .n_include = n_include };
    review_changes_t c = { .v = v, .n = n };
    review_verdicts_t *out = NULL;
    as_error_t *err = NULL;
    if (review_filter_judge(&f, &c, &out, &err) < 0)
        fail_msg("review_filter_judge: %s", err->msg);
    return out;
}

static review_change_t added(const char *path, review_type_t t, mode_t mode)
{
    return (review_change_t){ .path = (char *)path, .kind = REVIEW_ADDED, .type = t, .mode = mode };
}

static void special_files_refused(void **state)
{
    (void)state;
    review_change_t c[] = { added("p", REVIEW_FIFO, 0644), added("s", REVIEW_SOCKET, 0644),
                            added("d", REVIEW_CHAR, 0644), added("ok", REVIEW_FILE, 0644) };
    review_verdicts_t *v = judge("/nowhere", c, ARRAY_SIZE(c), NULL, 0);
    assert_true(v->v[0].refused);
    assert_string_equal(v->v[0].reason, "a FIFO: only regular files, directories and links are applied");
    assert_true(v->v[1].refused);
    assert_string_equal(v->v[2].reason, "a character device: only regular files, directories and links are applied");
    assert_false(v->v[3].refused);
    assert_null(v->v[3].notes);
    assert_int_equal(v->v[3].mode, 0644);
    review_verdicts_free(v);
}

static void modes_dropped_and_noted(void **state)
{
    (void)state;
    review_change_t c[] = { added("suid", REVIEW_FILE, 04755), added("ww", REVIEW_FILE, 0666),
                            { .path = (char *)"was-x", .kind = REVIEW_MODIFIED, .type = REVIEW_FILE,
                              .host_type = REVIEW_FILE, .mode = 0755, .host_mode = 0700 } };
    review_verdicts_t *v = judge("/nowhere", c, ARRAY_SIZE(c), NULL, 0);
    assert_false(v->v[0].refused);
    assert_int_equal(v->v[0].mode, 0755);
    assert_string_equal(v->v[0].notes, "setuid bit dropped; new executable bit");
    assert_int_equal(v->v[1].mode, 0664);
    assert_string_equal(v->v[1].notes, "world-writable bit dropped");
    assert_null(v->v[2].notes);
    review_verdicts_free(v);
}

static void protected_paths_need_include(void **state)
{
    (void)state;
    review_change_t c[] = { added(".envrc", REVIEW_FILE, 0644), added("sub/.envrc", REVIEW_FILE, 0644),
                            added(".vscode/tasks.json", REVIEW_FILE, 0644), added("x.envrc", REVIEW_FILE, 0644) };
    review_verdicts_t *v = judge("/nowhere", c, ARRAY_SIZE(c), NULL, 0);
    assert_string_equal(v->v[0].reason, "a protected path (.envrc): name it with --include to apply it");
    assert_true(v->v[1].refused);
    assert_string_equal(v->v[2].reason, "a protected path (.vscode): name it with --include to apply it");
    assert_false(v->v[3].refused);
    review_verdicts_free(v);
    char *inc[] = { (char *)".envrc", (char *)".vscode" };
    v = judge("/nowhere", c, ARRAY_SIZE(c), inc, ARRAY_SIZE(inc));
    assert_false(v->v[0].refused);
    assert_true(v->v[0].included);
    assert_true(v->v[1].refused);     /* sub/.envrc is not named */
    assert_true(v->v[2].included);
    assert_false(v->v[3].included);
    review_verdicts_free(v);
}

static void git_never_as_files(void **state)
{
    (void)state;
    assert_int_equal(review_git_depth(".git"), 1);
    assert_int_equal(review_git_depth(".git/hooks/pre-commit"), 1);
    assert_int_equal(review_git_depth("vendor/x/.git/config"), 2);
    assert_int_equal(review_git_depth(".github/workflows/ci.yml"), 0);
    assert_int_equal(review_git_depth("a.git/x"), 0);
    review_change_t c[] = { added(".git/hooks/pre-commit", REVIEW_FILE, 0755) };
    char *inc[] = { (char *)".git/hooks" };
    review_verdicts_t *v = judge("/nowhere", c, 1, inc, 1);   /* not even named */
    assert_true(v->v[0].refused);
    assert_true(v->v[0].git);
    assert_string_equal(v->v[0].reason, "inside .git: never applied as a file (the agent's commits come as a branch: docs/review-apply.md)");
    review_verdicts_free(v);
}

static void links_inside_only(void **state)
{
    struct real *r = *state;
    real_make(r, "dir/file", "x", false);
    char spec[PATH_MAX * 2], want[PATH_MAX * 3];
    snprintf(spec, sizeof(spec), "host-out -> %s", r->home);   /* the user's own: writable */
    real_make(r, spec, NULL, false);
    review_change_t c[] = {
        { .path = (char *)"in", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"dir/file" },
        { .path = (char *)"dir/up", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"../dir" },
        { .path = (char *)"abs", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = r->home },
        { .path = (char *)"dots", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"dir/../../x" },
        { .path = (char *)"via", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"host-out/x" },
        { .path = (char *)"missing", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"new/x" },
    };
    review_verdicts_t *v = judge(r->launch, c, ARRAY_SIZE(c), NULL, 0);
    assert_false(v->v[0].refused);
    assert_false(v->v[1].refused);
    assert_true(v->v[2].refused);
    assert_non_null(strstr(v->v[2].reason, "a link that leads out of the tree (to "));
    assert_true(v->v[3].refused);
    assert_true(v->v[4].refused);
    snprintf(want, sizeof(want), "a link that leads out of the tree (to %s/x)", r->home);
    assert_string_equal(v->v[4].reason, want);
    assert_false(v->v[5].refused);
    review_verdicts_free(v);
}

static void nesting(void **state)
{
    (void)state;
    review_change_t c[] = {
        added("new", REVIEW_DIR, 0755), added("new/.envrc", REVIEW_FILE, 0644), added("new/ok", REVIEW_FILE, 0644),
        { .path = (char *)"old", .kind = REVIEW_DELETED, .host_type = REVIEW_DIR },
        { .path = (char *)"old/.envrc", .kind = REVIEW_DELETED, .host_type = REVIEW_FILE },
        { .path = (char *)"old/x", .kind = REVIEW_DELETED, .host_type = REVIEW_FILE },
        added("bad", REVIEW_DIR, 0755), added("bad/x", REVIEW_FILE, 0644),
    };
    c[6].unexamined = "test";
    review_verdicts_t *v = judge("/nowhere", c, ARRAY_SIZE(c), NULL, 0);
    assert_false(v->v[0].refused);    /* a refused entry inside a new directory: the directory still lands */
    assert_true(v->v[1].refused);
    assert_false(v->v[2].refused);
    assert_string_equal(v->v[3].reason, "holds refused changes, so it cannot be removed or replaced");
    assert_true(v->v[4].refused);
    assert_false(v->v[5].refused);
    assert_string_equal(v->v[6].reason, "cannot be examined: test");
    assert_string_equal(v->v[7].reason, "inside a refused directory");
    review_verdicts_free(v);
}

#define REPO_WHY "inside a directory that host git would take for a repository (a HEAD, and objects and refs or a commondir): never applied as a file"

static void bare_shaped_never_applied(void **state)
{
    (void)state;
    review_change_t c[] = {
        added("bare", REVIEW_DIR, 0755), added("bare/HEAD", REVIEW_FILE, 0644), added("bare/config", REVIEW_FILE, 0644),
        added("bare/objects", REVIEW_DIR, 0755), added("bare/refs", REVIEW_SYMLINK, 0777),
        added("half", REVIEW_DIR, 0755), added("half/HEAD", REVIEW_FILE, 0644), added("half/refs", REVIEW_DIR, 0755),
        added("wt", REVIEW_DIR, 0755), added("wt/HEAD", REVIEW_FILE, 0644), added("wt/commondir", REVIEW_FILE, 0644),
    };
    c[4].target = (char *)"../half/refs";
    review_verdicts_t *v = judge("/nowhere", c, ARRAY_SIZE(c), NULL, 0);
    assert_false(v->v[0].refused);    /* the directory itself lands, empty */
    for (size_t i = 1; i <= 4; i++)
        assert_string_equal(v->v[i].reason, REPO_WHY);
    for (size_t i = 5; i <= 8; i++)
        assert_false(v->v[i].refused);   /* no objects: not a git directory */
    assert_string_equal(v->v[9].reason, REPO_WHY);
    assert_string_equal(v->v[10].reason, REPO_WHY);
    review_verdicts_free(v);
}

/* The host's entries count, unless the review deletes them. */
static void bare_shaped_with_the_host(void **state)
{
    struct real *r = *state;
    real_make(r, "r/objects/", NULL, false);
    real_make(r, "r/refs/", NULL, false);
    real_make(r, "s/objects/", NULL, false);
    real_make(r, "s/refs/", NULL, false);
    real_make(r, "s/HEAD", "ref: refs/heads/main\n", false);
    real_make(r, "gone/HEAD", "x", false);
    real_make(r, "gone/objects/", NULL, false);
    review_change_t c[] = {
        added("r/HEAD", REVIEW_FILE, 0644),
        { .path = (char *)"s/HEAD", .kind = REVIEW_DELETED, .host_type = REVIEW_FILE },
        added("s/config", REVIEW_FILE, 0644),
        { .path = (char *)"gone", .kind = REVIEW_MODIFIED, .type = REVIEW_DIR, .host_type = REVIEW_SYMLINK },
        added("gone/refs", REVIEW_DIR, 0755),
    };
    review_verdicts_t *v = judge(r->launch, c, ARRAY_SIZE(c), NULL, 0);
    assert_string_equal(v->v[0].reason, REPO_WHY);
    assert_false(v->v[1].refused);    /* without its HEAD, s is no git directory */
    assert_false(v->v[2].refused);
    assert_false(v->v[4].refused);    /* gone/ replaced something else: the host's HEAD is not below it */
    review_verdicts_free(v);
}

/* A host directory that cannot be searched: its entries count as there,
 * so a change in it is judged as in a repository and an environment. */
static void unexaminable_host_counts_as_present(void **state)
{
    struct real *r = *state;
    real_make(r, "closed/x", "1", false);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/closed", r->launch);
    chmod(p, 0);
    if (access(p, X_OK) == 0) {
        chmod(p, 0755);
        skip();   /* root searches it anyway */
    }
    review_change_t c[] = { added("closed/config", REVIEW_FILE, 0644),
                            added("closed/bin/activate", REVIEW_FILE, 0644) };
    review_verdicts_t *v = judge(r->launch, c, ARRAY_SIZE(c), NULL, 0);
    chmod(p, 0755);
    assert_string_equal(v->v[0].reason, REPO_WHY);
    assert_true(v->v[1].refused);
    review_verdicts_free(v);
}

/* Threats 56 and 58: another version-control tool's metadata and bytecode
 * never land as files, wherever they are. */
static void classes_never_applied(void **state)
{
    struct real *r = *state;
    review_change_t c[] = {
        added("sub/.hg/hgrc-not-shared", REVIEW_FILE, 0644), added(".jj/repo/config.toml", REVIEW_FILE, 0644),
        added("x/_darcs/prefs/defaults", REVIEW_FILE, 0644), added("x/.fslckout", REVIEW_FILE, 0644),
        added("__pycache__/app.cpython-311.pyc", REVIEW_FILE, 0644), added("lib/stray.pyc", REVIEW_FILE, 0644),
        added("hg/notes.txt", REVIEW_FILE, 0644), added("pyc/x", REVIEW_FILE, 0644),
    };
    review_verdicts_t *v = judge(r->launch, c, ARRAY_SIZE(c), NULL, 0);
    for (size_t i = 0; i < 4; i++)
        assert_non_null(strstr(v->v[i].reason, "the metadata of a version-control tool"));
    for (size_t i = 4; i < 6; i++)
        assert_non_null(strstr(v->v[i].reason, "bytecode: a cache python makes again"));
    assert_false(v->v[6].refused);
    assert_false(v->v[7].refused);
    review_verdicts_free(v);
}

/* Threat 57 in apply: names that stand in for the host's, asked of the
 * host (this test's PATH, its real python3) when apply runs. */
static void shadowing_names_need_include(void **state)
{
    struct real *r = *state;
    real_make(r, ".venv/pyvenv.cfg", "home = /usr/bin\n", false);
    review_change_t c[] = {
        added("argparse.py", REVIEW_FILE, 0644), added("myapp.py", REVIEW_FILE, 0644),
        added("json/__init__.py", REVIEW_FILE, 0644), added(".venv/bin/ls", REVIEW_FILE, 0755),
        added(".venv/bin/mytool", REVIEW_FILE, 0755), added("README.md", REVIEW_FILE, 0644),
    };
    review_filter_t f = { .root = r->launch, .host_path = getenv("PATH") };
    review_verdicts_t *v = NULL;
    as_error_t *err = NULL;
    if (review_filter_judge(&f, &(review_changes_t){ .v = c, .n = ARRAY_SIZE(c) }, &v, &err) < 0)
        fail_msg("judge: %s", err->msg);
    real_assert_contains(v->v[0].reason, "a Python module named argparse, like one of the host python's");
    assert_false(v->v[1].refused);
    real_assert_contains(v->v[2].reason, "a Python module named json");
    real_assert_contains(v->v[3].reason, "an entry of a virtual environment's bin named like the host command ls (");
    assert_false(v->v[4].refused);
    assert_false(v->v[5].refused);
    review_verdicts_free(v);
}

static void venv_startup_files_need_include(void **state)
{
    struct real *r = *state;
    real_make(r, ".venv/pyvenv.cfg", "home = /usr/bin\n", false);
    real_make(r, ".venv/bin/activate", "x", false);
    const char *sp = ".venv/lib/python3.11/site-packages";
    char pth[128], site[128], pkg[128], lib[128];
    snprintf(pth, sizeof(pth), "%s/evil.pth", sp);
    snprintf(site, sizeof(site), "%s/sitecustomize.py", sp);
    snprintf(pkg, sizeof(pkg), "%s/pkg/__init__.py", sp);
    snprintf(lib, sizeof(lib), "%s", ".venv/lib");
    review_change_t c[] = {
        added(pth, REVIEW_FILE, 0644), added(site, REVIEW_FILE, 0644), added(pkg, REVIEW_FILE, 0644),
        { .path = (char *)".venv/bin/activate", .kind = REVIEW_MODIFIED, .type = REVIEW_FILE,
          .host_type = REVIEW_FILE, .mode = 0644, .host_mode = 0644 },
        added(".venv/bin/pytest", REVIEW_FILE, 0755), added(".venv/bin/x.py", REVIEW_FILE, 0755),
        { .path = lib, .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"../elsewhere" },
        added("new/pyvenv.cfg", REVIEW_FILE, 0644),
        { .path = (char *)"new/bin/python", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"python3" },
        added("plain/sitecustomize.py", REVIEW_FILE, 0644),
        { .path = (char *)"new/bin/python3", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"/bin/sh" },
        { .path = (char *)"new/bin/python3.11", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK,
          .target = (char *)"/usr/bin/python3" },
        { .path = (char *)".venv/bin/git", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"/bin/sh" },
        added(".venv/pip.conf", REVIEW_FILE, 0644),
    };
    review_verdicts_t *v = judge(r->launch, c, ARRAY_SIZE(c), NULL, 0);
    assert_string_equal(v->v[0].reason, "a .pth file of a virtual environment, whose lines python reads when it "
                                        "starts: name it with --include to apply it");
    assert_non_null(strstr(v->v[1].reason, "a sitecustomize or usercustomize module of a virtual environment"));
    assert_false(v->v[2].refused);
    assert_non_null(strstr(v->v[3].reason, "an activate script of a virtual environment"));
    assert_false(v->v[4].refused);    /* a console script: run only when asked for */
    assert_true(v->v[5].refused);
    assert_non_null(strstr(v->v[6].reason, "a symlink on the way to a virtual environment's bin or site-packages"));
    assert_non_null(strstr(v->v[7].reason, "pyvenv.cfg"));   /* an environment the review makes */
    assert_false(v->v[8].refused);    /* python -> python3: venv's own shape, in bin/ */
    assert_false(v->v[9].refused);    /* no environment: nothing runs it at start */
    assert_non_null(strstr(v->v[10].reason, "an interpreter of a virtual environment"));
    if (!link_system_file("/usr/bin/python3"))
        fail_msg("/usr/bin/python3, root's and not writable, is what venv links to here (scripts/setup-host.sh)");
    assert_false(v->v[11].refused);   /* venv's link to a python of the system */
    assert_non_null(strstr(v->v[12].reason, "a link that leads out of the tree (to /"));   /* root's: still out */
    assert_non_null(strstr(v->v[13].reason, "a config file in a virtual environment"));
    review_verdicts_free(v);
    char *inc[] = { (char *)".venv/bin/activate" };
    v = judge(r->launch, c, ARRAY_SIZE(c), inc, ARRAY_SIZE(inc));
    assert_false(v->v[3].refused);
    assert_true(v->v[3].included);
    assert_true(v->v[0].refused);
    review_verdicts_free(v);
}

static void links_on_the_way_to_protected_paths(void **state)
{
    struct real *r = *state;
    real_make(r, "elsewhere/workspace.xml", "x", false);
    review_change_t c[] = {
        { .path = (char *)".idea", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"elsewhere" },
        { .path = (char *)"sub/.idea", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"../elsewhere" },
        { .path = (char *)"x.idea", .kind = REVIEW_ADDED, .type = REVIEW_SYMLINK, .target = (char *)"elsewhere" },
    };
    review_verdicts_t *v = judge(r->launch, c, ARRAY_SIZE(c), NULL, 0);
    assert_string_equal(v->v[0].reason, "a link where a directory above a protected path (.idea/workspace.xml) is: "
                                        "name it with --include to apply it");
    assert_true(v->v[1].refused);
    assert_false(v->v[2].refused);
    review_verdicts_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(special_files_refused),
        cmocka_unit_test(modes_dropped_and_noted),
        cmocka_unit_test(protected_paths_need_include),
        cmocka_unit_test(git_never_as_files),
        cmocka_unit_test_setup_teardown(links_inside_only, real_setup, real_teardown),
        cmocka_unit_test(nesting),
        cmocka_unit_test(bare_shaped_never_applied),
        cmocka_unit_test_setup_teardown(bare_shaped_with_the_host, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(unexaminable_host_counts_as_present, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(venv_startup_files_need_include, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(classes_never_applied, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(shadowing_names_need_include, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(links_on_the_way_to_protected_paths, real_setup, real_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
