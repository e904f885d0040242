/* The config-file reader: one policy for every config file (regular files
 * only, a FIFO refused at once, a dangling symlink an error, no NUL byte, no
 * byte-order mark, a size bound), and its messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"

static char dir[64];

static int setup_dir(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/test_file_read.XXXXXX");
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *at(const char *name)
{
    static char path[160];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return path;
}

static void put(const char *name, const char *bytes, size_t len)
{
    FILE *f = fopen(at(name), "we");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Reads name; expects failure with code and a message containing want. */
static void refused(const char *name, config_follow_t follow, int code, const char *want)
{
    char *text = NULL;
    size_t len = 0;
    as_error_t *err = NULL;
    assert_int_equal(config_file_read(AT_FDCWD, at(name), follow, 100, &text, &len, &err), -code);
    assert_null(text);
    assert_non_null(err);
    if (strstr(err->msg, want) == NULL)
        fail_msg("\"%s\" does not contain \"%s\"", err->msg, want);
    as_error_free(&err);
}

static void reads_text(void **state)
{
    (void)state;
    put("ok", "a\nb\n", 4);
    char *text = NULL;
    size_t len = 0;
    as_error_t *err = NULL;
    assert_int_equal(config_file_read(AT_FDCWD, at("ok"), CONFIG_FOLLOW, 100, &text, &len, &err), 0);
    assert_int_equal(len, 4);
    assert_string_equal(text, "a\nb\n");
    free(text);

    /* relative to a directory, without following */
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    assert_int_equal(config_file_read(dfd, "ok", CONFIG_NOFOLLOW, 100, &text, &len, &err), 0);
    assert_int_equal(len, 4);
    free(text);
    close(dfd);
}

static void absent_is_enoent(void **state)
{
    (void)state;
    refused("none", CONFIG_FOLLOW, ENOENT, "No such file");
}

static void dangling_symlink_is_an_error(void **state)
{
    (void)state;
    assert_int_equal(symlink("/nowhere/\x1b[31mred", at("dangling")), 0);
    refused("dangling", CONFIG_FOLLOW, ENOLINK, "it is a symlink to /nowhere/\\x1b[31mred, which does not exist");
    /* never followed: refused as a symlink, whatever it points to */
    put("target", "x\n", 2);
    char target[160];
    snprintf(target, sizeof(target), "%s", at("target"));
    assert_int_equal(symlink(target, at("link")), 0);
    refused("link", CONFIG_NOFOLLOW, ELOOP, "it is a symlink, which is never followed");
}

static void fifo_is_refused_at_once(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(at("fifo"), 0600), 0);
    alarm(5);                     /* a hang fails the test instead of the suite */
    refused("fifo", CONFIG_FOLLOW, EINVAL, "it is a FIFO; a config file must be a regular file");
    alarm(0);
}

static void directory_and_device(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("sub"), 0700), 0);
    refused("sub", CONFIG_FOLLOW, EISDIR, "Is a directory");
    char *text = NULL;
    size_t len = 0;
    as_error_t *err = NULL;
    assert_int_equal(config_file_read(AT_FDCWD, "/dev/null", CONFIG_FOLLOW, 100, &text, &len, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "it is a device"));
    as_error_free(&err);
}

static void nul_and_bom_are_refused_by_name(void **state)
{
    (void)state;
    put("nul", "a\nb\nc\0d\n", 8);
    refused("nul", CONFIG_FOLLOW, EILSEQ, "it has a NUL byte on line 3");
    put("bom", "\xef\xbb\xbf/home/x\n", 11);
    refused("bom", CONFIG_FOLLOW, EILSEQ, "it starts with a UTF-8 byte-order mark (bytes EF BB BF)");
}

static void size_is_bounded(void **state)
{
    (void)state;
    char big[101];
    memset(big, 'a', sizeof(big));
    put("big", big, sizeof(big));
    refused("big", CONFIG_FOLLOW, EFBIG, "larger than the limit of 100 bytes");
    put("fits", big, 100);
    char *text = NULL;
    size_t len = 0;
    as_error_t *err = NULL;
    assert_int_equal(config_file_read(AT_FDCWD, at("fits"), CONFIG_FOLLOW, 100, &text, &len, &err), 0);
    assert_int_equal(len, 100);
    free(text);
}

static void name_is_escaped(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    as_error_make(&err, EINVAL, "it is a FIFO");
    assert_int_equal(config_error_name(&err, "cannot read ", "/a\nb"), -EINVAL);
    assert_string_equal(err->msg, "cannot read /a\\x0ab: it is a FIFO");
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_text),
        cmocka_unit_test(absent_is_enoent),
        cmocka_unit_test(dangling_symlink_is_an_error),
        cmocka_unit_test(fifo_is_refused_at_once),
        cmocka_unit_test(directory_and_device),
        cmocka_unit_test(nul_and_bom_are_refused_by_name),
        cmocka_unit_test(size_is_bounded),
        cmocka_unit_test(name_is_escaped),
    };
    return cmocka_run_group_tests_name("file_read", tests, setup_dir, teardown_dir);
}
