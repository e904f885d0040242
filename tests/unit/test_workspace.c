/* Workspace protection: the rules from the defaults and both files, then the
 * plan, the placeholders, the lock and the end-of-session report on real
 * directories (made next to the test binary and removed afterwards). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "real_tree.h"
#include "base/util.h"
#include "session/agent_spec.h"
#include "session/session_plan.h"
#include "workspace/tool_configs.h"
#include "workspace/workspace.h"
#include "workspace/workspace_int.h"

#define HOME "/home/u"
#define LAUNCH "/home/u/src/p"
#define USER_FILE HOME "/.config/agent-sandbox/protected-paths"
#define USER_FILE_SHOWN "~/.config/agent-sandbox/protected-paths"
#define PROJECT_FILE LAUNCH "/" WORKSPACE_PROJECT_FILE

/* ---- helpers ----------------------------------------------------------- */

static const workspace_rule_t *rule(const workspace_rules_t *r, const char *path)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].path, path) == 0)
            return &r->v[i];
    return NULL;
}

static workspace_rules_t *build_ok(const char *user, const char *project)
{
    workspace_config_t cfg = {
        .launch_dir = LAUNCH, .home = HOME, .user_file = USER_FILE, .project_file = PROJECT_FILE,
        .user_text = user, .user_len = user ? strlen(user) : 0,
        .project_text = project, .project_len = project ? strlen(project) : 0,
    };
    workspace_rules_t *r = NULL;
    as_error_t *err = NULL;
    int rc = workspace_rules_build(&cfg, &r, &err);
    if (rc < 0)
        fail_msg("workspace_rules_build: %s", err->msg);
    return r;
}

/* Builds, expects a refusal, returns its message (caller frees). */
static char *build_fails(const char *user, size_t user_len, const char *project)
{
    workspace_config_t cfg = {
        .launch_dir = LAUNCH, .home = HOME, .user_file = USER_FILE, .project_file = PROJECT_FILE,
        .user_text = user, .user_len = user_len,
        .project_text = project, .project_len = project ? strlen(project) : 0,
    };
    workspace_rules_t *r = NULL;
    as_error_t *err = NULL;
    assert_int_equal(workspace_rules_build(&cfg, &r, &err), -WORKSPACE_EBADCONFIG);
    assert_null(r);
    assert_non_null(err);
    assert_int_equal(err->code, WORKSPACE_EBADCONFIG);
    char *msg = strdup(err->msg);
    as_error_free(&err);
    return msg;
}

/* ---- the rules --------------------------------------------------------- */

static void defaults_without_files(void **state)
{
    (void)state;
    workspace_rules_t *r = build_ok(NULL, NULL);
    /* Every frozen or if-exists row of the table is a default, no other path. */
    size_t nt = 0, n = 0;
    const tool_config_t *t = tool_configs(&nt);
    for (size_t i = 0; i < nt; i++) {
        if (!(t[i].how & (TOOL_FROZEN | TOOL_IF_EXISTS)))
            continue;
        const workspace_rule_t *x = rule(r, t[i].path);
        if (x == NULL)
            fail_msg("%s: a row of the table, not a default", t[i].path);
        assert_int_equal(x->dir, t[i].dir);
        assert_int_equal(x->if_exists, (t[i].how & TOOL_IF_EXISTS) != 0);
        assert_string_equal(x->origin, "default");
        n++;
    }
    assert_int_equal(r->n, n);
    /* a few by name: the issue's rows among them */
    static const char *const frozen[] = { ".git/config", ".git/hooks", ".envrc", ".npmrc", ".pnpmfile.cjs",
                                          ".hg/hgrc", ".hg/hgrc-not-shared", ".cargo", ".claude" };
    static const char *const if_exists[] = { ".git/commondir", "gradle/wrapper", "pnpm-workspace.yaml",
                                             "rust-toolchain", "rust-toolchain.toml", ".bazeliskrc",
                                             "tools/bazel", "mise.toml", ".mise/config.toml", "mise/config.toml",
                                             ".config/mise", ".hg/sharedpath", ".pdbrc", ".gemini" };
    for (size_t i = 0; i < ARRAY_SIZE(frozen); i++)
        assert_false(rule(r, frozen[i])->if_exists);
    for (size_t i = 0; i < ARRAY_SIZE(if_exists); i++)
        assert_true(rule(r, if_exists[i])->if_exists);
    assert_true(rule(r, ".cargo")->dir);
    assert_null(rule(r, "pip.conf"));                 /* a venv row: no protected path */
    assert_null(rule(r, "mise.*.toml"));              /* a glob row */
    assert_null(rule(r, ".cargo/config.toml"));       /* nested only: .cargo covers it */
    assert_null(rule(r, WORKSPACE_PROJECT_FILE));     /* only when the project has one */
    workspace_rules_free(r);
    workspace_rules_free(NULL);
}

static void user_file_adds_and_trims(void **state)
{
    (void)state;
    workspace_rules_t *r = build_ok("# my additions\r\n"
                                    ".tox/\r\n"
                                    "!.idea/\n"
                                    "\n"
                                    "   build/hooks/x   # a comment\n"
                                    "!   .husky\n"
                                    "c#sharp\n"
                                    "with space/file\t\n"
                                    ".envrc/\n"
                                    "!not-there\n", NULL);
    const workspace_rule_t *x = rule(r, ".tox");
    assert_non_null(x);
    assert_true(x->dir);
    assert_string_equal(x->origin, USER_FILE_SHOWN ":2");
    assert_null(rule(r, ".idea"));           /* "!" removes, with or without the slash */
    assert_null(rule(r, ".husky"));
    x = rule(r, "build/hooks/x");
    assert_non_null(x);
    assert_false(x->dir);
    assert_string_equal(x->origin, USER_FILE_SHOWN ":5");
    assert_non_null(rule(r, "c#sharp"));     /* "#" inside a path is part of it */
    assert_non_null(rule(r, "with space/file"));
    x = rule(r, ".envrc");                   /* listed again: the later line wins */
    assert_true(x->dir);
    assert_string_equal(x->origin, USER_FILE_SHOWN ":9");
    workspace_rules_free(r);
}

static void sections_apply_to_their_directory_only(void **state)
{
    (void)state;
    workspace_rules_t *r = build_ok("global\n"
                                    "[~/src/p]\n"
                                    "!.vscode/\n"
                                    "local/\n"
                                    "[/home/u/src/other]\n"
                                    "other-only\n"
                                    "!.claude/\n"
                                    "[ /home/u/src/./p/ ]   # same directory, spelled differently\n"
                                    "again\n"
                                    "[~/src/p/sub]\n"
                                    "sub-only\n", NULL);
    assert_non_null(rule(r, "global"));
    assert_null(rule(r, ".vscode"));
    assert_non_null(rule(r, "local"));
    assert_null(rule(r, "other-only"));
    assert_non_null(rule(r, ".claude"));
    assert_non_null(rule(r, "again"));
    assert_null(rule(r, "sub-only"));        /* not below: exactly the directory */
    workspace_rules_free(r);
}

