/* The image check's pure parts: the tar stream reader (lib/base/tar_scan.h)
 * on archives made here, in any pieces, and refusing what is incomplete
 * or corrupt; the file-system verdicts (lib/images/image_check.h); the
 * Containerfile's FROM (lib/images/user_image.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tar_scan.h"
#include "base/tar_write.h"
#include "images/user_image.h"
#include "images/image_check.h"

typedef tar_write_t archive_t;

/* One entry by the product's own tar writer (lib/base/tar_write.h). */
static void add(archive_t *a, char type, const char *name, unsigned mode, const char *content)
{
    assert_int_equal(tar_write_entry(a, name, mode, type, content, content ? strlen(content) : 0), 0);
}

/* A pax record in front of the next entry. */
static void add_pax(archive_t *a, const char *records)
{
    add(a, 'x', "PaxHeaders/x", 0644, records);
}

static void end(archive_t *a)
{
    assert_int_equal(tar_write_end(a), 0);
}

typedef struct seen {
    image_scan_t scan;
    char paths[16][128];
    size_t n;
} seen_t;

static int on_entry(const tar_entry_t *e, void *ctx, as_error_t **err)
{
    seen_t *s = ctx;
    if (s->n < 16)
        snprintf(s->paths[s->n++], 128, "%s %04o %c%s", e->path, e->mode, e->type, e->capability ? " cap" : "");
    return image_scan_entry(&s->scan, e->path, e->mode, e->type, e->capability, err);
}

/* Scans the archive fed in pieces of `piece` bytes: 0 or the error. */
static int scan(const archive_t *a, size_t piece, seen_t *s, as_error_t **err)
{
    memset(s, 0, sizeof(*s));
    tar_scan_t *t = NULL;
    assert_int_equal(tar_scan_new(on_entry, s, &t, err), 0);
    int r = 0;
    for (size_t off = 0; r == 0 && off < a->len; off += piece)
        r = tar_scan_feed(t, a->data + off, a->len - off < piece ? a->len - off : piece, err);
    if (r == 0)
        r = tar_scan_finish(t, err);
    if (r == 0)
        r = image_scan_end(&s->scan, err);
    tar_scan_free(t);
    return r;
}

/* An empty archive in place of the last one. */
static archive_t *fresh(archive_t *a)
{
    tar_write_clear(a);
    return a;
}

static archive_t *base_image(void)
{
    static archive_t a;
    fresh(&a);
    add(&a, '5', "./", 0755, NULL);
    add(&a, '5', "./etc/", 0755, NULL);
    add(&a, '0', "./etc/passwd", 0644, "root:x:0:0:root:/root:/bin/bash\n");
    add(&a, '2', "./bin", 0777, NULL);
    add(&a, '5', "./var/mail/", 02775, NULL);             /* a setgid directory passes */
    return &a;
}

static void test_clean(void **state)
{
    (void)state;
    archive_t *a = base_image();
    end(a);
    static const size_t pieces[] = { 1, 7, 511, 512, 513, 100000 };
    for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
        seen_t s;
        as_error_t *err = NULL;
        if (scan(a, pieces[i], &s, &err) < 0)
            fail_msg("%s", err->msg);
        assert_null(s.scan.problem);
        assert_int_equal(s.n, 5);
        assert_string_equal(s.paths[2], "./etc/passwd 0644 0");
        assert_string_equal(s.paths[4], "./var/mail/ 2775 5");
    }
}

static const char *problem_of(archive_t *a)
{
    static char buf[256];
    seen_t s;
    as_error_t *err = NULL;
    if (scan(a, 1000, &s, &err) < 0)
        fail_msg("%s", err->msg);
    snprintf(buf, sizeof(buf), "%s", s.scan.problem ? s.scan.problem : "-");
    free(s.scan.problem);
    return buf;
}

