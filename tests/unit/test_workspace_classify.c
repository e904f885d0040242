/* workspace_classify: what the walk records of an entry, judged without
 * touching the tree (a hand-built workspace, hand-built stat results). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>

#include "workspace/workspace_int.h"

/* Protected: .git and .envrc; a read-only mount of .vscode/settings.json
 * (looked for at the top only); a pin above a protected path, which is no
 * pattern. */
static workspace_rule_t rules_v[] = { { .path = ".git" }, { .path = ".envrc" } };
static workspace_rules_t rules = { .v = rules_v, .n = 2 };
static workspace_mount_t mounts[] = {
    { .kind = WORKSPACE_READ_ONLY, .rel = ".vscode/settings.json" },
    { .kind = WORKSPACE_PIN, .rel = "src" },
};

static unsigned classify(const ws_patterns_t *pats, const char *path, unsigned inherited)
{
    return ws_classify_name(pats, path, strlen(path), inherited);
}

static void names(void **state)
{
    (void)state;
    workspace_t ws = { .rules = &rules, .mounts = mounts, .n_mounts = 2 };
    ws_patterns_t pats;
    as_error_t *err = NULL;
    assert_int_equal(ws_patterns_build(&ws, &pats, &err), 0);

    /* A protected path at its own place, and a copy of it deeper; every
     * top-level entry is one python run from the top could import. */
    assert_int_equal(classify(&pats, "/.envrc", 0), W_PROTECTED | W_TOP);
    assert_int_equal(classify(&pats, "/sub/.envrc", 0), W_NESTED);
    assert_int_equal(classify(&pats, "/.git", 0), W_PROTECTED | W_GIT | W_TOP);
    assert_int_equal(classify(&pats, "/sub/.git", 0), W_NESTED | W_GIT);
    /* A module at the top, a package's __init__ of any suffix there; not deeper. */
    assert_int_equal(classify(&pats, "/pip", 0), W_TOP);
    assert_int_equal(classify(&pats, "/sub/pip", 0), 0);
    assert_int_equal(classify(&pats, "/json/__init__.cpython-311-x86_64-linux-gnu.so", 0), W_TOP);
    assert_int_equal(classify(&pats, "/a/json/__init__.py", 0), 0);
    /* A read-only mount's target only at the top. */
    assert_int_equal(classify(&pats, "/.vscode/settings.json", 0), W_PROTECTED);
    assert_int_equal(classify(&pats, "/x/.vscode/settings.json", 0), 0);
    /* A read-write pin is not looked for as such. */
    assert_int_equal(classify(&pats, "/src", 0), W_TOP);
    /* Bytecode anywhere; other version-control tools' metadata anywhere, and
     * an hgrc (a share's store may have any name). */
    assert_int_equal(classify(&pats, "/a/__pycache__/m.cpython-311.pyc", 0), W_BYTECODE);
    assert_int_equal(classify(&pats, "/a/b/stray.pyc", 0), W_BYTECODE);
    assert_int_equal(classify(&pats, "/a/b/pyc", 0), 0);
    assert_int_equal(classify(&pats, "/vendor/x/.hg", 0), W_VCS);
    assert_int_equal(classify(&pats, "/vendor/x/_darcs", 0), W_VCS);
    assert_int_equal(classify(&pats, "/vendor/x/.fslckout", 0), W_VCS);
    assert_int_equal(classify(&pats, "/vendor/store/hgrc", 0), W_VCS);
    assert_int_equal(classify(&pats, "/vendor/x/.hgignore", 0), 0);
    /* Names host git reads, what a hooks directory holds, what python runs. */
    assert_int_equal(classify(&pats, "/repo/config", 0), W_GIT);
    assert_int_equal(classify(&pats, "/repo/hooks/pre-commit", 0), W_GIT);
    assert_int_equal(classify(&pats, "/.venv/pyvenv.cfg", 0), W_PYTHON);
    assert_int_equal(classify(&pats, "/.venv/pip.conf", 0), W_PYTHON);       /* a venv row of the table */
    /* What the directory holds inherits its bits. */
    assert_int_equal(classify(&pats, "/.envrc.d/x", W_PROTECTED), W_PROTECTED);
    assert_int_equal(classify(&pats, "/plain.txt", 0), W_TOP);
    assert_int_equal(classify(&pats, "/d/plain.txt", 0), 0);

    ws_patterns_clear(&pats);
    assert_null(pats.v);
    assert_int_equal(pats.n, 0);
}

static void types(void **state)
{
    (void)state;
    struct stat st = { .st_mode = S_IFREG | 0644 };
    assert_int_equal(ws_classify_type(&st), 0);
    st.st_mode = S_IFREG | 0700;
    assert_int_equal(ws_classify_type(&st), W_EXEC);
    st.st_mode = S_IFLNK | 0777;
    assert_int_equal(ws_classify_type(&st), W_LINK);
    st.st_mode = S_IFDIR | 0755;
    assert_int_equal(ws_classify_type(&st), 0);
}

static void loose_objects(void **state)
{
    (void)state;
    assert_true(ws_loose_objects_dir("0a"));
    assert_true(ws_loose_objects_dir("ff"));
    assert_false(ws_loose_objects_dir("FF"));
    assert_false(ws_loose_objects_dir("pack"));
    assert_false(ws_loose_objects_dir("abc"));
    assert_false(ws_loose_objects_dir("g0"));
}

static void stores_and_placeholders(void **state)
{
    (void)state;
    struct stat st = { .st_mode = S_IFDIR | 0755, .st_dev = 7, .st_ino = 42 };
    /* At the start, every store is taken as old. */
    assert_true(ws_store_existed(NULL, "/.git/objects", &st));

    ws_item_t items[] = { { .rel = ".git/objects", .what = W_OBJSTORE, .dev = 7, .ino = 42 },
                          { .rel = "other/objects", .what = 0, .dev = 7, .ino = 43 } };
    workspace_snapshot_t before = { .v = items, .n = 2, .cap = 2 };
    assert_true(ws_store_existed(&before, "/.git/objects", &st));
    st.st_ino = 43;
    assert_false(ws_store_existed(&before, "/.git/objects", &st));   /* another directory now */
    assert_false(ws_store_existed(&before, "/other/objects", &st));  /* no store then */
    assert_false(ws_store_existed(&before, "/new/objects", &st));

    workspace_mount_t m[] = { { .created = true, .dev = 7, .ino = 50 }, { .created = false, .dev = 7, .ino = 51 } };
    workspace_t ws = { .mounts = m, .n_mounts = 2 };
    struct stat ph = { .st_mode = S_IFREG | 0644, .st_dev = 7, .st_ino = 50 };
    assert_true(ws_placeholder_ours(&ws, &ph));
    ph.st_size = 1;                      /* written to: the user's file now */
    assert_false(ws_placeholder_ours(&ws, &ph));
    ph = (struct stat){ .st_mode = S_IFDIR | 0755, .st_dev = 7, .st_ino = 51, .st_size = 4096 };
    assert_false(ws_placeholder_ours(&ws, &ph));   /* not one this session made */
    ph.st_ino = 50;
    assert_true(ws_placeholder_ours(&ws, &ph));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),
        cmocka_unit_test(types),
        cmocka_unit_test(loose_objects),
        cmocka_unit_test(stores_and_placeholders),
    };
    return cmocka_run_group_tests_name("workspace_classify", tests, NULL, NULL);
}