static void section_lines_are_checked_even_when_not_applied(void **state)
{
    (void)state;
    const char *text = "[/elsewhere]\n/abs\n";
    char *msg = build_fails(text, strlen(text), NULL);
    real_assert_contains(msg, USER_FILE_SHOWN ":2: \"/abs\": an absolute path");
    free(msg);
}

static void syntax_errors_name_file_line_and_rule(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *where;
        const char *problem;
    } cases[] = {
        { "/etc/passwd\n", ":1: \"/etc/passwd\"", "an absolute path" },
        { "ok\n~/x\n", ":2: \"~/x\"", "a ~ path" },
        { "a//b\n", ":1: \"a//b\"", "an empty component" },
        { "a/../b\n", ":1: \"a/../b\"", "a . or .. component" },
        { "./a\n", ":1: \"./a\"", "a . or .. component" },
        { "..\n", ":1: \"..\"", "a . or .. component" },
        { "*.json\n", ":1: \"*.json\"", "wildcards are not supported" },
        { ".claude/settings?.json\n", ":1:", "wildcards are not supported" },
        { "!\n", ":1: \"!\"", "nothing after the !" },
        { "a\033[31mb\n", ":1: \"a\\x1b[31mb\"", "a control character (0x1b)" },
        { "[~/src/\tp]\n", ":1:", "a tab in the section header" },
        { "[~/src/p\n", ":1:", "without its closing ]" },
        { "[src/p]\n", ":1:", "a relative section header" },
        { "[~bob/p]\n", ":1:", "the ~user/ form is not supported" },
        { "[~]\n", ":1:", "a bare ~" },
        { "[~//]\n", ":1:", "nothing after ~/" },
        { "[]\n", ":1:", "an empty section header" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *msg = build_fails(cases[i].text, strlen(cases[i].text), NULL);
        real_assert_contains(msg, "refusing to launch from ~/src/p: " USER_FILE_SHOWN);
        real_assert_contains(msg, cases[i].where);
        real_assert_contains(msg, cases[i].problem);
        real_assert_contains(msg, "[rule: protected-paths-syntax]");
        real_assert_contains(msg, "fix or remove that line in " USER_FILE_SHOWN);
        free(msg);
    }
    static const char nul[] = "fine\nbad\0byte\n";
    char *msg = build_fails(nul, sizeof(nul) - 1, NULL);
    real_assert_contains(msg, ":2: \"bad\\x00byte\": a NUL byte; a config file is text");
    free(msg);
}

static void project_file_only_adds(void **state)
{
    (void)state;
    workspace_rules_t *r = build_ok("!.idea/\n", "# our own\ntools/hooks/\n.envrc\n");
    const workspace_rule_t *x = rule(r, "tools/hooks");
    assert_non_null(x);
    assert_true(x->dir);
    assert_string_equal(x->origin, "~/src/p/.agent-sandbox/protected-paths:2");
    assert_null(rule(r, ".idea"));
    x = rule(r, WORKSPACE_PROJECT_FILE);     /* protects itself */
    assert_non_null(x);
    assert_false(x->dir);
    workspace_rules_free(r);

    /* It can add back what the user removed: adding is always safe. */
    r = build_ok("!.idea/\n", ".idea/\n");
    assert_non_null(rule(r, ".idea"));
    workspace_rules_free(r);

    char *msg = build_fails(NULL, 0, "extra\n!.vscode/\n");
    real_assert_contains(msg, "~/src/p/.agent-sandbox/protected-paths:2: \"!.vscode/\": a ! line");
    real_assert_contains(msg, "[rule: project-file-adds-only]");
    real_assert_contains(msg, "add a section \"[~/src/p]\" with your lines to " USER_FILE_SHOWN);
    free(msg);
    msg = build_fails(NULL, 0, "[~/src/p]\n");
    real_assert_contains(msg, "a section header");
    real_assert_contains(msg, "[rule: project-file-adds-only]");
    free(msg);
    msg = build_fails(NULL, 0, "/etc/x\n");
    real_assert_contains(msg, "[rule: protected-paths-syntax]");
    real_assert_lacks(msg, "section header");     /* not offered in the project's file */
    free(msg);
}

static void at_most_max_paths(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    for (int i = 0; i < WORKSPACE_MAX_PATHS; i++)
        fprintf(f, "p%d\n", i);
    fclose(f);
    workspace_rules_t *r = build_ok(NULL, NULL);
    size_t defaults = r->n;
    workspace_rules_free(r);
    char *msg = build_fails(text, len, NULL);
    char where[32];
    snprintf(where, sizeof(where), ":%zu: \"p%zu\"", WORKSPACE_MAX_PATHS - defaults + 1,
             WORKSPACE_MAX_PATHS - defaults);
    real_assert_contains(msg, where);
    real_assert_contains(msg, "[rule: too-many-protected-paths]");
    free(msg);
    free(text);
}

/* ---- real directories -------------------------------------------------- */

static void make(const struct real *r, const char *spec, const char *content)
{
    real_make(r, spec, content, false);
}


static workspace_rules_t *rules_of(const struct real *r, const char *user)
{
    char user_file[PATH_MAX * 2];
    snprintf(user_file, sizeof(user_file), "%s/.config/agent-sandbox/protected-paths", r->home);
    workspace_config_t cfg = { .launch_dir = r->launch, .home = r->home, .user_file = user_file,
                               .user_text = user, .user_len = user ? strlen(user) : 0 };
    workspace_rules_t *rules = NULL;
    as_error_t *err = NULL;
    if (workspace_rules_build(&cfg, &rules, &err) < 0)
        fail_msg("rules: %s", err->msg);
    return rules;
}

/* Only the given rules (no defaults): the user's file trims them all. */
static workspace_rules_t *only(const struct real *r, const char *lines)
{
    workspace_rules_t *defaults = rules_of(r, NULL);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    for (size_t i = 0; i < defaults->n; i++)
        fprintf(f, "!%s\n", defaults->v[i].path);
    fputs(lines, f);
    fclose(f);
    workspace_rules_free(defaults);
    workspace_rules_t *rules = rules_of(r, text);
    free(text);
    return rules;
}

static workspace_t *plan(const struct real *r, workspace_rules_t *rules)
{
    workspace_t *ws = NULL;
    as_error_t *err = NULL;
    /* what the test made so far is older than the start by a clock tick or
     * more, as in a real session (workspace_int.h, `started`) */
    usleep(20 * 1000);
    if (workspace_plan(r->launch, r->home, rules, &ws, &err) < 0)
        fail_msg("plan: %s", err->msg);
    return ws;
}

static const workspace_mount_t *mount_of(const workspace_t *ws, const char *rel)
{
    for (size_t i = 0; i < ws->n_mounts; i++)
        if (strcmp(ws->mounts[i].rel, rel) == 0)
            return &ws->mounts[i];
    return NULL;
}

