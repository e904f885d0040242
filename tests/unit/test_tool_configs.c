/* The table of files host tools read from a project directory
 * (lib/workspace/tool_configs.h, .table): docs/workspace-protection.md's
 * "The default set" holds exactly its rows, in its order; each row has a
 * source; the nested rows match copies deeper in the tree and nothing
 * else; the glob rows match their names at the top only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "workspace/tool_configs.h"

/* The rows of the document's table under "## The default set", one string
 * each (NULL-terminated array; the caller frees). */
static char **doc_rows(size_t *ret_n)
{
    FILE *f = fopen(AS_SOURCE_DIR "/docs/workspace-protection.md", "r");
    assert_non_null(f);
    char **rows = NULL, *line = NULL;
    size_t n = 0, cap = 0;
    int state = 0;                   /* 0 before the heading, 1 in the section, 2 in the table */
    while (getline(&line, &cap, f) >= 0) {
        line[strcspn(line, "\n")] = '\0';
        if (state == 0 && strcmp(line, "## The default set") == 0)
            state = 1;
        else if (state == 1 && strncmp(line, "| --- |", 7) == 0)
            state = 2;
        else if (state == 2 && line[0] != '|')
            break;
        else if (state == 2) {
            rows = realloc(rows, (n + 2) * sizeof(*rows));
            assert_non_null(rows);
            rows[n++] = strdup(line);
            rows[n] = NULL;
        }
    }
    free(line);
    fclose(f);
    *ret_n = n;
    return rows;
}

static void document_holds_the_table(void **state)
{
    (void)state;
    size_t nd = 0, nt = 0;
    char **rows = doc_rows(&nd);
    const tool_config_t *t = tool_configs(&nt);
    for (size_t i = 0; i < nt || i < nd; i++) {
        if (i >= nd)
            fail_msg("docs/workspace-protection.md lacks the row of %s (scripts/gen-tool-configs --markdown "
                     "lib/workspace/tool_configs.table writes the rows)", t[i].path);
        if (i >= nt)
            fail_msg("docs/workspace-protection.md has a row the table does not: %s", rows[i]);
        if (strcmp(rows[i], t[i].doc_row) != 0)
            fail_msg("row %zu differs:\n  document: %s\n  table:    %s", i + 1, rows[i], t[i].doc_row);
    }
    for (size_t i = 0; i < nd; i++)
        free(rows[i]);
    free(rows);
}

/* The rows are there, each with its tool's documentation. */
static void rows_have_sources(void **state)
{
    (void)state;
    size_t nt = 0;
    const tool_config_t *t = tool_configs(&nt);
    for (size_t i = 0; i < nt; i++)
        if (strncmp(t[i].source, "https://", 8) != 0 || t[i].reader[0] == '\0' || t[i].runs[0] == '\0')
            fail_msg("%s: a row without its source, reader or what it runs", t[i].path);
    static const char *const wanted[] = { "pnpm-workspace.yaml", "rust-toolchain", "rust-toolchain.toml", "pip.conf",
                                          ".hg/hgrc", ".hg/hgrc-not-shared", ".bazeliskrc", "mise.toml",
                                          ".mise.toml", ".mise/config.toml", "mise/config.toml", ".config/mise",
                                          "mise.*.toml", ".pdbrc" };
    for (size_t i = 0; i < ARRAY_SIZE(wanted); i++)
        if (tool_config_find(wanted[i]) == NULL)
            fail_msg("no row for %s", wanted[i]);
    assert_true(tool_config_find("pip.conf")->how & TOOL_VENV);
    assert_true(tool_config_find(".config/mise")->dir);
    assert_null(tool_config_find("README.md"));
}

static void nested_copies(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "web/.npmrc", "a/b/pnpm-workspace.yaml", "crate/rust-toolchain.toml", "x/.hg/hgrc-not-shared",
        "x/.cargo/config.toml", "sub/.config/mise/conf.d/a.toml", "vendor/x/_darcs/prefs/defaults",
        "sub/tools/bazel",
    };
    static const char *const no[] = {
        ".npmrc", "pnpm-workspace.yaml", "web/x.npmrc", "web/.npmrc/x", "mytools/bazel", "x/.cargo/config.tomlx",
        "x/.git/config", "sub/.config/miser", "a/.vscode/tasks.json",
    };
    for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
        if (tool_config_nested(yes[i]) == NULL)
            fail_msg("not a nested copy: %s", yes[i]);
    for (size_t i = 0; i < ARRAY_SIZE(no); i++)
        if (tool_config_nested(no[i]) != NULL)
            fail_msg("a nested copy: %s", no[i]);
}

static void globs_at_the_top(void **state)
{
    (void)state;
    assert_non_null(tool_config_glob("mise.ci.toml"));
    assert_non_null(tool_config_glob(".mise.prod.local.toml"));
    assert_null(tool_config_glob("mise.toml"));          /* its own row; * matches one character or more */
    assert_null(tool_config_glob("sub/mise.ci.toml"));
    assert_null(tool_config_glob("mise.ci.tom"));
    assert_null(tool_config_glob("xmise.ci.toml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(document_holds_the_table),
        cmocka_unit_test(rows_have_sources),
        cmocka_unit_test(nested_copies),
        cmocka_unit_test(globs_at_the_top),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
