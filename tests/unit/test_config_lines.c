/* config_lines: the line syntax all four config files share (comments,
 * blanks, CRLF, NUL bytes and control characters, line numbers, words). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/config_lines.h"

/* The lines of `text` as "N:content" or "N!problem", joined by '|'. */
static void lines_are(const char *text, size_t len, const char *want)
{
    config_lines_t it;
    config_line_t l;
    char got[512] = "";
    config_lines_init(&it, "f", text, len);
    while (config_lines_next(&it, &l)) {
        char one[128];
        if (l.problem != NULL)
            snprintf(one, sizeof(one), "%s%u!%s", got[0] ? "|" : "", l.number, l.problem);
        else
            snprintf(one, sizeof(one), "%s%u:%.*s", got[0] ? "|" : "", l.number, (int)l.len, l.text);
        strncat(got, one, sizeof(got) - strlen(got) - 1);
    }
    assert_string_equal(got, want);
}

static void comments_and_blanks(void **state)
{
    (void)state;
    const char *text = "# a comment\n"
                       "   # indented\n"
                       "\n"
                       " \t \r\n"
                       "a  # after blanks\n"
                       "b\t#after a tab\n"
                       "c#d\n"                    /* no blank before: part of it */
                       "/srv/c# #e\n"
                       "  two words  \r\n"
                       "#\n"
                       "last";                    /* no final newline */
    lines_are(text, strlen(text), "5:a|6:b|7:c#d|8:/srv/c#|9:two words|11:last");
    lines_are("", 0, "");
    lines_are(NULL, 0, "");
    lines_are("\n\n\n", 3, "");
}

static void nul_and_controls(void **state)
{
    (void)state;
    static const char nul[] = "a\n# hidden \0 in a comment\nb\n";
    lines_are(nul, sizeof(nul) - 1, "1:a|2!a NUL byte; a config file is text|3:b");
    const char *text = "a\tb\n"               /* a tab inside is fine */
                       "x\033[31m\n"
                       "y\rz\n"               /* a CR inside is not */
                       "del\x7f\n"
                       "v\vw\n"
                       "# \033 in a comment is skipped\n";
    lines_are(text, strlen(text), "1:a\tb|2!a control character (0x1b)|3!a control character (0x0d)"
                                  "|4!a control character (0x7f)|5!a control character (0x0b)");
}

static void errors_name_file_and_line(void **state)
{
    (void)state;
    config_lines_t it;
    config_line_t l;
    as_error_t *err = NULL;
    config_lines_init(&it, "/etc/x", "\n\nbad line\n", 11);
    assert_true(config_lines_next(&it, &l));
    assert_int_equal(config_line_error(&it, &l, &err, "what is wrong: %d", 42), -EINVAL);
    assert_string_equal(err->msg, "/etc/x:3: what is wrong: 42");
    assert_int_equal(err->code, EINVAL);
    as_error_free(&err);
    assert_false(config_lines_next(&it, &l));
}

static void words(void **state)
{
    (void)state;
    config_lines_t it;
    config_line_t l;
    const char *text = "  one\ttwo   three # four\n";
    config_lines_init(&it, "f", text, strlen(text));
    assert_true(config_lines_next(&it, &l));
    config_word_t w[2];
    assert_int_equal(config_line_words(&l, w, 2), 3);
    assert_int_equal(w[0].len, 3);
    assert_memory_equal(w[0].text, "one", 3);
    assert_int_equal(w[1].len, 3);
    assert_memory_equal(w[1].text, "two", 3);
    assert_int_equal(config_line_words(&l, w, 0), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(comments_and_blanks),
        cmocka_unit_test(nul_and_controls),
        cmocka_unit_test(errors_name_file_and_line),
        cmocka_unit_test(words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