static void assert_mount(const workspace_t *ws, const char *rel, workspace_mount_kind_t kind,
                         bool placeholder, bool dir)
{
    const workspace_mount_t *m = mount_of(ws, rel);
    if (m == NULL)
        fail_msg("no mount for %s", rel);
    assert_int_equal(m->kind, kind);
    assert_int_equal(m->placeholder, placeholder);
    assert_int_equal(m->dir, dir);
    assert_true(strlen(m->path) > strlen(ws->launch_dir) &&
                strncmp(m->path, ws->launch_dir, strlen(ws->launch_dir)) == 0);
    assert_string_equal(m->path + strlen(ws->launch_dir) + 1, rel);
}

static bool has_note(const workspace_t *ws, const char *needle)
{
    for (size_t i = 0; i < ws->n_notes; i++)
        if (strstr(ws->notes[i], needle) != NULL)
            return true;
    return false;
}

static void plan_of_a_git_checkout(void **state)
{
    struct real *r = *state;
    make(r, ".git/hooks/pre-commit.sample", "#!/bin/sh\n");
    make(r, ".git/config", "[core]\n");
    make(r, ".vscode/settings.json", "{}");
    workspace_t *ws = plan(r, rules_of(r, NULL));
    assert_mount(ws, ".git", WORKSPACE_PIN, false, true);
    assert_mount(ws, ".git/config", WORKSPACE_READ_ONLY, false, false);
    assert_mount(ws, ".git/hooks", WORKSPACE_READ_ONLY, false, true);
    assert_mount(ws, ".git/config.worktree", WORKSPACE_READ_ONLY, true, false);
    assert_mount(ws, ".git/modules", WORKSPACE_READ_ONLY, true, true);
    assert_mount(ws, ".vscode", WORKSPACE_READ_ONLY, false, true);
    /* outside .git a missing file is stood in for by a directory: git ignores it */
    assert_mount(ws, ".envrc", WORKSPACE_READ_ONLY, true, true);
    assert_mount(ws, ".mcp.json", WORKSPACE_READ_ONLY, true, true);
    assert_mount(ws, ".claude", WORKSPACE_READ_ONLY, true, true);
    assert_null(mount_of(ws, ".vscode/settings.json"));   /* inside .vscode: covered */
    assert_int_equal(ws->n_notes, 0);
    /* parents before children, so podman mounts the pin first */
    for (size_t i = 1; i < ws->n_mounts; i++) {
        size_t a = 0, b = 0;
        for (const char *c = ws->mounts[i - 1].path; *c; c++)
            a += *c == '/';
        for (const char *c = ws->mounts[i].path; *c; c++)
            b += *c == '/';
        assert_true(a <= b);
    }
    /* planning changes nothing on disk */
    assert_false(real_exists(r, ".envrc"));
    assert_false(real_exists(r, ".git/modules"));

    char *text = NULL;
    as_error_t *err = NULL;
    assert_int_equal(workspace_describe(ws, &text, &err), 0);
    real_assert_contains(text, "pin:     .git/ (read-write, cannot be renamed or removed)");
    real_assert_contains(text, "protect: .git/config (read-only)");
    real_assert_contains(text, "protect: .git/hooks/ (read-only)");
    real_assert_contains(text, "protect: .envrc/ (missing: an empty directory stands in for the session)");
    real_assert_contains(text, "protect: .git/config.worktree (missing: an empty file stands in for the session)");
    real_assert_contains(text, "protect: .claude/ (missing: an empty directory stands in for the session)");
    free(text);
    workspace_free(ws);
}

static void plan_first_missing_component_and_non_directories(void **state)
{
    struct real *r = *state;
    make(r, ".git", "gitdir: /elsewhere/.git/worktrees/p\n");   /* a linked worktree */
    make(r, "deep/", NULL);
    workspace_t *ws = plan(r, only(r, ".git/config\n.git/hooks/\na/b/c\ndeep/er/file\n"));
    /* .git is a file: it is what gets frozen, once, for both rules */
    assert_mount(ws, ".git", WORKSPACE_READ_ONLY, false, false);
    assert_null(mount_of(ws, ".git/config"));
    /* a missing parent: the placeholder is the first missing component */
    assert_mount(ws, "a", WORKSPACE_READ_ONLY, true, true);
    assert_mount(ws, "deep/er", WORKSPACE_READ_ONLY, true, true);
    assert_mount(ws, "deep", WORKSPACE_PIN, false, true);
    assert_int_equal(ws->n_mounts, 4);
    workspace_free(ws);
}

static void plan_covered_paths_are_dropped(void **state)
{
    struct real *r = *state;
    make(r, ".git/config", "");
    make(r, ".git/hooks/", NULL);
    workspace_t *ws = plan(r, only(r, ".git/config\n.git/\n.git/hooks/\nx/y\nx/\n"));
    assert_mount(ws, ".git", WORKSPACE_READ_ONLY, false, true);
    assert_mount(ws, "x", WORKSPACE_READ_ONLY, true, true);
    assert_int_equal(ws->n_mounts, 2);
    workspace_free(ws);
}

static void plan_through_symlinks(void **state)
{
    struct real *r = *state;
    make(r, "tools/hooks/", NULL);
    make(r, ".git/hooks -> ../tools/hooks", NULL);     /* inside: its target is frozen */
    make(r, ".envrc -> /etc/passwd", NULL);            /* outside: nothing to mount */
    make(r, ".vscode -> not-yet", NULL);               /* dangling, inside: a placeholder there */
    make(r, ".idea -> .idea", NULL);                   /* a loop */
    workspace_t *ws = plan(r, only(r, ".git/hooks/\n.envrc\n.vscode/\n.idea/\n"));
    assert_mount(ws, "tools/hooks", WORKSPACE_READ_ONLY, false, true);
    assert_mount(ws, "tools", WORKSPACE_PIN, false, true);
    assert_mount(ws, "not-yet", WORKSPACE_READ_ONLY, true, true);
    assert_null(mount_of(ws, ".envrc"));
    assert_null(mount_of(ws, ".git/hooks"));
    assert_null(mount_of(ws, ".idea"));
    assert_int_equal(ws->n_mounts, 3);
    assert_true(has_note(ws, ".git/hooks is a symlink: what it points to is read-only inside"));
    assert_true(has_note(ws, ".envrc is a symlink to a place outside the launch directory"));
    assert_true(has_note(ws, "a link on the way that the agent re-points is put back at the end"));
    assert_true(has_note(ws, ".idea/ leads through more than"));
    workspace_free(ws);
}

static void plan_freezes_what_yarn_configs_name(void **state)
{
    struct real *r = *state;
    make(r, ".yarnrc.yml", "nodeLinker: pnp\r\nyarnPath: '.yarn/releases/yarn-4.cjs'\nplugins:\n"
                           "  - path: .yarn/plugins/p.cjs\n    spec: x\n  - path: /abs/outside.cjs\n");
    make(r, ".yarnrc", "yarn-path \"tools/yarn.js\"\n");
    make(r, ".yarn/releases/yarn-4.cjs", "x");
    make(r, ".yarn/plugins/p.cjs", "x");
    make(r, "tools/yarn.js", "x");
    workspace_t *ws = plan(r, only(r, ".yarnrc.yml\n"));
    assert_mount(ws, ".yarnrc.yml", WORKSPACE_READ_ONLY, false, false);
    assert_mount(ws, ".yarn/releases/yarn-4.cjs", WORKSPACE_READ_ONLY, false, false);
    assert_mount(ws, ".yarn/plugins/p.cjs", WORKSPACE_READ_ONLY, false, false);
    assert_mount(ws, "tools/yarn.js", WORKSPACE_READ_ONLY, false, false);
    assert_mount(ws, ".yarn", WORKSPACE_PIN, false, true);
    workspace_free(ws);
    /* named but missing: nothing to freeze, no placeholder */
    make(r, ".yarnrc", "yarn-path missing.js\n");
    ws = plan(r, only(r, ""));
    assert_null(mount_of(ws, "missing.js"));
    workspace_free(ws);
}

