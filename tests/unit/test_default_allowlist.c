/* The packaged config/allowed-hosts, read from the source tree
 * (AS_SOURCE_DIR) with the real parser: as shipped, Claude Code's names and
 * nothing else; each commented opt-in block, uncommented as its notes say
 * (the "# " in front of each host line removed), parses cleanly on its own
 * and with the default and every other block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/allowlist.h"

#define HEADER "## opt-in: "

static char *default_text(size_t *ret_len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/config/allowed-hosts", AS_SOURCE_DIR);
    char *text = NULL;
    as_error_t *err = NULL;
    if (allowlist_read_file(path, &text, ret_len, &err) < 0)
        fail_msg("%s", err->msg);
    return text;
}

static allowlist_t *parse_clean(const char *what, const char *text)
{
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    if (allowlist_parse(what, text, strlen(text), &al, &err) < 0)
        fail_msg("%s does not parse: %s", what, err->msg);
    if (al->n_warnings > 0)
        fail_msg("%s: %s", what, al->warnings[0]);
    return al;
}

static bool has_name(const allowlist_t *al, const char *name)
{
    for (size_t i = 0; i < al->n_entries; i++)
        if (strcmp(al->entries[i].name, name) == 0 && !al->entries[i].wildcard)
            return true;
    return false;
}

static void shipped_as_is(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = default_text(&len);
    allowlist_t *al = parse_clean("the default", text);
    static const char *const want[] = { "api.anthropic.com", "platform.claude.com", "claude.ai",
                                        "downloads.claude.ai" };
    assert_int_equal(al->n_entries, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_true(has_name(al, want[i]));
    assert_int_equal(al->n_nets, 0);
    allowlist_free(al);
    free(text);
}

/* Appends the block that starts at `at` (its header line), uncommented, to
 * *out; returns where the block ends (a blank line or the end). */
static const char *uncomment_block(const char *at, char **out, size_t *n_hosts)
{
    size_t cap = strlen(*out) + strlen(at) + 1;
    *out = realloc(*out, cap);
    assert_non_null(*out);
    *n_hosts = 0;
    while (*at != '\0' && *at != '\n') {
        const char *eol = strchr(at, '\n');
        size_t len = eol != NULL ? (size_t)(eol - at) : strlen(at);
        if (strncmp(at, "##", 2) == 0) {
            strncat(*out, at, len);             /* a note: stays a comment */
        } else if (strncmp(at, "# ", 2) == 0) {
            strncat(*out, at + 2, len - 2);     /* a host line */
            (*n_hosts)++;
        } else {
            fail_msg("a line of an opt-in block that is neither a note nor a host: %.*s", (int)len, at);
        }
        strcat(*out, "\n");
        at += len + (eol != NULL);
    }
    return at;
}

static void each_block_uncommented_parses(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = default_text(&len);
    char *all = strdup(text);
    size_t blocks = 0;
    for (const char *at = strstr(text, "\n" HEADER); at != NULL; at = strstr(at, "\n" HEADER)) {
        at++;
        char *one = strdup("");
        size_t n_hosts = 0;
        const char *end = uncomment_block(at, &one, &n_hosts);
        uncomment_block(at, &all, &n_hosts);
        const char *eol = strchr(at, '\n');
        char what[128];
        snprintf(what, sizeof(what), "the block \"%.*s\"", (int)(eol - at - strlen(HEADER)),
                 at + strlen(HEADER));
        if (n_hosts == 0)
            fail_msg("%s has no host line", what);
        allowlist_t *al = parse_clean(what, one);
        assert_int_equal(al->n_entries, n_hosts);
        allowlist_free(al);
        free(one);
        blocks++;
        at = end;
    }
    assert_int_equal(blocks, 7);     /* GitHub, npm, PyPI, crates.io, Go modules, Maven Central, Gradle */
    allowlist_t *al = parse_clean("the default with every block", all);
    assert_true(has_name(al, "github.com") && has_name(al, "registry.npmjs.org") &&
                has_name(al, "files.pythonhosted.org") && has_name(al, "static.crates.io") &&
                has_name(al, "sum.golang.org"));
    allowlist_free(al);
    free(all);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_as_is),
        cmocka_unit_test(each_block_uncommented_parses),
    };
    return cmocka_run_group_tests_name("default_allowlist", tests, NULL, NULL);
}
