/* libFuzzer target for the line and word reader of every config file
 * (lib/base/config_lines.c). Whatever the bytes: lines come in order, each
 * inside the text and within its own line; a line's content has no blanks
 * around it, no comment and no newline; a line without a problem has no
 * NUL and no control character but tab, and a line with one does; the
 * words of a line are non-empty, blank-free, in order, inside the content,
 * and counted the same whatever room is given for them; and an error names
 * the file and the line. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "base/config_lines.h"

#define WORDS_MAX 8

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return true;
    }
    return false;
}

static void check_content(const config_line_t *line)
{
    CHECK(line->len > 0);
    CHECK(!blank(line->text[0]) && !blank(line->text[line->len - 1]));
    CHECK(line->text[0] != '#');
    CHECK(memchr(line->text, '\n', line->len) == NULL);
    for (size_t i = 1; i < line->len; i++)
        CHECK(line->text[i] != '#' || !blank(line->text[i - 1]));
    CHECK(line->problem != NULL || !has_control(line->text, line->len));
    CHECK(line->problem == NULL || memchr(line->text, '\0', line->len) != NULL ||
          has_control(line->text, line->len));
}

static void check_words(const config_line_t *line)
{
    config_word_t words[WORDS_MAX];
    size_t n = config_line_words(line, words, WORDS_MAX);
    CHECK(n == config_line_words(line, NULL, 0));
    CHECK(n > 0);           /* content is not blank at either end */
    const char *after = line->text;
    for (size_t i = 0; i < n && i < WORDS_MAX; i++) {
        CHECK(words[i].len > 0 && words[i].text >= after);
        CHECK(words[i].text + words[i].len <= line->text + line->len);
        for (size_t j = 0; j < words[i].len; j++)
            CHECK(!blank(words[i].text[j]));
        after = words[i].text + words[i].len;
    }
}

static void check_error(const config_lines_t *it, const config_line_t *line)
{
    as_error_t *err = NULL;
    char want[32];
    snprintf(want, sizeof(want), "fuzz:%u: ", line->number);
    CHECK(config_line_error(it, line, &err, "%.*s", (int)line->len, line->text) == -EINVAL);
    CHECK(err != NULL && strncmp(err->msg, want, strlen(want)) == 0);
    as_error_free(&err);
}

static int count_line(const config_lines_t *it, const config_line_t *line, void *ctx, as_error_t **err)
{
    (void)it, (void)line, (void)err;
    (*(unsigned *)ctx)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data, *end = text + size;
    size_t newlines = 0;
    for (size_t i = 0; i < size; i++)
        newlines += data[i] == '\n';
    config_lines_t it;
    config_line_t line;
    unsigned last = 0, lines = 0;
    const char *after = text;       /* where the previous line ended */
    config_lines_init(&it, "fuzz", text, size);
    while (config_lines_next(&it, &line)) {
        CHECK(line.number > last && line.number <= newlines + 1);
        CHECK(line.text >= after && line.text + line.len <= end);
        if (line.problem == NULL || memchr(line.text, '\0', line.len) == NULL)
            check_content(&line);
        check_words(&line);
        check_error(&it, &line);
        const char *nl = memchr(line.text, '\n', (size_t)(end - line.text));
        after = nl != NULL ? nl + 1 : end;
        CHECK(line.text + line.len <= after);
        last = line.number;
        lines++;
    }
    unsigned counted = 0;
    CHECK(config_lines_each("fuzz", text, size, count_line, &counted, NULL) == 0);
    CHECK(counted == lines);
    return 0;
}
