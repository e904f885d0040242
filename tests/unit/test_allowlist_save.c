/* allowlist_save (`allow --save`): names appended to the user's file, every
 * byte of it kept, the mode kept, a symlink kept; a file with errors, or a
 * name it has, left as it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allowlist_of.h"
#include "config/allowlist.h"
#include "config/allowlist_save.h"

static char dir[] = "/tmp/test_allowlist_save.XXXXXX";
static char path[128], link_path[128];

static void write_text(const char *p, const char *text, mode_t mode)
{
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(p, mode), 0);
}

static char *read_text(const char *p)
{
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    char *buf = calloc(1, 65536);
    fread(buf, 1, 65535, f);
    fclose(f);
    return buf;
}

static void test_appends_and_keeps(void **state)
{
    (void)state;
    const char *old = "# my list\n\napi.example.com   # the API\n.cdn.example\n"
                      "db.example.com:5432\nno-newline.example";
    write_text(path, old, 0640);
    assert_int_equal(symlink(path, link_path), 0);
    allowlist_t *add = allowlist_of("pypi.org\nx.cdn.example\napi.example.com\ndb.example.com:5433\n"
                               "db.example.com:5432\n");
    allowlist_save_result_t res;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_save(link_path, add, "added by a test", &res, &err), 0);
    assert_int_equal(res.added, 2);        /* pypi.org, and the new port (not the one it has) */
    assert_int_equal(res.present, 2);      /* x.cdn.example (the wildcard), api.example.com */
    char *text = read_text(path);
    char want[512];
    snprintf(want, sizeof(want), "%s\npypi.org  # added by a test\n"
             "db.example.com:5433  # added by a test\n", old);
    assert_string_equal(text, want);
    free(text);
    struct stat st;
    assert_int_equal(lstat(link_path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    /* it parses, and a second time adds nothing and writes nothing */
    allowlist_t *back = NULL;
    assert_int_equal(allowlist_load(path, &back, &err), 0);
    assert_non_null(allowlist_find(back, "pypi.org", false));
    allowlist_free(back);
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    assert_int_equal(allowlist_save(path, add, NULL, &res, &err), 0);
    assert_int_equal(res.added, 0);
    assert_int_equal(res.present, 4);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_ino, before.st_ino);
    allowlist_free(add);
    /* nothing left beside it */
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) = 2", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_refuses_a_broken_file(void **state)
{
    (void)state;
    const char *old = "ok.example\nbad_name.example\n*\n";
    write_text(path, old, 0644);
    allowlist_t *add = allowlist_of("pypi.org\n");
    allowlist_save_result_t res;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_save(path, add, NULL, &res, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "the file has errors; nothing was added until they are fixed: "));
    assert_non_null(strstr(err->msg, ":2: invalid character '_'"));
    assert_non_null(strstr(err->msg, "\n"));
    assert_non_null(strstr(err->msg, ":3: `*` would allow every host"));
    as_error_free(&err);
    char *text = read_text(path);
    assert_string_equal(text, old);
    free(text);
    unlink(path);
    assert_int_equal(allowlist_save(path, add, NULL, &res, &err), -ENOENT);
    as_error_free(&err);
    allowlist_free(add);
}

static int setup(void **state)
{
    (void)state;
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof(path), "%s/allowed-hosts", dir);
    snprintf(link_path, sizeof(link_path), "%s/link", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appends_and_keeps),
        cmocka_unit_test(test_refuses_a_broken_file),
    };
    return cmocka_run_group_tests_name("allowlist_save", tests, setup, teardown);
}