/* pnpm's hooks file named in pnpm-workspace.yaml or .npmrc, and the hgrc of
 * a Mercurial share's store in the tree, are frozen where they exist. */
static void plan_freezes_what_pnpm_and_hg_shares_name(void **state)
{
    struct real *r = *state;
    make(r, "pnpm-workspace.yaml", "packages:\n  - 'pkgs/*'\npnpmfile: lib/hooks.cjs\n");
    make(r, ".npmrc", "pnpmfile=tools/other.cjs\n");
    make(r, "lib/hooks.cjs", "x");
    make(r, "tools/other.cjs", "x");
    char shared[PATH_MAX * 3];
    snprintf(shared, sizeof(shared), "%s/store/.hg\n", r->launch);
    make(r, ".hg/sharedpath", shared);
    make(r, "store/.hg/hgrc", "[ui]\n");
    workspace_t *ws = plan(r, only(r, ""));
    assert_mount(ws, "lib/hooks.cjs", WORKSPACE_READ_ONLY, false, false);
    assert_mount(ws, "tools/other.cjs", WORKSPACE_READ_ONLY, false, false);
    assert_mount(ws, "store/.hg/hgrc", WORKSPACE_READ_ONLY, false, false);
    workspace_free(ws);
}

static void placeholders_live_for_the_session_only(void **state)
{
    struct real *r = *state;
    make(r, ".git/config", "[core]\n");
    workspace_t *ws = plan(r, rules_of(r, NULL));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    assert_true(real_exists(r, ".envrc"));
    assert_true(real_exists(r, ".vscode"));
    assert_true(real_exists(r, ".git/config.worktree"));
    const workspace_mount_t *m = mount_of(ws, ".git/config.worktree");
    assert_true(m->created);
    struct stat st;
    assert_int_equal(lstat(m->path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_size, 0);
    assert_int_equal(lstat(mount_of(ws, ".vscode")->path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(lstat(mount_of(ws, ".envrc")->path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));

    char *report = (char *)"unset";
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    assert_null(report);                     /* nothing changed */
    assert_false(real_exists(r, ".envrc"));
    assert_false(real_exists(r, ".vscode"));
    assert_false(real_exists(r, ".git/config.worktree"));
    assert_true(real_exists(r, ".git/config"));   /* never ours */
    workspace_free(ws);
}

static void set_mode(const struct real *r, const char *rel, mode_t mode);

/* The after-state taken early (once the agent exited, during teardown):
 * the placeholders it saw and that were removed since are not news; one
 * written on the host is. */
static void early_after_state_leaves_out_our_placeholders(void **state)
{
    struct real *r = *state;
    make(r, ".git/config", "[core]\n");
    workspace_t *ws = plan(r, rules_of(r, NULL));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    make(r, "tool", "#!/bin/sh\n");
    set_mode(r, "tool", 0755);
    make(r, ".vscode/tasks.json", "{}");                   /* written on the host */
    assert_int_equal(workspace_end_start(ws, &err), 0);
    char *report = NULL;
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    real_assert_contains(report, "  tool: new or changed, executable\n");
    real_assert_contains(report, "  .vscode/tasks.json: created (protected)\n");
    real_assert_lacks(report, ".envrc");
    real_assert_lacks(report, "config.worktree");
    assert_false(real_exists(r, ".envrc"));
    free(report);
    workspace_free(ws);
}

static void placeholders_written_on_the_host_are_kept(void **state)
{
    struct real *r = *state;
    make(r, ".git/", NULL);
    workspace_t *ws = plan(r, only(r, ".git/config.worktree\n.vscode/\n.idea/\n"));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    make(r, ".git/config.worktree", "[x]\n");   /* the user, on the host, meanwhile */
    make(r, ".vscode/tasks.json", "{}");
    char *report = NULL;
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    assert_true(real_exists(r, ".git/config.worktree"));
    assert_true(real_exists(r, ".vscode/tasks.json"));
    assert_false(real_exists(r, ".idea"));
    real_assert_contains(report, "left in place, the placeholders made for the session: .vscode, .git/config.worktree");
    real_assert_contains(report, "no longer empty");
    real_assert_contains(report, "  .git/config.worktree: created (protected)");
    real_assert_contains(report, "  .vscode/tasks.json: created (protected)");
    free(report);
    workspace_free(ws);
}

static void placeholders_stay_while_the_sandbox_may_run(void **state)
{
    struct real *r = *state;
    workspace_t *ws = plan(r, only(r, ".envrc\n"));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    char *report = NULL;
    assert_int_equal(workspace_end(ws, false, &report, NULL, &err), 0);
    assert_true(real_exists(r, ".envrc"));
    real_assert_contains(report, "the sandbox may still be running");
    free(report);
    workspace_free(ws);

    /* The next session removes it (empty and marked), and makes its own. */
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/.envrc", r->launch);
    bool marked = lgetxattr(path, "user.agent-sandbox.placeholder", NULL, 0) >= 0;
    ws = plan(r, only(r, ".envrc\n"));
    assert_mount(ws, ".envrc", WORKSPACE_READ_ONLY, false, true);    /* as it is now */
    assert_int_equal(workspace_begin(ws, &err), 0);
    if (marked) {
        assert_mount(ws, ".envrc", WORKSPACE_READ_ONLY, true, true);
        assert_true(mount_of(ws, ".envrc")->created);
    }
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    assert_null(report);
    assert_int_equal(real_exists(r, ".envrc"), !marked);
    workspace_free(ws);
    if (!marked)
        print_message("no user xattrs here: the sweep of left placeholders was not exercised\n");
}

static void a_marked_file_with_content_is_never_removed(void **state)
{
    struct real *r = *state;
    make(r, ".envrc", "real content\n");
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/.envrc", r->launch);
    if (setxattr(path, "user.agent-sandbox.placeholder", "1", 1, 0) < 0)
        skip();
    workspace_t *ws = plan(r, only(r, ".envrc\n"));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    assert_false(mount_of(ws, ".envrc")->placeholder);
    char *report = NULL;
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    assert_null(report);
    assert_true(real_exists(r, ".envrc"));
    workspace_free(ws);
}

static void report_names_what_changed(void **state)
{
    struct real *r = *state;
    make(r, ".git/config", "[core]\n");
    make(r, ".git/hooks/", NULL);
    make(r, ".git/objects/ab/cdef", "blob");
    make(r, "tool", "#!/bin/sh\n");
    make(r, "old.sh", "#!/bin/sh\n");
    make(r, "kept.sh", "#!/bin/sh\n");
    make(r, "src/main.c", "int main;\n");
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/old.sh", r->launch);
    chmod(path, 0755);
    snprintf(path, sizeof(path), "%s/kept.sh", r->launch);
    chmod(path, 0755);

    workspace_t *ws = plan(r, rules_of(r, NULL));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    /* what some other route than the sandbox's mounts could do */
    make(r, ".git/config", "[core]\n\tfsmonitor = evil\n");
    make(r, ".git/commondir", "../elsewhere\n");
    make(r, "sub/.git/hooks/post-checkout", "#!/bin/sh\n");
    make(r, "sub/.envrc", "evil\n");
    make(r, "run.sh", "#!/bin/sh\n");
    snprintf(path, sizeof(path), "%s/run.sh", r->launch);
    chmod(path, 0700);
    snprintf(path, sizeof(path), "%s/tool", r->launch);
    chmod(path, 0755);                       /* made executable */
    snprintf(path, sizeof(path), "%s/old.sh", r->launch);
    unlink(path);                            /* an executable gone: harmless */
    make(r, "src/main.c", "int main(void);\n");   /* not executable: not reported */
    make(r, ".git/objects/ab/0123", "blob");

    char *report = NULL;
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    assert_non_null(report);
    real_assert_contains(report, "files that can run on this machine changed in ");
    real_assert_contains(report, "  .git/config: changed (protected)\n");
    real_assert_contains(report, "  .git/commondir: created (protected)\n");
    /* listed once: disabled, below */
    real_assert_lacks(report, "  sub/.envrc: created");
    real_assert_contains(report, "  sub/.git/hooks/post-checkout: created (a copy of a protected path)\n");
    real_assert_contains(report, "  run.sh: new or changed, executable\n");
    real_assert_contains(report, "  tool: made executable\n");
    real_assert_contains(report, "Look at them before you run git");
    real_assert_lacks(report, "old.sh");
    real_assert_lacks(report, "kept.sh");
    real_assert_lacks(report, "main.c");
    real_assert_lacks(report, "objects");
    real_assert_lacks(report, "partial");
    /* protected first, then watched, copies, executables */
    assert_true(strstr(report, ".git/config:") < strstr(report, "sub/.git/hooks/post-checkout: created"));
    /* a nested copy of a tool config is disabled, and said so first */
    real_assert_contains(report, "  sub/.envrc: a tool config the tool obeys when run in that directory; moved to "
                            "sub/.envrc.agent-sandbox-disabled\n");
    assert_true(strstr(report, "DISABLED") < strstr(report, "files that can run"));
    assert_true(strstr(report, "sub/.git/hooks/post-checkout:") < strstr(report, "run.sh:"));
    free(report);
    workspace_free(ws);
}

static void set_mode(const struct real *r, const char *rel, mode_t mode)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s%s%s", r->launch, strcmp(rel, ".") == 0 ? "" : "/",
             strcmp(rel, ".") == 0 ? "" : rel);
    assert_int_equal(chmod(path, mode), 0);
}

/* The links end_disables_what_host_tools_would_run() planted, after: the
 * one on the way put back, the one out of the tree made a note. */
static void links_as_disabled(const struct real *r)
{
    char path[PATH_MAX * 2], buf[64];
    snprintf(path, sizeof(path), "%s/.githooks", r->launch);
    ssize_t l = readlink(path, buf, sizeof(buf) - 1);
    assert_true(l > 0);
    buf[l] = '\0';
    assert_string_equal(buf, "tools/hooks");
    snprintf(path, sizeof(path), "%s/lock.json", r->launch);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
}

/* What the session planted for host git and host tools is disabled at the
 * end; what was there before, unchanged, and a plain clone stay. */
static void end_disables_what_host_tools_would_run(void **state)
{
    struct real *r = *state;
    static const char clone_config[] = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
                                       "\tbare = false\n\tlogallrefupdates = true\n"
                                       "[remote \"origin\"]\n\turl = /x/y\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
                                       "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n";
    make(r, "old/.git/HEAD", "ref: refs/heads/main\n");          /* the user's own nested repository */
    make(r, "old/.git/objects/", NULL);
    make(r, "old/.git/refs/", NULL);
    make(r, "old/.git/config", "[core]\n\tfsmonitor = the-users-own\n");
    char tmpl[PATH_MAX * 2];                                       /* the user's hooks, outside */
    snprintf(tmpl, sizeof(tmpl), "%s/tmpl", r->home);
    assert_int_equal(mkdir(tmpl, 0755), 0);
    strcat(tmpl, "/pre-commit");
    close(open(tmpl, O_WRONLY | O_CREAT | O_CLOEXEC, 0755));
    make(r, "old/.git/hooks -> ../../../home/tmpl", NULL);
    make(r, "tools/hooks/", NULL);
    make(r, ".git/HEAD", "ref: refs/heads/main\n");
    make(r, ".git/objects/ab/", NULL);
    make(r, ".git/refs/", NULL);
    make(r, ".git/config", "[core]\n");
    make(r, ".githooks -> tools/hooks", NULL);
    make(r, ".git/hooks -> ../.githooks", NULL);
    workspace_t *ws = plan(r, rules_of(r, NULL));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    assert_int_equal(ws->n_links, 2);

    make(r, "bare/HEAD", "ref: refs/heads/main\n");              /* a bare-shaped directory */
    make(r, "bare/objects/", NULL);
    make(r, "bare/refs/", NULL);
    make(r, "bare/config", "[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch /tmp/x\n");
    make(r, "clone/.git/HEAD", "ref: refs/heads/main\n");        /* a plain clone */
    make(r, "clone/.git/objects/", NULL);
    make(r, "clone/.git/refs/", NULL);
    make(r, "clone/.git/config", clone_config);
    make(r, "clone/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
    make(r, "hooked/.git/HEAD", "ref: refs/heads/main\n");
    make(r, "hooked/.git/objects/", NULL);
    make(r, "hooked/.git/refs/", NULL);
    make(r, "hooked/.git/hooks/post-index-change", "#!/bin/sh\n");
    make(r, "wt/.git", "gitdir: /somewhere/else\n");             /* a .git file out of the tree */
    make(r, "old/.git/commondir", "../../bare\n");                /* an old repository re-pointed */
    make(r, "lock.json -> ../home/.bashrc", NULL);                /* a link out of the tree */
    make(r, "inside -> tools", NULL);
    make(r, ".git/objects/hk/pre-commit", "#!/bin/sh\n");         /* not an old loose-object dir */
    set_mode(r, ".git/objects/hk/pre-commit", 0755);
    make(r, "vendor/.git/objects/ab/evil", "#!/bin/sh\n");        /* a fake .git */
    set_mode(r, "vendor/.git/objects/ab/evil", 0755);
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/.githooks", r->launch);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink(".git/objects/hk", path), 0);       /* a link on the way, re-pointed */

    char *report = NULL;
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    real_assert_contains(report, "for host tools to run was DISABLED:\n");
    real_assert_contains(report, "  bare/config: a git config with core.fsmonitor, which a plain git init or "
                            "clone never writes; moved to bare/config.agent-sandbox-disabled\n");
    real_assert_contains(report, "  hooked/.git/hooks/post-index-change: a git hook; moved to ");
    real_assert_contains(report, "  wt/.git: a .git file naming a git directory outside the launch directory");
    real_assert_contains(report, "  lock.json: a symlink made or re-pointed during the session, to ../home/.bashrc, "
                            "outside the launch directory; now a file that names its target\n");
    real_assert_contains(report, "  .githooks: a symlink on the way to the protected .git/hooks, re-pointed during "
                            "the session; put back to tools/hooks (the session's version is "
                            ".githooks.agent-sandbox-disabled)\n");
    real_assert_contains(report, "  .git/objects/hk/pre-commit: new or changed, executable\n");
    real_assert_contains(report, "  vendor/.git/objects/ab/evil: new or changed, executable\n");
    static const char *const kept[] = { "clone/.git/config: a git config", "clone/.git/hooks/pre-commit.sample",
                                        "inside", "old/.git/config: a git config", "old/.git/hooks" };
    for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
        real_assert_lacks(report, kept[i]);
    /* the re-pointed old repository's config is the bare one: disabled above */
    assert_true(real_exists(r, "bare/config.agent-sandbox-disabled") && !real_exists(r, "bare/config"));
    assert_true(real_exists(r, "clone/.git/config") && real_exists(r, "old/.git/config"));
    assert_int_equal(access(tmpl, F_OK), 0);                        /* never touched */
    links_as_disabled(r);
    free(report);
    workspace_free(ws);
}

static void make_repo(const struct real *r, const char *dir, const char *config)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/HEAD", dir);
    make(r, p, "ref: refs/heads/main\n");
    snprintf(p, sizeof(p), "%s/objects/", dir);
    make(r, p, NULL);
    snprintf(p, sizeof(p), "%s/refs/", dir);
    make(r, p, NULL);
    snprintf(p, sizeof(p), "%s/config", dir);
    make(r, p, config);
}

static mode_t mode_of(const struct real *r, const char *rel)
{
    char path[PATH_MAX * 2];
    struct stat st;
    snprintf(path, sizeof(path), "%s%s%s", r->launch, strcmp(rel, ".") == 0 ? "" : "/",
             strcmp(rel, ".") == 0 ? "" : rel);
    return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

/* Threats 40-43: what the walk cannot read, what lies past its limits, a
 * .git read as git reads it, links through /proc. */
static void end_fails_closed(void **state)
{
    struct real *r = *state;
    workspace_t *ws = plan(r, only(r, "x\n"));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    static const char evil[] = "[core]\n\tfsmonitor = evil\n";
    make_repo(r, "closed/.git", evil);                     /* chmod 111 .git */
    set_mode(r, "closed/.git", 0111);
    make_repo(r, "hooks/.git", "[core]\n");                /* chmod 111 .git/hooks */
    make(r, "hooks/.git/hooks/pre-commit", "#!/bin/sh\n");
    set_mode(r, "hooks/.git/hooks/pre-commit", 0755);
    set_mode(r, "hooks/.git/hooks", 0111);
    char deep[WALK_MAX_DEPTH * 2 + 64] = "";               /* past the depth limit */
    for (int i = 0; i < WALK_MAX_DEPTH + 2; i++)
        strcat(deep, "d/");
    strcat(deep, ".git");
    make_repo(r, deep, evil);
    char outside[PATH_MAX * 2], text[PATH_MAX * 3];        /* a repository outside */
    snprintf(outside, sizeof(outside), "%s/vol", r->home);
    assert_int_equal(mkdir(outside, 0755), 0);
    snprintf(text, sizeof(text), "gitdir: %s", outside);
    make(r, "pointer", text);
    make(r, "a/.git -> ../pointer", NULL);                 /* a .git symlink to a gitfile */
    char nul[PATH_MAX * 3];                                 /* a gitfile with a NUL */
    int nl = snprintf(nul, sizeof(nul), "gitdir: %s", outside);
    memcpy(nul + nl, "\0\n", 3);
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/b", r->launch);
    assert_int_equal(mkdir(path, 0755), 0);
    strcat(path, "/.git");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite(nul, 1, (size_t)nl + 2, f);
    fclose(f);
    make(r, "notes.txt -> /proc/self/cwd/.target", NULL);  /* a link through /proc */
    set_mode(r, ".", 0);                                    /* the launch directory itself */

    char *report = NULL, *whole = NULL;
    assert_int_equal(workspace_end(ws, true, &report, &whole, &err), 0);
    assert_int_equal(mode_of(r, "."), 0);                   /* modes put back */
    set_mode(r, ".", 0755);
    assert_int_equal(mode_of(r, "closed/.git"), 0111);
    assert_int_equal(mode_of(r, "hooks/.git/hooks"), 0111);
    real_assert_contains(report, "  closed/.git/config: a git config with core.fsmonitor");
    real_assert_contains(report, "  hooks/.git/hooks/pre-commit: a git hook; moved to ");
    real_assert_contains(report, "a directory deeper than 256 levels, which the check does not examine; moved to ");
    real_assert_contains(report, " and closed (chmod 000)");
    real_assert_contains(report, "  a/.git: a .git file naming a git directory outside the launch directory");
    real_assert_contains(report, "  b/.git: a .git file naming a git directory outside the launch directory");
    real_assert_contains(report, "  notes.txt: a symlink made or re-pointed during the session, to "
                            "/proc/self/cwd/.target, outside the launch directory");
    assert_true(real_exists(r, "a/.git.agent-sandbox-disabled") && real_exists(r, "b/.git.agent-sandbox-disabled"));
    real_assert_contains(whole, "closed/.git/config");
    free(report);
    free(whole);
    /* the sealed directory, opened for the tree's removal */
    char sealed[PATH_MAX * 2];
    snprintf(sealed, sizeof(sealed), "%s/%.*s" DISABLED_SUFFIX, r->launch, WALK_MAX_DEPTH * 2 + 1, deep);
    assert_int_equal(chmod(sealed, 0755), 0);
    workspace_free(ws);
}

static void sample_hooks_and_clones_are_not_news(void **state)
{
    struct real *r = *state;
    workspace_t *ws = plan(r, only(r, "x\n"));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    make_repo(r, "clone/.git", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n");
    make(r, "clone/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
    set_mode(r, "clone/.git/hooks/pre-commit.sample", 0755);
    make(r, "clone/README", "x\n");
    char *report = NULL;
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    if (report != NULL)
        fail_msg("a plain clone was news:\n%s", report);
    workspace_free(ws);
}

static void report_is_short(void **state)
{
    struct real *r = *state;
    workspace_t *ws = plan(r, only(r, "x\n"));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(ws, &err), 0);
    for (int i = 0; i < 25; i++) {
        char name[32], path[PATH_MAX * 2];
        snprintf(name, sizeof(name), "bin/t%02d", i);
        make(r, name, "");
        snprintf(path, sizeof(path), "%s/%s", r->launch, name);
        chmod(path, 0755);
    }
    char *report = NULL;
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    real_assert_contains(report, "  bin/t09: new");
    real_assert_lacks(report, "bin/t10");
    real_assert_contains(report, "  ... and 15 more (all of them are in the whole report)\n");
    free(report);
    workspace_free(ws);
}

static void sessions_may_not_overlap(void **state)
{
    struct real *r = *state;
    make(r, "sub/", NULL);
    char sub[PATH_MAX * 2], sibling[PATH_MAX * 2];
    snprintf(sub, sizeof(sub), "%s/sub", r->launch);
    snprintf(sibling, sizeof(sibling), "%s/sibling", r->base);
    assert_int_equal(mkdir(sibling, 0755), 0);

    workspace_t *first = plan(r, only(r, "x\n"));
    as_error_t *err = NULL;
    assert_int_equal(workspace_begin(first, &err), 0);

    const char *dirs[] = { r->launch, sub };
    const char *why[] = { "running in this directory or in one below it", ", which holds this directory" };
    for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
        workspace_t *ws = NULL;
        assert_int_equal(workspace_plan(dirs[i], r->home, only(r, "x\n"), &ws, &err), 0);
        assert_int_equal(workspace_begin(ws, &err), -WORKSPACE_EBUSY);
        real_assert_contains(err->msg, "another agent-sandbox session is running in");
        real_assert_contains(err->msg, why[i]);
        real_assert_contains(err->msg, "[rule: one-session-per-tree]");
        as_error_free(&err);
        workspace_free(ws);
    }
    /* the parent of the first, while the first runs */
    workspace_t *parent = NULL;
    assert_int_equal(workspace_plan(r->base, r->home, only(r, "x\n"), &parent, &err), 0);
    assert_int_equal(workspace_begin(parent, &err), -WORKSPACE_EBUSY);
    as_error_free(&err);
    workspace_free(parent);
    /* a sibling is fine */
    workspace_t *other = NULL;
    assert_int_equal(workspace_plan(sibling, r->home, only(r, "x\n"), &other, &err), 0);
    assert_int_equal(workspace_begin(other, &err), 0);
    char *report = NULL;
    assert_int_equal(workspace_end(other, true, &report, NULL, &err), 0);
    free(report);
    workspace_free(other);

    assert_int_equal(workspace_end(first, true, &report, NULL, &err), 0);
    free(report);
    workspace_free(first);               /* unlocks */
    workspace_t *again = NULL;
    assert_int_equal(workspace_plan(sub, r->home, only(r, "x\n"), &again, &err), 0);
    assert_int_equal(workspace_begin(again, &err), 0);
    assert_int_equal(workspace_end(again, true, &report, NULL, &err), 0);
    free(report);
    workspace_free(again);
}

static void begin_and_end_in_order(void **state)
{
    struct real *r = *state;
    workspace_t *ws = plan(r, only(r, "x\n"));
    as_error_t *err = NULL;
    char *report = NULL;
    assert_true(workspace_end(ws, true, &report, NULL, &err) < 0);
    as_error_free(&err);
    assert_int_equal(workspace_begin(ws, &err), 0);
    assert_int_equal(workspace_begin(ws, &err), -EALREADY);
    as_error_free(&err);
    assert_int_equal(workspace_end(ws, true, &report, NULL, &err), 0);
    workspace_free(ws);
    workspace_free(NULL);
}

static void agent_gets_the_mounts(void **state)
{
    struct real *r = *state;
    make(r, ".git/config", "");
    workspace_t *ws = plan(r, only(r, ".git/config\n.envrc\n"));
    char *cmd[] = { "true", NULL };
    session_inputs_t in = {
        .id = "0123456789ab", .cli_pid = 1, .workdir = r->launch,
        .image = "localhost/agent-sandbox:dev", .command = cmd, .workspace = ws,
    };
    session_plan_t *p = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), 0);
    agent_spec_t a;
    assert_int_equal(agent_spec_build(p, &a, &err), 0);
    const podman_mount_t *ro = NULL, *pin = NULL;
    for (size_t i = 0; i < a.n_mounts; i++) {
        if (a.mounts[i].source != NULL && strcmp(a.mounts[i].source, mount_of(ws, ".git/config")->path) == 0)
            ro = &a.mounts[i];
        if (a.mounts[i].source != NULL && strcmp(a.mounts[i].source, mount_of(ws, ".git")->path) == 0)
            pin = &a.mounts[i];
    }
    assert_non_null(ro);
    assert_non_null(pin);
    assert_true(pin < ro);
    assert_string_equal(ro->destination, ro->source);
    assert_string_equal(ro->type, "bind");
    assert_string_equal(ro->options[0], "ro");
    assert_string_equal(pin->options[0], "rw");
    assert_int_equal(a.n_mounts, 2 + ws->n_mounts);     /* workdir, /tmp, ours */
    session_plan_free(p);
    podman_mount_t *none = NULL;
    size_t n = 1;
    assert_int_equal(workspace_agent_mounts(NULL, &none, &n, &err), 0);
    assert_int_equal(n, 0);
    free(none);
    workspace_free(ws);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void load_reads_both_files(void **state)
{
    struct real *r = *state;
    char path[PATH_MAX * 2], user_file[PATH_MAX * 2];
    snprintf(user_file, sizeof(user_file), "%s/.config/agent-sandbox/%s", r->home, WORKSPACE_USER_FILE);
    snprintf(path, sizeof(path), "%s/.config", r->home);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/.config/agent-sandbox", r->home);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s", user_file);
    write_file(path, "!.idea/\nmine/\n");
    make(r, WORKSPACE_PROJECT_FILE, "theirs\n");

    workspace_t *ws = NULL;
    as_error_t *err = NULL;
    assert_int_equal(workspace_load(r->launch, r->home, user_file, &ws, &err), 0);
    assert_non_null(rule(ws->rules, "mine"));
    assert_non_null(rule(ws->rules, "theirs"));
    assert_null(rule(ws->rules, ".idea"));
    assert_string_equal(rule(ws->rules, "mine")->origin, "~/.config/agent-sandbox/protected-paths:2");
    assert_mount(ws, WORKSPACE_PROJECT_FILE, WORKSPACE_READ_ONLY, false, false);
    assert_mount(ws, ".agent-sandbox", WORKSPACE_PIN, false, true);
    workspace_free(ws);

    /* a project file that is a symlink is never followed */
    char target[PATH_MAX * 2];
    snprintf(target, sizeof(target), "%s/.agent-sandbox/protected-paths", r->launch);
    unlink(target);
    assert_int_equal(symlink(path, target), 0);
    assert_int_equal(workspace_load(r->launch, r->home, user_file, &ws, &err), -WORKSPACE_EBADCONFIG);
    real_assert_contains(err->msg, "cannot read ");
    real_assert_contains(err->msg, "/proj/.agent-sandbox/protected-paths: it is a symlink");
    real_assert_contains(err->msg, "[rule: protected-paths-unreadable]");
    as_error_free(&err);
    unlink(target);

    /* nor is a symlinked .agent-sandbox directory */
    snprintf(target, sizeof(target), "%s/.agent-sandbox", r->launch);
    rmdir(target);
    snprintf(path, sizeof(path), "%s/.config/agent-sandbox", r->home);
    assert_int_equal(symlink(path, target), 0);
    assert_int_equal(workspace_load(r->launch, r->home, user_file, &ws, &err), -WORKSPACE_EBADCONFIG);
    real_assert_contains(err->msg, "it is a symlink");
    as_error_free(&err);
    unlink(target);

    /* a user file that cannot be read refuses too */
    snprintf(path, sizeof(path), "%s", user_file);
    unlink(path);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(workspace_load(r->launch, r->home, user_file, &ws, &err), -WORKSPACE_EBADCONFIG);
    real_assert_contains(err->msg, "~/.config/agent-sandbox/protected-paths: Is a directory [rule: protected-paths-unreadable]");
    real_assert_contains(err->msg, "delete it to protect the default set only");
    as_error_free(&err);
    rmdir(path);

    /* a malformed one names the line */
    write_file(path, "ok\n\n/abs\n");
    assert_int_equal(workspace_load(r->launch, r->home, user_file, &ws, &err), -WORKSPACE_EBADCONFIG);
    real_assert_contains(err->msg, "~/.config/agent-sandbox/protected-paths:3: \"/abs\"");
    as_error_free(&err);

    /* no files at all: the defaults */
    unlink(path);
    assert_int_equal(workspace_load(r->launch, r->home, user_file, &ws, &err), 0);
    assert_non_null(rule(ws->rules, ".git/hooks"));
    workspace_free(ws);
}

