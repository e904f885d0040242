/* The one escaper (lib/base/paths.c): what the host prints of the agent's text,
 * checked byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <stdbool.h>

#include "base/escape.h"

static char *escape(const char *s, size_t n, bool keep_newlines)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    if (keep_newlines)
        text_put_escaped(f, s, n);
    else
        path_put_escaped(f, s, n);
    assert_int_equal(fclose(f), 0);
    return text;
}

/* in (n bytes) escapes to exactly want, and escaping that again changes nothing */
static void check_n(const char *in, size_t n, const char *want)
{
    char *got = escape(in, n, false);
    assert_string_equal(got, want);
    char *again = escape(got, strlen(got), false);
    assert_string_equal(again, want);
    free(again);
    free(got);
}

static void check(const char *in, const char *want)
{
    check_n(in, strlen(in), want);
}

static void test_plain_text_is_copied(void **state)
{
    (void)state;
    check("/home/u/src/proj/a b.txt", "/home/u/src/proj/a b.txt");
    check("back\\slash", "back\\slash");
    check("", "");
}

static void test_c0_and_del(void **state)
{
    (void)state;
    check("a\033[31mb", "a\\x1b[31mb");
    check("\n\r\t\x01\x1f\x7f", "\\x0a\\x0d\\x09\\x01\\x1f\\x7f");
    check_n("a\0b", 3, "a\\x00b");
}

static void test_raw_c1_bytes(void **state)
{
    (void)state;
    /* 0x9b is CSI and 0x9d OSC on an 8-bit terminal: never valid UTF-8 alone */
    check("x\x9b" "31m\x9d" "0;t\x07", "x\\x9b31m\\x9d0;t\\x07");
    check("\x80\x9f", "\\x80\\x9f");
}

static void test_encoded_c1(void **state)
{
    (void)state;
    check("x\xc2\x9b" "31m", "x\\u{009B}31m");
    check("\xc2\x9d" "0;t", "\\u{009D}0;t");
    check("\xc2\x80\xc2\x9f", "\\u{0080}\\u{009F}");
    /* U+00A0 and U+00E9 are printable: copied */
    check("\xc2\xa0\xc3\xa9", "\xc2\xa0\xc3\xa9");
}

static void test_bidi_and_invisible(void **state)
{
    (void)state;
    check("evil\xe2\x80\xaetxt.sh", "evil\\u{202E}txt.sh");        /* RLO */
    check("\xe2\x80\xaa\xe2\x80\xad", "\\u{202A}\\u{202D}");         /* LRE, LRO */
    check("\xe2\x81\xa6\xe2\x81\xa9", "\\u{2066}\\u{2069}");         /* LRI, PDI */
    check("a\xe2\x80\x8b" "b\xe2\x80\x8f", "a\\u{200B}b\\u{200F}");  /* ZWSP, RLM */
    check("\xef\xbb\xbf", "\\u{FEFF}");                             /* BOM */
    check("\xf3\xa0\x80\x81", "\\u{E0001}");                        /* a tag character */
    check("\xe2\x80\xa8", "\\u{2028}");                             /* line separator */
    /* neighbours that are visible stay */
    check("\xe2\x80\x90\xe2\x80\xaf", "\xe2\x80\x90\xe2\x80\xaf");
    check("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    check("\xc0\x8a", "\\xc0\\x8a");                  /* overlong newline */
    check("\xe0\x80\x9b", "\\xe0\\x80\\x9b");          /* overlong CSI */
    check("\xed\xa0\x80", "\\xed\\xa0\\x80");          /* a surrogate */
    check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* beyond U+10FFFF */
    check("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");
    check("\xe2\x80", "\\xe2\\x80");                  /* cut short at the end */
    check("\xe2\x80" "a", "\\xe2\\x80a");
    check("\xff\xfe", "\\xff\\xfe");
}

static void test_text_keeps_newlines_only(void **state)
{
    (void)state;
    const char *in = "line 1\nline\t2\r\n\xc2\x9b";
    char *got = escape(in, strlen(in), true);
    assert_string_equal(got, "line 1\nline\\x092\\x0d\n\\u{009B}");
    free(got);
}

static void test_strdup(void **state)
{
    (void)state;
    char *got = path_escaped("a\xe2\x80\xae\n");
    assert_string_equal(got, "a\\u{202E}\\x0a");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_text_is_copied),
        cmocka_unit_test(test_c0_and_del),
        cmocka_unit_test(test_raw_c1_bytes),
        cmocka_unit_test(test_encoded_c1),
        cmocka_unit_test(test_bidi_and_invisible),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_text_keeps_newlines_only),
        cmocka_unit_test(test_strdup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
