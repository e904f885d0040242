/* The end-of-session check judged by classes (issue 46, threats 55-59), on
 * real directories made next to the test binary, through workspace_end as
 * a session runs it: links out of the tree whatever their target; other
 * version-control tools' metadata and a Mercurial share's store; modules at
 * the top named like the host python's (the host's real python3, asked at
 * check time; a failing one fails closed); bytecode the session wrote; a
 * nested partial clone; the table's glob rows. Each class with a member
 * the issue does not name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "real_tree.h"
#include "base/util.h"
#include "workspace/host_names.h"
#include "workspace/workspace_int.h"

static void make(const struct real *r, const char *spec, const char *content)
{
    real_make(r, spec, content, false);
}

/* The defaults, the host's PATH as given, the before-state taken. */
static workspace_t *begin(const struct real *r, const char *path)
{
    workspace_config_t cfg = { .launch_dir = r->launch, .home = r->home };
    workspace_rules_t *rules = NULL;
    workspace_t *ws = NULL;
    as_error_t *err = NULL;
    usleep(20 * 1000);   /* what was made before is older than the start by a clock tick */
    if (workspace_rules_build(&cfg, &rules, &err) < 0 || workspace_plan(r->launch, r->home, rules, &ws, &err) < 0 ||
        workspace_host_path(ws, path, &err) < 0 || workspace_begin(ws, &err) < 0)
        fail_msg("begin: %s", err->msg);
    return ws;
}

/* The whole report of the end; the workspace freed. */
static char *end(workspace_t *ws)
{
    char *report = NULL, *whole = NULL;
    as_error_t *err = NULL;
    if (workspace_end(ws, true, &report, &whole, &err) < 0)
        fail_msg("end: %s", err->msg);
    free(report);
    workspace_free(ws);
    return whole != NULL ? whole : strdup("");
}

/* Threat 55: a link made during the session that leads out of the tree is
 * replaced by a note whatever it leads to, a file of root's included (a
 * toolchain's bin/cargo -> /bin/sh); the one that stays is venv's own
 * shape, an environment's bin/python3 -> a python of the system. */
static void links_out_whatever_the_target(void **state)
{
    struct real *r = *state;
    make(r, "venv/pyvenv.cfg", "home = /usr/bin\n");
    workspace_t *ws = begin(r, NULL);
    make(r, "tc/bin/cargo -> /bin/sh", NULL);
    make(r, "tools/make -> /usr/bin/make", NULL);          /* a member the issue does not name */
    make(r, "venv/bin/python3 -> /usr/bin/python3", NULL);
    make(r, "venv/bin/python -> python3", NULL);
    make(r, "inside -> tc", NULL);
    char *out = end(ws);
    real_assert_contains(out, "  tc/bin/cargo: a symlink made or re-pointed during the session, to /bin/sh, outside the "
                         "launch directory; now a file that names its target\n");
    real_assert_contains(out, "  tools/make: a symlink made or re-pointed during the session, to /usr/bin/make");
    real_assert_lacks(out, "venv/bin/python");
    real_assert_lacks(out, "inside:");
    assert_true(real_exists(r, "venv/bin/python3"));
    free(out);
}

/* Threat 56: another tool's metadata made during the session is disabled
 * whole, wherever it is (.hg, .svn, .pijul); in metadata that was there,
 * each config the tool reads that the session made or changed (hg's
 * hgrc-not-shared, darcs' prefs/defaults), and the hgrc of a share's store
 * in the tree, whatever the store's name. */
