/* A derived image's build context (lib/images/build_context.h): the same
 * bytes and hash for the same content, a new hash for a new base; links,
 * hard links and special files refused, naming them; and SHA-256 against
 * the FIPS 180-2 examples. */
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

#include "images/build_context.h"

/* The hash is SHA-256 of the stream, then the salt: the FIPS 180-2
 * examples, the second split between the two. */
static void test_sha256(void **state)
{
    (void)state;
    char hex[65];
    as_error_t *err = NULL;
    assert_int_equal(build_context_hash("abc", 3, "", hex, &err), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_int_equal(build_context_hash(two, 20, two + 20, hex, &err), 0);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static char top[64];

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", top, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(top, sizeof(top), "/tmp/as-ctx-XXXXXX");
    assert_non_null(mkdtemp(top));
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/files", top);
    mkdir(sub, 0755);
    put("Containerfile", "FROM localhost/agent-sandbox:dev\nCOPY files/ /opt/\n");
    put("files/tool.sh", "#!/bin/sh\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_same_content(void **state)
{
    (void)state;
    build_context_t a, b, c;
    as_error_t *err = NULL;
    assert_int_equal(build_context_pack(top, "sha256:base1", &a, &err), 0);
    char path[256];
    snprintf(path, sizeof(path), "%s/files/tool.sh", top);
    struct timespec times[2] = { { .tv_nsec = UTIME_NOW }, { .tv_nsec = UTIME_NOW } };
    utimensat(AT_FDCWD, path, times, 0);                 /* a new time is no change */
    assert_int_equal(build_context_pack(top, "sha256:base1", &b, &err), 0);
    assert_int_equal(build_context_pack(top, "sha256:base2", &c, &err), 0);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.tar, b.tar, a.len);
    assert_string_equal(a.hash, b.hash);
    assert_string_not_equal(a.hash, c.hash);             /* a new base */
    assert_int_equal(a.len, 512 * 5 + 1024);             /* 3 headers, 2 contents of a block each; the end */
    assert_string_equal(a.tar, "Containerfile");
    assert_string_equal(a.tar + 1024, "files/");
    assert_string_equal(a.tar + 1536, "files/tool.sh");
    put("files/tool.sh", "#!/bin/sh\nexit 0\n");         /* a new content */
    build_context_t d;
    assert_int_equal(build_context_pack(top, "sha256:base1", &d, &err), 0);
    assert_string_not_equal(a.hash, d.hash);
    build_context_clear(&a);
    build_context_clear(&b);
    build_context_clear(&c);
    build_context_clear(&d);
}

static void refused(const char *what)
{
    build_context_t a;
    as_error_t *err = NULL;
    assert_true(build_context_pack(top, "x", &a, &err) < 0);
    if (strstr(err->msg, what) == NULL)
        fail_msg("`%s` does not say `%s`", err->msg, what);
    as_error_free(&err);
}

static void test_refused(void **state)
{
    (void)state;
    char path[256], other[256];
    snprintf(path, sizeof(path), "%s/files/key", top);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    refused("files/key: a symbolic link: refused");
    unlink(path);
    snprintf(other, sizeof(other), "%s/files/tool.sh", top);
    assert_int_equal(link(other, path), 0);
    refused("files/key: a hard-linked file: refused");
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    refused("files/key: a special file: refused");
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),
        cmocka_unit_test_setup_teardown(test_same_content, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
    };
    return cmocka_run_group_tests_name("build context", tests, NULL, NULL);
}