static void sections_match_through_symlinks(void **state)
{
    struct real *r = *state;
    char link[PATH_MAX * 2], text[PATH_MAX * 3];
    snprintf(link, sizeof(link), "%s/link-to-proj", r->home);
    assert_int_equal(symlink(r->launch, link), 0);
    snprintf(text, sizeof(text), "[~/link-to-proj]\nvia-link\n");
    workspace_rules_t *rules = rules_of(r, text);
    assert_non_null(rule(rules, "via-link"));
    workspace_rules_free(rules);
}


/* ---- the journal: the check of a session whose CLI was killed ---------- */

struct recovered {
    int calls;
    bool gone;
    char *dir, *report;
};

static bool journal_gone(void *ctx, const char *id)
{
    (void)id;
    return ((struct recovered *)ctx)->gone;
}

static void journal_told(void *ctx, const char *id, const char *launch_dir, const char *report, const char *whole)
{
    (void)id;
    (void)whole;
    struct recovered *c = ctx;
    c->calls++;
    free(c->dir);
    free(c->report);
    c->dir = launch_dir != NULL ? strdup(launch_dir) : NULL;
    c->report = report != NULL ? strdup(report) : NULL;
}

static void journal_checks_a_killed_session(void **state)
{
    struct real *r = *state;
    make(r, ".git/HEAD", "ref: refs/heads/main\n");
    make(r, ".git/objects/", NULL);
    make(r, ".git/refs/", NULL);
    make(r, ".git/config", "[core]\n");
    char dir[PATH_MAX * 2], user_file[PATH_MAX * 2], journal[PATH_MAX * 3];
    snprintf(dir, sizeof(dir), "%s/journals", r->home);
    snprintf(user_file, sizeof(user_file), "%s/protected-paths", r->home);
    snprintf(journal, sizeof(journal), "%s/0123456789ab", dir);
    workspace_t *ws = plan(r, rules_of(r, NULL));
    as_error_t *err = NULL;
    int fd = -1;
    assert_false(workspace_journal_pending(dir));               /* no directory yet */
    assert_int_equal(workspace_begin(ws, &err), 0);
    assert_int_equal(workspace_journal_begin(ws, user_file, dir, "0123456789ab", &fd, &err), 0);
    assert_false(workspace_journal_pending(dir));               /* its session runs */
    make(r, "bare/HEAD", "ref: refs/heads/main\n");          /* what the agent plants */
    make(r, "bare/objects/", NULL);
    make(r, "bare/refs/", NULL);
    make(r, "bare/config", "[core]\n\tfsmonitor = touch /tmp/x\n");

    struct recovered c = { .gone = true };
    workspace_recovery_t rc = { journal_gone, journal_told, &c };
    assert_int_equal(workspace_journal_recover(dir, &rc, &err), 0);
    assert_int_equal(c.calls, 0);                              /* its CLI still runs */
    close(fd);                                                 /* kill -9: no end, no unlink */
    workspace_free(ws);
    assert_true(workspace_journal_pending(dir));
    c.gone = false;
    assert_int_equal(workspace_journal_recover(dir, &rc, &err), 0);
    assert_int_equal(c.calls, 0);                              /* its sandbox is not gone yet */
    assert_int_equal(access(journal, F_OK), 0);
    c.gone = true;
    assert_int_equal(workspace_journal_recover(dir, &rc, &err), 0);
    assert_int_equal(c.calls, 1);
    assert_string_equal(c.dir, r->launch);
    assert_non_null(c.report);
    real_assert_contains(c.report, "  bare/config: a git config with core.fsmonitor");
    assert_true(real_exists(r, "bare/config.agent-sandbox-disabled") && !real_exists(r, "bare/config"));
    assert_int_equal(access(journal, F_OK), -1);               /* checked once */
    assert_false(workspace_journal_pending(dir));

    write_file(journal, "agent-sandbox-journal 1\nD3:/x,\n");  /* cut short */
    assert_int_equal(workspace_journal_recover(dir, &rc, &err), 0);
    assert_int_equal(c.calls, 2);
    assert_null(c.dir);
    assert_int_equal(access(journal, F_OK), -1);
    free(c.dir);
    free(c.report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_without_files),
        cmocka_unit_test(user_file_adds_and_trims),
        cmocka_unit_test(sections_apply_to_their_directory_only),
        cmocka_unit_test(section_lines_are_checked_even_when_not_applied),
        cmocka_unit_test(syntax_errors_name_file_line_and_rule),
        cmocka_unit_test(project_file_only_adds),
        cmocka_unit_test(at_most_max_paths),
        cmocka_unit_test_setup_teardown(plan_of_a_git_checkout, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(plan_first_missing_component_and_non_directories, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(plan_covered_paths_are_dropped, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(plan_through_symlinks, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(plan_freezes_what_yarn_configs_name, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(plan_freezes_what_pnpm_and_hg_shares_name, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(placeholders_live_for_the_session_only, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(placeholders_written_on_the_host_are_kept, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(placeholders_stay_while_the_sandbox_may_run, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(a_marked_file_with_content_is_never_removed, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(report_names_what_changed, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(report_is_short, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(end_fails_closed, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(early_after_state_leaves_out_our_placeholders, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(sample_hooks_and_clones_are_not_news, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(end_disables_what_host_tools_would_run, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(sessions_may_not_overlap, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(begin_and_end_in_order, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(agent_gets_the_mounts, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(load_reads_both_files, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(sections_match_through_symlinks, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(journal_checks_a_killed_session, real_setup, real_teardown),
    };
    return cmocka_run_group_tests_name("workspace", tests, NULL, NULL);
}