static void test_problems(void **state)
{
    (void)state;
    archive_t *a = base_image();
    add(a, '0', "usr/bin/su", 04755, "x");
    end(a);
    assert_string_equal(problem_of(a), "/usr/bin/su is setuid");
    a = base_image();
    add(a, '0', "./usr/bin/wall", 02755, "x");
    end(a);
    assert_string_equal(problem_of(a), "/usr/bin/wall is setgid");
    a = base_image();
    add(a, '1', "./usr/bin/su2", 04755, NULL);          /* a hard link carries the mode too */
    end(a);
    assert_string_equal(problem_of(a), "/usr/bin/su2 is setuid");
    a = base_image();
    add_pax(a, "45 SCHILY.xattr.security.capability=\x01\x02\x03\x04\x05\x06\x07\x08\n");
    add(a, '0', "./usr/bin/ping", 0755, "x");
    end(a);
    assert_string_equal(problem_of(a), "/usr/bin/ping has file capabilities");
    a = base_image();
    add(a, '3', "./dev/mem", 0600, NULL);
    end(a);
    assert_string_equal(problem_of(a), "/dev/mem is a character device node");
    /* a long path from a pax record, as Go's archive/tar writes it */
    a = base_image();
    char rec[300], path[200];
    memset(path, 'p', 150);
    path[150] = '\0';
    snprintf(rec, sizeof(rec), "%zu path=usr/%s\n", strlen(path) + 14, path);
    add_pax(a, rec);
    add(a, '0', "./usr/ppppp", 04755, "x");
    end(a);
    char want[220];
    snprintf(want, sizeof(want), "/usr/%s is setuid", path);
    assert_string_equal(problem_of(a), want);
    /* /etc/passwd missing, or a symlink */
    static archive_t other;
    archive_t *b = fresh(&other);
    add(b, '5', "./", 0755, NULL);
    end(b);
    assert_string_equal(problem_of(b), "/etc/passwd is missing (podman adds the user's entry to it)");
    fresh(b);
    add(b, '2', "etc/passwd", 0777, NULL);
    end(b);
    assert_string_equal(problem_of(b), "/etc/passwd is not a regular file (podman adds the user's entry to it)");
}

/* Complete or refused: a stream cut anywhere before its end blocks, or
 * with a damaged header, is an error, never a pass. */
static void test_incomplete(void **state)
{
    (void)state;
    archive_t *a = base_image();
    end(a);
    size_t full = a->len;
    for (size_t cut = 0; cut < full - 512; cut += 97) {
        a->len = cut;
        seen_t s;
        as_error_t *err = NULL;
        assert_int_not_equal(scan(a, 512, &s, &err), 0);
        as_error_free(&err);
        free(s.scan.problem);
    }
    a->len = full;
    a->data[512 + 3] ^= 1;                               /* the second header's name */
    seen_t s;
    as_error_t *err = NULL;
    assert_int_equal(scan(a, 512, &s, &err), -EBADMSG);
    assert_non_null(strstr(err->msg, "corrupt tar header"));
    as_error_free(&err);
}

/* A pax record's length is digits and a space, nothing else: strtoul took
 * the newlines and the blank before "5", and the key's end was then looked
 * for from past the record's end for nearly SIZE_MAX bytes. */
static void test_pax_length_is_strict(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "\n\n\n\n\n 5 abc", " 12 path=abc\n", "+12 path=abc\n", "012 path=abc\n",
        "12path=abc\n", "3 =\n", "13 path=abc\n", "12 pathabcde\n", "99999999 path=abc\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        archive_t *a = base_image();
        add_pax(a, bad[i]);
        add(a, '0', "./x", 0644, NULL);
        end(a);
        seen_t s;
        as_error_t *err = NULL;
        assert_int_equal(scan(a, 512, &s, &err), -EBADMSG);
        assert_string_equal(err->msg, "a malformed pax record");
        as_error_free(&err);
        free(s.scan.problem);
    }
    archive_t *a = base_image();
    add_pax(a, "12 path=abc\n4 =\n");
    add(a, '0', "./x", 0644, NULL);
    end(a);
    seen_t s;
    as_error_t *err = NULL;
    assert_int_equal(scan(a, 512, &s, &err), 0);
    assert_string_equal(s.paths[5], "abc 0644 0");
}

/* Only POSIX ustar ("ustar\0" "00") has the 155-byte path prefix; in a GNU
 * header ("ustar  \0") the same bytes are its atime and ctime. */
static void test_prefix_only_in_posix_headers(void **state)
{
    (void)state;
    archive_t *a = base_image();
    add(a, '0', "tool", 0755, NULL);
    char *h = a->data + a->len - 512;
    memcpy(h + 257, "ustar  \0", 8);
    memcpy(h + 345, "14567012345 14567012346 ", 24);     /* atime, ctime */
    tar_write_checksum(h);
    add(a, '0', "x", 0644, NULL);
    h = a->data + a->len - 512;
    memcpy(h + 345, "./usr/share", 11);
    tar_write_checksum(h);
    end(a);
    seen_t s;
    as_error_t *err = NULL;
    assert_int_equal(scan(a, 7, &s, &err), 0);
    assert_string_equal(s.paths[5], "tool 0755 0");
    assert_string_equal(s.paths[6], "./usr/share/x 0644 0");
}