static void version_control_metadata(void **state)
{
    struct real *r = *state;
    make(r, "old/.hg/requires", "revlogv1\nstore\n");
    make(r, "old/.hg/store/data/x.i", "x");
    make(r, "dar/_darcs/prefs/boring", "x");
    make(r, "store/hgrc", "[ui]\n");
    make(r, "store/requires", "share-safe\n");
    char shared[PATH_MAX * 3];
    snprintf(shared, sizeof(shared), "%s/store\n", r->launch);
    make(r, "share/.hg/sharedpath", shared);
    make(r, "share/.hg/requires", "shared\nshare-safe\n");
    make(r, "replaced/.hg/requires", "store\n");
    workspace_t *ws = begin(r, NULL);
    make(r, "sub/.hg/hgrc", "[hooks]\npre-status = touch /tmp/x\n");
    make(r, "svn/.svn/wc.db", "x");
    make(r, "pj/.pijul/config", "[hooks]\nrecord = ['touch /tmp/x']\n");
    make(r, "old/.hg/hgrc-not-shared", "[extensions]\nevil = /tmp/evil.py\n");
    make(r, "old/.hg/store/data/y.i", "y");                 /* a commit: data, not config */
    make(r, "dar/_darcs/prefs/defaults", "ALL posthook touch /tmp/x\n");
    make(r, "store/hgrc", "[hooks]\npre-status = touch /tmp/x\n");
    char path[PATH_MAX * 3], moved[PATH_MAX * 3];
    snprintf(path, sizeof(path), "%s/replaced/.hg", r->launch);
    snprintf(moved, sizeof(moved), "%s/replaced/.hg-old", r->launch);
    assert_int_equal(rename(path, moved), 0);
    make(r, "replaced/.hg/hgrc", "[hooks]\n");
    char *out = end(ws);
    real_assert_contains(out, "  sub/.hg: the metadata of a Mercurial repository or checkout, made during the session");
    real_assert_contains(out, "  svn/.svn: the metadata of a Subversion repository or checkout");
    real_assert_contains(out, "  pj/.pijul: the metadata of a Pijul repository or checkout");
    real_assert_contains(out, "  replaced/.hg: the metadata of a Mercurial repository or checkout");
    real_assert_contains(out, "  old/.hg/hgrc-not-shared: a tool config the tool obeys when run in that directory");
    real_assert_contains(out, "  dar/_darcs/prefs/defaults: a tool config the tool obeys");
    real_assert_contains(out, "  store/hgrc: the hgrc of a Mercurial store that a share in the tree reads");
    real_assert_lacks(out, "sub/.hg/hgrc:");                     /* inside what went whole */
    real_assert_lacks(out, "store/data");
    real_assert_lacks(out, "share/.hg");
    assert_true(real_exists(r, "sub/.hg" DISABLED_SUFFIX "/hgrc") && !real_exists(r, "sub/.hg"));
    assert_true(real_exists(r, "old/.hg/store/data/y.i"));
    free(out);
}

/* Threat 56: a nested repository's partial clone keys, by which git status
 * fetches from the remote's URL, disable its config; a plain clone's stay. */
static void partial_clone_keys(void **state)
{
    struct real *r = *state;
    workspace_t *ws = begin(r, NULL);
    static const char *const repos[] = { "beacon/.git", "plain/.git" };
    for (size_t i = 0; i < ARRAY_SIZE(repos); i++) {
        char p[256];
        snprintf(p, sizeof(p), "%s/HEAD", repos[i]);
        make(r, p, "ref: refs/heads/main\n");
        snprintf(p, sizeof(p), "%s/objects/", repos[i]);
        make(r, p, NULL);
        snprintf(p, sizeof(p), "%s/refs/", repos[i]);
        make(r, p, NULL);
    }
    make(r, "beacon/.git/config", "[core]\n\trepositoryformatversion = 1\n[remote \"x\"]\n\turl = "
                                  "http://beacon.test/data\n\tpromisor = true\n");
    make(r, "plain/.git/config", "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = /x/y\n");
    char *out = end(ws);
    real_assert_contains(out, "  beacon/.git/config: a git config with remote.x.promisor, a partial clone's key by which "
                         "a command that only reads (git status, git log) fetches from the network");
    real_assert_lacks(out, "plain/.git/config");
    free(out);
}

/* A directory holding an executable `python3` (a shell script) that
 * answers as `script` says: the host python of a test. */
static void fake_python(const struct real *r, const char *dir, const char *script)
{
    char p[PATH_MAX * 3];
    snprintf(p, sizeof(p), "%s/%s", r->home, dir);
    assert_int_equal(mkdir(p, 0755), 0);
    strcat(p, "/python3");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s\n", script);
    fclose(f);
    assert_int_equal(chmod(p, 0755), 0);
}

/* Threat 57: modules at the top named like the host python's (asked of the
 * host's python3 now): argparse.py, a readline package made whole, a
 * module in any form python imports (.pyc, a package's __init__); what
 * -m commonly runs, even as a bare directory. What is no module of the
 * host's stays, and so does a bare directory named like one (a namespace
 * package loses to the real one). */
static void modules_named_like_the_hosts(void **state)
{
    struct real *r = *state;
    make(r, "data/x.txt", "x");
    workspace_t *ws = begin(r, getenv("PATH"));
    make(r, "argparse.py", "open('/tmp/x', 'w')\n");
    make(r, "readline/__init__.py", "open('/tmp/x', 'w')\n");
    make(r, "tokenize.pyc", "");                       /* a member the issue does not name */
    make(r, "data/__init__.py", "");                    /* no module of the host's */
    make(r, "pip/__main__.py", "open('/tmp/x', 'w')\n"); /* -m pip: named, a bare directory */
    make(r, "html/index.html", "<p>\n");                /* a namespace package loses */
    make(r, "myapp.py", "print(1)\n");
    char *out = end(ws);
    real_assert_contains(out, "  argparse.py: a Python module named argparse, like one of the host python's or what python3 "
                         "-m runs, which python run from the top of the tree (python3 -m, a script there, the REPL) "
                         "imports instead; moved to ");
    real_assert_contains(out, "  readline: a Python module named readline, like one");
    real_assert_contains(out, "  tokenize.pyc: a Python module named tokenize, like one");
    real_assert_contains(out, "  pip: a Python module named pip, like one");
    real_assert_lacks(out, "data");
    real_assert_lacks(out, "html:");
    real_assert_lacks(out, "myapp");
    free(out);
}

/* Threat 57, failing closed: a host python3 that cannot answer makes every
 * module the session made at the top suspect; no python3 at all leaves
 * nothing to stand in for. */
static void modules_fail_closed(void **state)
{
    struct real *r = *state;
    fake_python(r, "broken", "exit 3");
    char path[PATH_MAX * 3];
    snprintf(path, sizeof(path), "%s/broken", r->home);
    workspace_t *ws = begin(r, path);
    make(r, "myapp.py", "print(1)\n");
    make(r, "notes.txt", "x\n");
    char *out = end(ws);
    real_assert_contains(out, "  myapp.py: a Python module at the top of the tree, made or changed during the session; "
                         "the host python's modules could not be listed (");
    real_assert_lacks(out, "notes.txt:");
    free(out);
    snprintf(path, sizeof(path), "%s/nowhere", r->home);
    ws = begin(r, path);
    make(r, "argparse.py", "x\n");
    out = end(ws);
    real_assert_lacks(out, "argparse.py");
    free(out);
}

/* Threat 58: bytecode the session wrote is removed (a cache), in
 * __pycache__ and stray; what was there, unchanged, stays. */
static void bytecode_the_session_wrote(void **state)
{
    struct real *r = *state;
    make(r, "mod.py", "X = 1\n");
    make(r, "pkg/__pycache__/old.cpython-311.pyc", "old");
    make(r, "pkg/__pycache__/kept.cpython-311.pyc", "kept");
    workspace_t *ws = begin(r, NULL);
    make(r, "__pycache__/mod.cpython-311.pyc", "planted");
    make(r, "pkg/__pycache__/old.cpython-311.pyc", "poisoned");
    make(r, "lib/stray.pyc", "sourceless");
    char *out = end(ws);
    assert_false(real_exists(r, "__pycache__/mod.cpython-311.pyc"));
    assert_false(real_exists(r, "pkg/__pycache__/old.cpython-311.pyc"));
    assert_false(real_exists(r, "lib/stray.pyc"));
    assert_true(real_exists(r, "pkg/__pycache__/kept.cpython-311.pyc"));
    assert_true(real_exists(r, "mod.py"));
    assert_string_equal(out, "");            /* a cache dropped: nothing to warn about on its own */
    free(out);
    /* said in the report that there is anyway */
    ws = begin(r, NULL);
    make(r, "__pycache__/mod.cpython-311.pyc", "planted");
    make(r, ".pdbrc", "!import os\n");
    out = end(ws);
    real_assert_contains(out, "removed 1 bytecode file (.pyc) the session wrote: a cache python makes again");
    free(out);
}

/* Threat 59: the table's rows at work: created at the top, its if-exists
 * rows (pnpm-workspace.yaml, rust-toolchain.toml, .pdbrc) and glob rows
 * (mise.ENV.toml) are disabled; deeper, its nested rows. */