static const char *from_check(const char *text)
{
    static char buf[512];
    char *from = NULL;
    as_error_t *err = NULL;
    if (user_image_from_check("Containerfile", text, strlen(text), &from, &err) < 0) {
        snprintf(buf, sizeof(buf), "%s", err->msg);
        as_error_free(&err);
    } else {
        snprintf(buf, sizeof(buf), "FROM %s", from);
        free(from);
    }
    return buf;
}

static void test_from(void **state)
{
    (void)state;
    assert_string_equal(from_check("FROM localhost/agent-sandbox:" AS_IMAGE_TAG "\nRUN touch /x\n"),
                        "FROM localhost/agent-sandbox:" AS_IMAGE_TAG);
    assert_string_equal(from_check("# syntax=whatever\n\n  from localhost/agent-sandbox-codex:" AS_IMAGE_TAG "\n"),
                        "FROM localhost/agent-sandbox-codex:" AS_IMAGE_TAG);
    /* a FROM inside a continued RUN is no instruction */
    assert_string_equal(from_check("FROM localhost/agent-sandbox:" AS_IMAGE_TAG "\nRUN echo \\\n FROM x\n"),
                        "FROM localhost/agent-sandbox:" AS_IMAGE_TAG);
    const struct { const char *text, *msg; } bad[] = {
        { "FROM docker.io/library/debian:bookworm\n", "Containerfile:1: FROM docker.io/library/debian:bookworm: the first" },
        { "ARG B=localhost/agent-sandbox:dev\nFROM $B\n", "Containerfile:1: the first instruction must be FROM" },
        { "\n# c\nRUN true\n", "Containerfile:3: the first instruction must be FROM" },
        { "FROM localhost/agent-sandbox:" AS_IMAGE_TAG " AS x\n", "Containerfile:1: FROM localhost/agent-sandbox:" AS_IMAGE_TAG ": the first" },
        { "FROM localhost/agent-sandbox:" AS_IMAGE_TAG "\nFROM docker.io/x\n", "Containerfile:2: FROM docker.io/x:" },
        { "FROM localhost/agent-sandbox-common:" AS_IMAGE_TAG "\n", "Containerfile:1: FROM localhost/agent-sandbox-common" },
        { "FROM agent-sandbox:" AS_IMAGE_TAG "\n", "Containerfile:1: FROM agent-sandbox:" },
        { "# escape=`\nFROM localhost/agent-sandbox:" AS_IMAGE_TAG "\n", "Containerfile:1: the escape directive" },
        { "FROM localhost/agent-sandbox-user/x:" AS_IMAGE_TAG "\n", "Containerfile:1: FROM localhost/agent-sandbox-user/x" },
        { "", "Containerfile: no FROM instruction" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *got = from_check(bad[i].text);
        if (strncmp(got, bad[i].msg, strlen(bad[i].msg)) != 0)
            fail_msg("for `%s`: `%s`, not `%s`", bad[i].text, got, bad[i].msg);
    }
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(shipped_image_agent("localhost/agent-sandbox:" AS_IMAGE_TAG), "claude");
    assert_null(shipped_image_agent("localhost/agent-sandbox:other"));
    assert_null(shipped_image_agent("localhost/agent-sandbox-claude-:" AS_IMAGE_TAG));
    assert_null(shipped_image_agent("localhost/agent-sandbox-claude-cobol:" AS_IMAGE_TAG));
    assert_true(user_image_name_valid("web-2_x"));
    assert_false(user_image_name_valid("Web"));
    assert_false(user_image_name_valid("-x"));
    assert_false(user_image_name_valid("a/b"));
    assert_false(user_image_name_valid(""));
    char *ref = NULL;
    as_error_t *err = NULL;
    assert_int_equal(user_image_ref("web", "dev", &ref, &err), 0);
    assert_string_equal(ref, "localhost/agent-sandbox-user/web:dev");
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_problems),
        cmocka_unit_test(test_incomplete),
        cmocka_unit_test(test_pax_length_is_strict),
        cmocka_unit_test(test_prefix_only_in_posix_headers),
        cmocka_unit_test(test_from),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests_name("image check", tests, NULL, NULL);
}