static void tool_configs_of_the_table(void **state)
{
    struct real *r = *state;
    make(r, "rust-toolchain.toml", "[toolchain]\nchannel = \"1.75\"\n");   /* the user's own, unchanged */
    workspace_t *ws = begin(r, NULL);
    make(r, "pnpm-workspace.yaml", "pnpmfile: lib/hooks.cjs\n");
    make(r, ".pdbrc", "!import os\n");
    make(r, "mise.ci.toml", "[hooks]\n");
    make(r, "crates/x/rust-toolchain", "[toolchain]\npath = \"/tmp/tc\"\n");
    make(r, "web/.bazeliskrc", "BAZELISK_BASE_URL=http://x.test\n");      /* a member the issue does not name */
    char *out = end(ws);
    real_assert_contains(out, "  pnpm-workspace.yaml: a project config of pnpm (at the workspace's root, found upwards), "
                         "which it obeys when started here, created during the session");
    real_assert_contains(out, "  .pdbrc: a project config of pdb");
    real_assert_contains(out, "  mise.ci.toml: a project config of mise, with `MISE_ENV`, which it obeys when started "
                         "here, made or changed during the session");
    real_assert_contains(out, "  crates/x/rust-toolchain: a tool config the tool obeys when run in that directory");
    real_assert_contains(out, "  web/.bazeliskrc: a tool config the tool obeys");
    real_assert_lacks(out, "  rust-toolchain.toml:");
    free(out);
}

/* host_names: the host python's answer parsed (a bad one refused whole),
 * module names by the host's own suffixes, and PATH's entries: relative
 * ones and the tree's own are no host's commands. */
static void host_names_pure_and_path(void **state)
{
    struct real *r = *state;
    host_names_t *h = NULL;
    as_error_t *err = NULL;
    char path[PATH_MAX * 4];
    make(r, "bin/git", "#!/bin/sh\n");
    char tree_bin[PATH_MAX * 2];
    snprintf(tree_bin, sizeof(tree_bin), "%s/bin/git", r->launch);
    assert_int_equal(chmod(tree_bin, 0755), 0);
    snprintf(path, sizeof(path), ".:bin:%s/bin::/usr/bin:/bin", r->launch);
    assert_int_equal(host_names_new(path, r->launch, &h, &err), 0);
    static const char answer[] = "S .py\nS .pyc\nS .cpython-311-x86_64-linux-gnu.so\nS .so\n"
                                 "M argparse\nM _sysconfigdata__x86_64-linux-gnu\nM json\n";
    assert_int_equal(host_names_parse(h, answer, strlen(answer)), 0);
    char *m = host_names_top_module(h, "json.cpython-311-x86_64-linux-gnu.so", false);
    assert_string_equal(m, "json");
    free(m);
    m = host_names_top_module(h, "yaml/__init__.pyc", false);
    assert_string_equal(m, "yaml");
    free(m);
    m = host_names_top_module(h, "pip", true);           /* a bare directory: by name only */
    assert_string_equal(m, "pip");
    free(m);
    assert_null(host_names_top_module(h, "html", true));
    assert_null(host_names_top_module(h, "notes.txt", false));
    assert_null(host_names_top_module(h, ".py", false));
    assert_null(host_names_top_module(h, "a/__main__.py", false));
    assert_null(host_names_top_module(h, "a/b/__init__.py", false));
    assert_true(host_names_shadows(h, "argparse") && host_names_shadows(h, "pytest"));
    assert_false(host_names_shadows(h, "myapp"));
    char *where = NULL;
    assert_int_equal(host_names_command(h, "git", &where), 0);
    if (where != NULL && strncmp(where, r->launch, strlen(r->launch)) == 0)
        fail_msg("a command of the tree taken for the host's: %s", where);
    free(where);
    assert_int_equal(host_names_command(h, "no-such-command-here", &where), 0);
    assert_null(where);
    host_names_free(h);
    static const char *const bad[] = { "S py\n", "M \n", "X y\n", "M a/b\n", "S .py\n", "M a b\n" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        assert_int_equal(host_names_new(NULL, r->launch, &h, &err), 0);
        if (host_names_parse(h, bad[i], strlen(bad[i])) != -EBADMSG)
            fail_msg("accepted: %s", bad[i]);
        host_names_free(h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(links_out_whatever_the_target, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(version_control_metadata, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(partial_clone_keys, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(modules_named_like_the_hosts, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(modules_fail_closed, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(bytecode_the_session_wrote, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(tool_configs_of_the_table, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(host_names_pure_and_path, real_setup, real_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
