/* Launch policy: every rule on a fake filesystem of symlinks, then a few
 * cases on real directories through realpath(3). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "config/launch_policy.h"

/* ---- a fake filesystem ------------------------------------------------- */

/* Entries are "path" for a directory (its parents exist implicitly) or
 * "path -> target" for a symlink (target absolute or relative). */
static const char *const BASE_FS[] = {
    "/home/a/src/proj",
    "/home/a/src/tools/bin",
    "/home/a/.ssh",
    "/home/a/.gnupg",
    "/home/a/.config/agent-sandbox",
    "/home/a/.cache/x",
    "/home/a/.local/bin",
    "/home/a/.local/src/proj",
    "/home/a/.local/share/containers/storage/volumes",
    "/home/a/fo",
    "/home/a/foo",
    "/home/a/src/evil -> /tmp/x",
    "/home/a/src/sshlink -> ../.ssh",
    "/home/a/bin-link -> src/tools/bin",
    "/home/a/work -> /srv/work",
    "/home/b -> a",
    "/srv/work/proj",
    "/tmp/x",
    "/tmp/link-proj -> /home/a/src/proj",
    "/tmp/bad\033[31mname",
    "/tmp/a\xc2\x9b" "31m\xe2\x80\xae" "b\xff",
    "/var/tmp/x",
    "/run/user/1000",
    "/proc/1",
    "/sys/x",
    "/dev/x",
    "/usr/bin",
    "/usr/local/bin",
    "/bin -> usr/bin",
    "/loop1 -> /loop2",
    "/loop2 -> /loop1",
    NULL,
};

/* A home whose ~/.ssh is a symlink into a dotfiles checkout. */
static const char *const DOTFILES_FS[] = {
    "/home/a/src/proj",
    "/home/a/dotfiles/ssh",
    "/home/a/.ssh -> dotfiles/ssh",
    NULL,
};

struct fake_fs {
    const char *const *entries;
};

enum { NONE, DIR_, LINK };

static int lookup(const struct fake_fs *fs, const char *p, const char **ret_target)
{
    if (strcmp(p, "/") == 0)
        return DIR_;
    size_t lp = strlen(p);
    int found = NONE;
    for (const char *const *e = fs->entries; *e != NULL; e++) {
        const char *arrow = strstr(*e, " -> ");
        size_t le = arrow != NULL ? (size_t)(arrow - *e) : strlen(*e);
        if (le == lp && strncmp(*e, p, lp) == 0) {
            if (arrow != NULL) {
                *ret_target = arrow + 4;
                return LINK;
            }
            return DIR_;
        }
        if (le > lp && strncmp(*e, p, lp) == 0 && (*e)[lp] == '/')
            found = DIR_;
    }
    return found;
}

static int fake_resolve(void *ctx, const char *path, char **ret_resolved)
{
    const struct fake_fs *fs = ctx;
    if (path[0] != '/')
        return -EINVAL;
    char cur[PATH_MAX] = "/";
    _cleanup_free_ char *rest = strdup(path);
    int hops = 0;
    for (;;) {
        char *p = rest;
        while (*p == '/')
            p++;
        if (*p == '\0')
            break;
        char *end = strchrnul(p, '/');
        char comp[NAME_MAX + 1];
        size_t n = (size_t)(end - p);
        assert_true(n <= NAME_MAX);
        memcpy(comp, p, n);
        comp[n] = '\0';
        memmove(rest, end, strlen(end) + 1);

        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            char *slash = strrchr(cur, '/');
            if (slash == cur)
                cur[1] = '\0';
            else
                *slash = '\0';
            continue;
        }
        char next[PATH_MAX];
        snprintf(next, sizeof(next), "%s%s%s", cur, strcmp(cur, "/") == 0 ? "" : "/", comp);
        const char *target = NULL;
        int kind = lookup(fs, next, &target);
        if (kind == NONE)
            return -ENOENT;
        if (kind == LINK) {
            if (++hops > 40)
                return -ELOOP;
            char *nr = NULL;
            assert_true(asprintf(&nr, "%s/%s", target, rest) >= 0);
            free(rest);
            rest = nr;
            if (target[0] == '/')
                strcpy(cur, "/");
            continue;
        }
        strcpy(cur, next);
    }
    *ret_resolved = strdup(cur);
    return *ret_resolved != NULL ? 0 : -ENOMEM;
}

/* ---- helpers ----------------------------------------------------------- */

static struct fake_fs base_fs = { BASE_FS };
static struct fake_fs dotfiles_fs = { DOTFILES_FS };

static const launch_policy_file_t ABSENT = { .state = LAUNCH_POLICY_FILE_ABSENT };

static launch_policy_file_t text_file(const char *text)
{
    return (launch_policy_file_t){ .state = LAUNCH_POLICY_FILE_PRESENT, .text = text,
                                   .len = strlen(text) };
}

static launch_policy_input_t base_input(const char *dir, const launch_policy_file_t *file)
{
    return (launch_policy_input_t){
        .launch_dir = dir,
        .home = "/home/a",
        .xdg_runtime_dir = "/run/user/1000",
        .path_env = "/usr/local/bin:/usr/bin:/bin:/home/a/.local/bin",
        .graphroot = "/home/a/.local/share/containers/storage",
        .config_dir = "/home/a/.config/agent-sandbox",
        .allowed_paths = file,
        .resolve = fake_resolve,
        .resolve_ctx = &base_fs,
    };
}

static launch_policy_result_t *run(const launch_policy_input_t *in)
{
    launch_policy_result_t *res = NULL;
    as_error_t *err = NULL;
    int r = launch_policy_decide(in, &res, &err);
    if (r < 0)
        fail_msg("launch_policy_decide(%s): %s", in->launch_dir, err != NULL ? err->msg : "?");
    assert_null(err);
    assert_non_null(res);
    assert_non_null(res->warnings);
    assert_null(res->warnings[res->n_warnings]);
    return res;
}

static void check_allowed(const char *dir, const launch_policy_file_t *file, const char *resolved)
{
    launch_policy_input_t in = base_input(dir, file);
    launch_policy_result_t *res = run(&in);
    if (!launch_policy_allowed(res))
        fail_msg("%s refused: %s", dir, res->message);
    assert_string_equal(res->resolved_dir, resolved);
    assert_null(res->message);
    assert_null(res->conflict);
    launch_policy_result_free(&res);
    assert_null(res);
}

/* A refusal names its rule and the file to edit, and contains no raw control byte. */
static void check_message(const launch_policy_result_t *res)
{
    assert_non_null(res->message);
    char tag[64];
    snprintf(tag, sizeof(tag), "[rule: %s]", launch_policy_rule_name(res->rule));
    if (strstr(res->message, tag) == NULL)
        fail_msg("no %s in: %s", tag, res->message);
    if (strstr(res->message, "allowed-paths") == NULL)
        fail_msg("no file named in: %s", res->message);
    if (strncmp(res->message, "refusing to launch from ", 24) != 0)
        fail_msg("bad start: %s", res->message);
    for (const char *p = res->message; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n')
            fail_msg("control byte in: %s", res->message);
}

static void check_refused_in(const launch_policy_input_t *in, launch_policy_rule_t rule,
                             const char *conflict, const char *needle)
{
    launch_policy_result_t *res = run(in);
    if (res->rule != rule)
        fail_msg("%s: wanted %s, got %s: %s", in->launch_dir, launch_policy_rule_name(rule),
                 launch_policy_rule_name(res->rule), res->message ? res->message : "(allowed)");
    check_message(res);
    if (conflict != NULL) {
        assert_non_null(res->conflict);
        assert_string_equal(res->conflict, conflict);
    }
    if (needle != NULL && strstr(res->message, needle) == NULL)
        fail_msg("no \"%s\" in: %s", needle, res->message);
    launch_policy_result_free(&res);
}

static void check_refused(const char *dir, const launch_policy_file_t *file,
                          launch_policy_rule_t rule, const char *needle)
{
    launch_policy_input_t in = base_input(dir, file);
    check_refused_in(&in, rule, NULL, needle);
}

/* ---- paths ------------------------------------------------------------- */

static void normalize_is(const char *in, const char *want)
{
    char *out = NULL;
    assert_int_equal(path_normalize(in, &out, NULL), 0);
    assert_string_equal(out, want);
    free(out);
}

static void test_path_normalize(void **state)
{
    (void)state;
    normalize_is("/", "/");
    normalize_is("//", "/");
    normalize_is("/home/a/", "/home/a");
    normalize_is("//home///a//src/", "/home/a/src");
    normalize_is("/home/./a/.", "/home/a");
    normalize_is("/home/a/src/../.ssh", "/home/a/.ssh");
    normalize_is("/..", "/");
    normalize_is("/a/../../b", "/b");
    normalize_is("/a/..", "/");
    normalize_is("/a/...", "/a/...");
    normalize_is("/a/.b/..c", "/a/.b/..c");

    as_error_t *err = NULL;
    char *out = NULL;
    assert_int_equal(path_normalize("home/a", &out, &err), -EINVAL);
    assert_null(out);
    assert_non_null(err);
    as_error_free(&err);
    assert_int_equal(path_normalize("", &out, NULL), -EINVAL);
    assert_int_equal(path_normalize(NULL, &out, NULL), -EINVAL);
}

static void test_path_relation(void **state)
{
    (void)state;
    assert_int_equal(path_relation("/home/a/foo", "/home/a/fo"), PATH_UNRELATED);
    assert_int_equal(path_relation("/home/a/fo", "/home/a/foo"), PATH_UNRELATED);
    assert_int_equal(path_relation("/home/a/fo/x", "/home/a/fo"), PATH_INSIDE);
    assert_int_equal(path_relation("/home/a", "/home/a/fo"), PATH_CONTAINS);
    assert_int_equal(path_relation("/home/a", "/home/a"), PATH_SAME);
    assert_int_equal(path_relation("/", "/home"), PATH_CONTAINS);
    assert_int_equal(path_relation("/home", "/"), PATH_INSIDE);
    assert_int_equal(path_relation("/", "/"), PATH_SAME);
    assert_true(path_is_inside("/tmp/x", "/tmp"));
    assert_false(path_is_inside("/tmpx", "/tmp"));
    assert_false(path_is_inside("/tmp", "/tmp"));

    char *j = NULL;
    assert_int_equal(path_join("/", "a", &j, NULL), 0);
    assert_string_equal(j, "/a");
    free(j);
    assert_int_equal(path_join("/x", "a/b", &j, NULL), 0);
    assert_string_equal(j, "/x/a/b");
    free(j);
}

/* ---- the default root -------------------------------------------------- */

static void test_default_root_allows_home_projects(void **state)
{
    (void)state;
    check_allowed("/home/a/src/proj", &ABSENT, "/home/a/src/proj");
    check_allowed("/home/a/src", &ABSENT, "/home/a/src");
    check_allowed("/home/a/foo", &ABSENT, "/home/a/foo");
}

static void test_trailing_and_duplicate_slashes(void **state)
{
    (void)state;
    check_allowed("/home/a/src/proj/", &ABSENT, "/home/a/src/proj");
    check_allowed("//home///a//src/proj//", &ABSENT, "/home/a/src/proj");
    check_refused("/home/a/", &ABSENT, LAUNCH_POLICY_RULE_HOME_OR_PARENT, NULL);
    check_refused("/home//a//.ssh/", &ABSENT, LAUNCH_POLICY_RULE_SECRET_DIR, "~/.ssh");
}

static void test_dotdot_segments(void **state)
{
    (void)state;
    check_allowed("/home/a/src/proj/../tools", &ABSENT, "/home/a/src/tools");
    check_refused("/home/a/src/proj/../../.ssh", &ABSENT, LAUNCH_POLICY_RULE_SECRET_DIR, NULL);
    check_refused("/home/a/src/..", &ABSENT, LAUNCH_POLICY_RULE_HOME_OR_PARENT, NULL);
    /* ".." after a symlink is taken physically: ~/src/evil -> /tmp/x, so ~/src/evil/.. is /tmp. */
    check_refused("/home/a/src/evil/..", &ABSENT, LAUNCH_POLICY_RULE_SYSTEM_DIR, "/tmp");
}

static void test_default_root_excludes_dot_dirs_and_outside(void **state)
{
    (void)state;
    /* Under a dot-directory: not refused outright, just not under the default root. */
    check_refused("/home/a/.local/src/proj", &ABSENT, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT,
                  "(such as ~/.local/src)");
    check_refused("/home/a/.cache/x", &ABSENT, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT, "does not exist");
    check_refused("/srv/work/proj", &ABSENT, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT, "(such as /srv/work)");
    /* A symlink in $HOME pointing out of it: what counts is the target. */
    check_refused("/home/a/work/proj", &ABSENT, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT,
                  "~/work/proj resolves to it");
}

/* ---- the hard rules ---------------------------------------------------- */

static void test_home_and_parents_refused(void **state)
{
    (void)state;
    launch_policy_file_t everything = text_file("/\n");
    const char *dirs[] = { "/home/a", "/home", "/", "/home/a/src/../" };
    for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
        check_refused(dirs[i], &ABSENT, LAUNCH_POLICY_RULE_HOME_OR_PARENT, "No line in");
        check_refused(dirs[i], &everything, LAUNCH_POLICY_RULE_HOME_OR_PARENT, "your home directory");
    }
}

static void test_system_dirs_refused(void **state)
{
    (void)state;
    launch_policy_file_t everything = text_file("/\n");
    const char *dirs[] = { "/tmp", "/tmp/x", "/var/tmp/x", "/run", "/run/user/1000",
                           "/proc/1", "/sys/x", "/dev/x" };
    for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
        check_refused(dirs[i], &everything, LAUNCH_POLICY_RULE_SYSTEM_DIR, "system directory");
    /* Only what sits in them: their parent is not a system directory. */
    check_allowed("/var", &everything, "/var");
}

static void test_secret_dirs_refused(void **state)
{
    (void)state;
    launch_policy_file_t home = text_file("/home/a\n");
    check_refused("/home/a/.ssh", &home, LAUNCH_POLICY_RULE_SECRET_DIR, "it is ~/.ssh, which holds your SSH keys");
    check_refused("/home/a/.gnupg", &home, LAUNCH_POLICY_RULE_SECRET_DIR, "GnuPG");
    check_refused("/home/a/.config", &home, LAUNCH_POLICY_RULE_SECRET_DIR, "it is ~/.config");
    check_refused("/home/a/.config/agent-sandbox", &home, LAUNCH_POLICY_RULE_SECRET_DIR,
                  "it sits in ~/.config");
    /* A symlink into ~/.ssh, relative target. */
    check_refused("/home/a/src/sshlink", &ABSENT, LAUNCH_POLICY_RULE_SECRET_DIR,
                  "~/src/sshlink resolves to it");
}

static void test_secret_dir_symlink_target_is_guarded(void **state)
{
    (void)state;
    /* ~/.ssh -> ~/dotfiles/ssh: mounting ~/dotfiles would expose the keys. */
    launch_policy_input_t in = base_input("/home/a/dotfiles", &ABSENT);
    in.resolve_ctx = &dotfiles_fs;
    check_refused_in(&in, LAUNCH_POLICY_RULE_SECRET_DIR, "/home/a/dotfiles/ssh", "it holds ~/.ssh (resolved: ~/dotfiles/ssh)");
    in.launch_dir = "/home/a/dotfiles/ssh";
    check_refused_in(&in, LAUNCH_POLICY_RULE_SECRET_DIR, "/home/a/dotfiles/ssh", "it is ~/.ssh");
    in.launch_dir = "/home/a/src/proj";
    launch_policy_result_t *res = run(&in);
    assert_true(launch_policy_allowed(res));
    launch_policy_result_free(&res);
}

static void test_runtime_dir_refused(void **state)
{
    (void)state;
    launch_policy_input_t in = base_input("/home/a/src", &ABSENT);
    in.xdg_runtime_dir = "/home/a/src/rt";          /* does not exist: guarded all the same */
    check_refused_in(&in, LAUNCH_POLICY_RULE_RUNTIME_DIR, "/home/a/src/rt",
                     "it holds $XDG_RUNTIME_DIR (~/src/rt)");
    in.launch_dir = "/home/a/src/proj";
    launch_policy_result_t *res = run(&in);
    assert_true(launch_policy_allowed(res));
    launch_policy_result_free(&res);

    in.xdg_runtime_dir = "/home/a/src";
    in.launch_dir = "/home/a/src/proj";
    check_refused_in(&in, LAUNCH_POLICY_RULE_RUNTIME_DIR, "/home/a/src", "it sits in $XDG_RUNTIME_DIR");

    in.xdg_runtime_dir = "";                        /* unset */
    res = run(&in);
    assert_true(launch_policy_allowed(res));
    launch_policy_result_free(&res);
}

static void test_podman_storage_refused(void **state)
{
    (void)state;
    launch_policy_file_t local = text_file("~/.local\n");
    check_refused("/home/a/.local/share", &local, LAUNCH_POLICY_RULE_PODMAN_STORAGE,
                  "it holds podman's storage (~/.local/share/containers/storage)");
    check_refused("/home/a/.local/share/containers/storage/volumes", &local,
                  LAUNCH_POLICY_RULE_PODMAN_STORAGE, "it sits in podman's storage");

    /* A graphroot elsewhere, as podman reports it. */
    launch_policy_input_t in = base_input("/home/a/src/proj", &ABSENT);
    in.graphroot = "/home/a/src/proj/storage";
    check_refused_in(&in, LAUNCH_POLICY_RULE_PODMAN_STORAGE, "/home/a/src/proj/storage", "it holds");

    /* Unknown graphroot: the default location is still guarded. */
    in = base_input("/home/a/.local/share/containers", &local);
    in.graphroot = NULL;
    check_refused_in(&in, LAUNCH_POLICY_RULE_PODMAN_STORAGE, "/home/a/.local/share/containers", "it is");
}

static void test_config_dir_refused(void **state)
{
    (void)state;
    launch_policy_input_t in = base_input("/home/a/src/proj", &ABSENT);
    in.config_dir = "/home/a/src/proj/cfg/agent-sandbox";
    check_refused_in(&in, LAUNCH_POLICY_RULE_CONFIG_DIR, "/home/a/src/proj/cfg/agent-sandbox",
                     "it holds agent-sandbox's config directory (~/src/proj/cfg/agent-sandbox)");
    /* The file named in messages follows the config dir. */
    check_refused_in(&in, LAUNCH_POLICY_RULE_CONFIG_DIR, NULL,
                     "No line in ~/src/proj/cfg/agent-sandbox/allowed-paths");
    in.allowed_paths_path = "/etc/elsewhere/allowed-paths";
    check_refused_in(&in, LAUNCH_POLICY_RULE_CONFIG_DIR, NULL, "No line in /etc/elsewhere/allowed-paths");
}

static void test_path_entries_refused(void **state)
{
    (void)state;
    launch_policy_input_t in = base_input("/home/a/src/tools", &ABSENT);
    in.path_env = "/usr/bin:/home/a/src/tools/bin";
    check_refused_in(&in, LAUNCH_POLICY_RULE_PATH_ENTRY, "/home/a/src/tools/bin",
                     "it holds ~/src/tools/bin, an entry of $PATH");
    in.launch_dir = "/home/a/src/tools/bin";
    check_refused_in(&in, LAUNCH_POLICY_RULE_PATH_ENTRY, "/home/a/src/tools/bin", "it is ~/src/tools/bin");
    in.launch_dir = "/home/a/src/proj";
    launch_policy_result_t *res = run(&in);
    assert_true(launch_policy_allowed(res));
    launch_policy_result_free(&res);

    /* A symlinked entry guards its target. */
    in.path_env = "/usr/bin:/home/a/bin-link";
    in.launch_dir = "/home/a/src/tools";
    check_refused_in(&in, LAUNCH_POLICY_RULE_PATH_ENTRY, "/home/a/src/tools/bin",
                     "~/bin-link (resolved: ~/src/tools/bin)");

    /* An entry that does not exist yet: the agent could create it. */
    in.path_env = "/usr/bin:/home/a/src/proj/node_modules/.bin";
    in.launch_dir = "/home/a/src/proj";
    check_refused_in(&in, LAUNCH_POLICY_RULE_PATH_ENTRY, "/home/a/src/proj/node_modules/.bin", NULL);

    /* Unset $PATH: no entries. */
    in.path_env = NULL;
    res = run(&in);
    assert_true(launch_policy_allowed(res));
    launch_policy_result_free(&res);
}

static void test_relative_path_entries_refused(void **state)
{
    (void)state;
    static const struct { const char *path, *entry, *needle; } cases[] = {
        { "/usr/bin:bin",         "bin", "the relative entry \"bin\"" },
        { "/usr/bin:.",           ".",   "the relative entry \".\"" },
        { "/usr/bin::/bin",       "",    "an empty entry" },
        { ":/usr/bin",            "",    "an empty entry" },
        { "/usr/bin:",            "",    "an empty entry" },
        { "",                     "",    "an empty entry" },
        { "/usr/bin:../x:/bin",   "../x", "\"../x\"" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        launch_policy_input_t in = base_input("/home/a/src/proj", &ABSENT);
        in.path_env = cases[i].path;
        check_refused_in(&in, LAUNCH_POLICY_RULE_PATH_ENTRY, cases[i].entry, cases[i].needle);
    }
}

static void test_home_dot_dir_refused(void **state)
{
    (void)state;
    launch_policy_file_t home = text_file("/home/a\n");
    /* ~/.local holds podman's storage and a $PATH entry: the first rule found names it. */
    check_refused("/home/a/.local", &home, LAUNCH_POLICY_RULE_PODMAN_STORAGE, "it holds");
    launch_policy_input_t in = base_input("/home/a/.local", &home);
    in.graphroot = NULL;
    in.path_env = "/usr/bin:/home/a/.local/bin";
    check_refused_in(&in, LAUNCH_POLICY_RULE_PODMAN_STORAGE, "/home/a/.local/share/containers", NULL);

    check_refused("/home/a/.cache", &home, LAUNCH_POLICY_RULE_HOME_DOT_DIR,
                  "(such as ~/.cache/src)");
    check_refused("/home/a/.cache", &ABSENT, LAUNCH_POLICY_RULE_HOME_DOT_DIR, NULL);
    /* Listing the parent of the dot-directory does not help, listing it does for what is inside. */
    check_allowed("/home/a/.cache/x", &home, "/home/a/.cache/x");
}

static void test_hard_rules_beat_allowed_paths(void **state)
{
    (void)state;
    launch_policy_file_t bad = text_file("relative/path\n");
    check_refused("/home/a/.ssh", &bad, LAUNCH_POLICY_RULE_SECRET_DIR, NULL);
    launch_policy_file_t unreadable = { .state = LAUNCH_POLICY_FILE_UNREADABLE, .read_errno = EACCES };
    check_refused("/tmp/x", &unreadable, LAUNCH_POLICY_RULE_SYSTEM_DIR, NULL);
}

/* ---- symlinked launch directories -------------------------------------- */

static void test_symlink_into_refused_area(void **state)
{
    (void)state;
    launch_policy_input_t in = base_input("/home/a/src/evil", &ABSENT);
    launch_policy_result_t *res = run(&in);
    assert_int_equal(res->rule, LAUNCH_POLICY_RULE_SYSTEM_DIR);
    assert_string_equal(res->resolved_dir, "/tmp/x");
    assert_string_equal(res->conflict, "/tmp");
    check_message(res);
    assert_non_null(strstr(res->message, "refusing to launch from /tmp/x (~/src/evil resolves to it)"));
    launch_policy_result_free(&res);
}

static void test_symlink_from_refused_area_into_allowed(void **state)
{
    (void)state;
    check_allowed("/tmp/link-proj", &ABSENT, "/home/a/src/proj");
    check_allowed("/tmp/link-proj/", &ABSENT, "/home/a/src/proj");
}

static void test_symlinked_home(void **state)
{
    (void)state;
    launch_policy_input_t in = base_input("/home/b/src/proj", &ABSENT);
    in.home = "/home/b";                       /* /home/b -> a */
    launch_policy_result_t *res = run(&in);
    assert_true(launch_policy_allowed(res));
    assert_string_equal(res->resolved_dir, "/home/a/src/proj");
    launch_policy_result_free(&res);

    in.launch_dir = "/home/b";
    check_refused_in(&in, LAUNCH_POLICY_RULE_HOME_OR_PARENT, NULL, NULL);
    in.launch_dir = "/home/a";
    check_refused_in(&in, LAUNCH_POLICY_RULE_HOME_OR_PARENT, NULL, NULL);
    in.launch_dir = "/home/b/.ssh";
    check_refused_in(&in, LAUNCH_POLICY_RULE_SECRET_DIR, NULL, NULL);
    in.launch_dir = "/home/a/.gnupg";
    check_refused_in(&in, LAUNCH_POLICY_RULE_SECRET_DIR, NULL, NULL);

    /* ~/ in the file expands to $HOME as given, then resolves. */
    launch_policy_file_t f = text_file("~/src\n");
    in.allowed_paths = &f;
    in.launch_dir = "/home/a/src/proj";
    res = run(&in);
    assert_true(launch_policy_allowed(res));
    launch_policy_result_free(&res);
}

/* ---- allowed-paths ----------------------------------------------------- */

static void test_root_under_dot_dir(void **state)
{
    (void)state;
    launch_policy_file_t f = text_file("~/.local/src\n");
    check_allowed("/home/a/.local/src/proj", &f, "/home/a/.local/src/proj");
    /* Strictly under: the root itself is refused. */
    check_refused("/home/a/.local/src", &f, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT,
                  "it is a root listed in ~/.config/agent-sandbox/allowed-paths:1 itself");
    /* The file replaces the default root. */
    check_refused("/home/a/src/proj", &f, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT,
                  "not strictly under any root listed in ~/.config/agent-sandbox/allowed-paths");
}

static void test_listed_roots_resolve_symlinks(void **state)
{
    (void)state;
    launch_policy_file_t f = text_file("~/work\n");
    check_allowed("/srv/work/proj", &f, "/srv/work/proj");
    check_allowed("/home/a/work/proj", &f, "/srv/work/proj");
    launch_policy_file_t g = text_file("/srv/work/\n/home//a/./src/\n");
    check_allowed("/home/a/work/proj", &g, "/srv/work/proj");
    check_allowed("/home/a/src/proj", &g, "/home/a/src/proj");
    launch_policy_file_t h = text_file("~/src/../src\n");
    check_allowed("/home/a/src/proj", &h, "/home/a/src/proj");
}

static void test_roots_compare_components(void **state)
{
    (void)state;
    launch_policy_file_t f = text_file("/home/a/fo\n");
    check_refused("/home/a/foo", &f, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT, NULL);
}

static void test_missing_vs_empty_file(void **state)
{
    (void)state;
    check_allowed("/home/a/src/proj", &ABSENT, "/home/a/src/proj");
    launch_policy_file_t empty = text_file("");
    check_refused("/home/a/src/proj", &empty, LAUNCH_POLICY_RULE_NO_ROOTS, "lists no roots");
    launch_policy_file_t comments = text_file("# nothing yet\n\n   \t\n  # indented\n");
    check_refused("/home/a/src/proj", &comments, LAUNCH_POLICY_RULE_NO_ROOTS,
                  "~/.config/agent-sandbox/allowed-paths lists no roots");
}

static void test_comments_and_whitespace(void **state)
{
    (void)state;
    launch_policy_file_t f = text_file("# my roots\n  ~/src   # code\n/srv/work\t# tab comment\r\n");
    check_allowed("/home/a/src/proj", &f, "/home/a/src/proj");
    check_allowed("/srv/work/proj", &f, "/srv/work/proj");

    /* '#' not after a blank is part of the path: here a root that does not exist. */
    launch_policy_file_t g = text_file("/srv/work#x\n~/src");
    launch_policy_input_t in = base_input("/srv/work/proj", &g);
    launch_policy_result_t *res = run(&in);
    assert_int_equal(res->rule, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT);
    assert_int_equal(res->n_warnings, 1);
    assert_non_null(strstr(res->warnings[0], "allowed-paths:1: ignoring the root /srv/work#x: No such file"));
    launch_policy_result_free(&res);

    launch_policy_file_t crlf = text_file("~/src\r\n");
    check_allowed("/home/a/src/proj", &crlf, "/home/a/src/proj");
}

static void test_missing_root_warns(void **state)
{
    (void)state;
    launch_policy_file_t f = text_file("/nope\n~/src\n/loop1\n");
    launch_policy_input_t in = base_input("/home/a/src/proj", &f);
    launch_policy_result_t *res = run(&in);
    assert_true(launch_policy_allowed(res));
    assert_int_equal(res->n_warnings, 2);
    assert_non_null(strstr(res->warnings[0], "~/.config/agent-sandbox/allowed-paths:1: ignoring the root /nope: "));
    assert_non_null(strstr(res->warnings[0], "No such file"));
    assert_non_null(strstr(res->warnings[1], ":3: ignoring the root /loop1: Too many levels of symbolic links"));
    launch_policy_result_free(&res);

    /* Only missing roots: refused as not under a root, never widened. */
    launch_policy_file_t g = text_file("/nope\n");
    in = base_input("/home/a/src/proj", &g);
    res = run(&in);
    assert_int_equal(res->rule, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT);
    assert_int_equal(res->n_warnings, 1);
    check_message(res);
    launch_policy_result_free(&res);
}

static void check_bad_line(const char *text, size_t len, unsigned line, const char *needle)
{
    launch_policy_file_t f = { .state = LAUNCH_POLICY_FILE_PRESENT, .text = text, .len = len };
    launch_policy_input_t in = base_input("/home/a/src/proj", &f);
    launch_policy_result_t *res = run(&in);
    if (res->rule != LAUNCH_POLICY_RULE_BAD_CONFIG)
        fail_msg("wanted bad-config for line %u, got %s", line, launch_policy_rule_name(res->rule));
    check_message(res);
    assert_int_equal(res->config_line, line);
    char where[64];
    snprintf(where, sizeof(where), "~/.config/agent-sandbox/allowed-paths:%u: ", line);
    if (strstr(res->message, where) == NULL || strstr(res->message, needle) == NULL)
        fail_msg("no \"%s\"/\"%s\" in: %s", where, needle, res->message);
    launch_policy_result_free(&res);
}

static void test_malformed_lines(void **state)
{
    (void)state;
    static const struct { const char *text; unsigned line; const char *needle; } cases[] = {
        { "# roots\n\n~/src\nsrc/proj\n", 4, "\"src/proj\": a relative path" },
        { "./x\n",                      1, "\"./x\": a relative path" },
        { "~/src\n~bob/src\n",          2, "\"~bob/src\": the ~user/ form is not supported" },
        { "~\n",                        1, "\"~\": a bare ~ is not allowed" },
        { "~/\n",                       1, "\"~/\": nothing after ~/" },
        { "~//  # comment\n",           1, "nothing after ~/" },
        { "/ok\n\033[31m/x\n",          2, "\"\\x1b[31m/x\": a control character" },
        { "/a\vb\n",                    1, "control character" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
        check_bad_line(cases[i].text, strlen(cases[i].text), cases[i].line, cases[i].needle);

    static const char nul[] = "~/src\n/ho\0me\n";
    check_bad_line(nul, sizeof(nul) - 1, 2, "\"/ho\\x00me\": a NUL byte; a config file is text");
    /* A malformed line refuses even when an earlier line would allow. */
    launch_policy_file_t f = text_file("~/src\nnope\n");
    check_refused("/home/a/src/proj", &f, LAUNCH_POLICY_RULE_BAD_CONFIG, "Fix or remove that line");
}

static void test_unreadable_file(void **state)
{
    (void)state;
    launch_policy_file_t f = { .state = LAUNCH_POLICY_FILE_UNREADABLE, .read_errno = EACCES };
    check_refused("/home/a/src/proj", &f, LAUNCH_POLICY_RULE_BAD_CONFIG,
                  "cannot read ~/.config/agent-sandbox/allowed-paths: Permission denied");
}

static void test_control_bytes_escaped(void **state)
{
    (void)state;
    check_refused("/tmp/bad\033[31mname", &ABSENT, LAUNCH_POLICY_RULE_SYSTEM_DIR, "/tmp/bad\\x1b[31mname");
    /* the one escaper (paths.h): C1 controls, bidi overrides and stray bytes too */
    check_refused("/tmp/a\xc2\x9b" "31m\xe2\x80\xae" "b\xff", &ABSENT, LAUNCH_POLICY_RULE_SYSTEM_DIR,
                  "/tmp/a\\u{009B}31m\\u{202E}b\\xff");
}

/* ---- errors ------------------------------------------------------------ */

static void check_error(const launch_policy_input_t *in, int code)
{
    static launch_policy_result_t sentinel;
    launch_policy_result_t *res = &sentinel;            /* must stay untouched */
    launch_policy_result_t *const poison = res;
    as_error_t *err = NULL;
    assert_int_equal(launch_policy_decide(in, &res, &err), -code);
    assert_ptr_equal(res, poison);
    assert_non_null(err);
    assert_non_null(err->msg);
    as_error_free(&err);
}

static void test_bad_input(void **state)
{
    (void)state;
    check_error(NULL, EINVAL);
    launch_policy_input_t in = base_input("/home/a/src/proj", &ABSENT);
    in.home = NULL;
    check_error(&in, EINVAL);
    in.home = "";
    check_error(&in, EINVAL);
    in.home = "home/a";
    check_error(&in, EINVAL);
    in.home = "/";
    check_error(&in, EINVAL);
    in.home = "//./";
    check_error(&in, EINVAL);

    in = base_input("src/proj", &ABSENT);
    check_error(&in, EINVAL);
    in = base_input(NULL, &ABSENT);
    check_error(&in, EINVAL);
    in = base_input("/home/a/src/proj", NULL);
    check_error(&in, EINVAL);
    in = base_input("/home/a/src/proj", &ABSENT);
    in.xdg_runtime_dir = "run/user/1000";
    check_error(&in, EINVAL);
    in = base_input("/home/a/src/proj", &ABSENT);
    in.graphroot = "storage";
    check_error(&in, EINVAL);
    in = base_input("/home/a/src/proj", &ABSENT);
    in.config_dir = "";
    check_error(&in, EINVAL);
    in.config_dir = NULL;
    check_error(&in, EINVAL);

    in = base_input("/home/a/src/nope", &ABSENT);
    check_error(&in, ENOENT);
    in = base_input("/loop1/x", &ABSENT);
    check_error(&in, ELOOP);
}

static void test_names_and_free(void **state)
{
    (void)state;
    for (int i = LAUNCH_POLICY_ALLOWED; i <= LAUNCH_POLICY_RULE_NOT_UNDER_ROOT; i++) {
        const char *n = launch_policy_rule_name((launch_policy_rule_t)i);
        assert_string_not_equal(n, "unknown");
        for (int j = LAUNCH_POLICY_ALLOWED; j < i; j++)
            assert_string_not_equal(n, launch_policy_rule_name((launch_policy_rule_t)j));
    }
    launch_policy_result_free(NULL);
    launch_policy_result_t *r = NULL;
    launch_policy_result_free(&r);
    launch_policy_file_free(NULL);
    launch_policy_file_t *f = NULL;
    launch_policy_file_free(&f);
}

/* ---- real directories, realpath(3) ------------------------------------- */

struct real {
    char base[1100];
    char home[1200];
    char config_dir[1300];
};

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    chmod(p, 0700);
    return remove(p);
}

static void mkpath(const struct real *r, const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/%s", r->home, rel);
    for (char *s = p + strlen(r->base) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        mkdir(p, 0700);
        *s = '/';
    }
    assert_int_equal(mkdir(p, 0700), 0);
}

static void write_file(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The temp tree lives next to the test binary: under /tmp every launch would
 * be refused by the system-dir rule. */
static int real_setup(void **state)
{
    struct real *r = calloc(1, sizeof(*r));
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (r == NULL || n <= 0)
        return -1;
    exe[n] = '\0';
    snprintf(r->base, sizeof(r->base), "%s/lp-test-XXXXXX", dirname(exe));
    if (mkdtemp(r->base) == NULL)
        return -1;
    snprintf(r->home, sizeof(r->home), "%s/home", r->base);
    snprintf(r->config_dir, sizeof(r->config_dir), "%s/.config/agent-sandbox", r->home);
    *state = r;
    return 0;
}

static int real_teardown(void **state)
{
    struct real *r = *state;
    if (r != NULL)
        nftw(r->base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(r);
    return 0;
}

static bool real_usable(const struct real *r)
{
    static const char *const sys[] = { "/tmp", "/var/tmp", "/run", "/proc", "/sys", "/dev" };
    for (size_t i = 0; i < ARRAY_SIZE(sys); i++)
        if (path_is_inside(r->base, sys[i]))
            return false;
    return true;
}

static launch_policy_input_t real_input(const struct real *r, const char *dir,
                                        const launch_policy_file_t *file)
{
    return (launch_policy_input_t){
        .launch_dir = dir,
        .home = r->home,
        .path_env = "/usr/bin:/bin",
        .config_dir = r->config_dir,
        .allowed_paths = file,
    };
}

static void test_real_symlinks(void **state)
{
    struct real *r = *state;
    if (!real_usable(r))
        skip();
    mkpath(r, "src/proj");
    mkpath(r, ".ssh");
    char p[PATH_MAX], l[PATH_MAX], want[PATH_MAX];
    snprintf(l, sizeof(l), "%s/src/evil", r->home);
    assert_int_equal(symlink("../.ssh", l), 0);
    snprintf(l, sizeof(l), "%s/link", r->home);
    assert_int_equal(symlink("src/proj", l), 0);

    snprintf(p, sizeof(p), "%s/src/proj", r->home);
    assert_non_null(realpath(p, want));
    launch_policy_input_t in = real_input(r, p, &ABSENT);
    launch_policy_result_t *res = run(&in);
    assert_true(launch_policy_allowed(res));
    assert_string_equal(res->resolved_dir, want);
    launch_policy_result_free(&res);

    in.launch_dir = l;                          /* ~/link -> src/proj */
    res = run(&in);
    assert_true(launch_policy_allowed(res));
    assert_string_equal(res->resolved_dir, want);
    launch_policy_result_free(&res);

    snprintf(p, sizeof(p), "%s/src/evil", r->home);
    in.launch_dir = p;
    check_refused_in(&in, LAUNCH_POLICY_RULE_SECRET_DIR, NULL, "~/src/evil resolves to it");

    snprintf(p, sizeof(p), "%s/src/proj/../..", r->home);
    in.launch_dir = p;
    check_refused_in(&in, LAUNCH_POLICY_RULE_HOME_OR_PARENT, NULL, NULL);

    in.launch_dir = r->home;
    in.path_env = "/usr/bin::/bin";
    check_refused_in(&in, LAUNCH_POLICY_RULE_HOME_OR_PARENT, NULL, NULL);
}

static void test_real_allowed_paths_file(void **state)
{
    struct real *r = *state;
    if (!real_usable(r))
        skip();
    mkpath(r, ".config/agent-sandbox");
    mkpath(r, ".local/src/proj");
    mkpath(r, "src/proj");
    char file[PATH_MAX], dir[PATH_MAX];
    snprintf(file, sizeof(file), "%s/.config/agent-sandbox/allowed-paths", r->home);

    launch_policy_file_t *f = NULL;
    assert_int_equal(launch_policy_file_read(file, &f, NULL), 0);
    assert_int_equal(f->state, LAUNCH_POLICY_FILE_ABSENT);
    launch_policy_file_free(&f);

    write_file(file, "# roots\n~/.local/src\n");
    assert_int_equal(launch_policy_file_read(file, &f, NULL), 0);
    assert_int_equal(f->state, LAUNCH_POLICY_FILE_PRESENT);
    assert_int_equal(f->len, strlen("# roots\n~/.local/src\n"));
    assert_memory_equal(f->text, "# roots\n~/.local/src\n", f->len);

    snprintf(dir, sizeof(dir), "%s/.local/src/proj", r->home);
    launch_policy_input_t in = real_input(r, dir, f);
    launch_policy_result_t *res = run(&in);
    assert_true(launch_policy_allowed(res));
    launch_policy_result_free(&res);
    snprintf(dir, sizeof(dir), "%s/src/proj", r->home);
    in.launch_dir = dir;
    check_refused_in(&in, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT, NULL, NULL);
    launch_policy_file_free(&f);

    /* Empty file. */
    write_file(file, "");
    assert_int_equal(launch_policy_file_read(file, &f, NULL), 0);
    assert_int_equal(f->state, LAUNCH_POLICY_FILE_PRESENT);
    in.allowed_paths = f;
    check_refused_in(&in, LAUNCH_POLICY_RULE_NO_ROOTS, NULL, NULL);
    launch_policy_file_free(&f);

    /* Unreadable: a directory, a FIFO (must not block), no permission. */
    assert_int_equal(unlink(file), 0);
    assert_int_equal(mkdir(file, 0700), 0);
    assert_int_equal(launch_policy_file_read(file, &f, NULL), 0);
    assert_int_equal(f->state, LAUNCH_POLICY_FILE_UNREADABLE);
    assert_int_equal(f->read_errno, EISDIR);
    in.allowed_paths = f;
    check_refused_in(&in, LAUNCH_POLICY_RULE_BAD_CONFIG, NULL, "Is a directory");
    launch_policy_file_free(&f);
    assert_int_equal(rmdir(file), 0);

    assert_int_equal(mkfifo(file, 0600), 0);
    assert_int_equal(launch_policy_file_read(file, &f, NULL), 0);
    assert_int_equal(f->state, LAUNCH_POLICY_FILE_UNREADABLE);
    launch_policy_file_free(&f);
    assert_int_equal(unlink(file), 0);

    if (geteuid() != 0) {
        write_file(file, "~/src\n");
        assert_int_equal(chmod(file, 0), 0);
        assert_int_equal(launch_policy_file_read(file, &f, NULL), 0);
        assert_int_equal(f->state, LAUNCH_POLICY_FILE_UNREADABLE);
        assert_int_equal(f->read_errno, EACCES);
        launch_policy_file_free(&f);
    }

    /* ENOTDIR on the way: unreadable, not absent. */
    char notdir[PATH_MAX];
    snprintf(notdir, sizeof(notdir), "%s/src/proj/file", r->home);
    write_file(notdir, "x");
    strcat(notdir, "/allowed-paths");
    assert_int_equal(launch_policy_file_read(notdir, &f, NULL), 0);
    assert_int_equal(f->state, LAUNCH_POLICY_FILE_UNREADABLE);
    assert_int_equal(f->read_errno, ENOTDIR);
    launch_policy_file_free(&f);

    as_error_t *err = NULL;
    assert_int_equal(launch_policy_file_read(NULL, &f, &err), -EINVAL);
    assert_null(f);
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_normalize),
        cmocka_unit_test(test_path_relation),
        cmocka_unit_test(test_default_root_allows_home_projects),
        cmocka_unit_test(test_trailing_and_duplicate_slashes),
        cmocka_unit_test(test_dotdot_segments),
        cmocka_unit_test(test_default_root_excludes_dot_dirs_and_outside),
        cmocka_unit_test(test_home_and_parents_refused),
        cmocka_unit_test(test_system_dirs_refused),
        cmocka_unit_test(test_secret_dirs_refused),
        cmocka_unit_test(test_secret_dir_symlink_target_is_guarded),
        cmocka_unit_test(test_runtime_dir_refused),
        cmocka_unit_test(test_podman_storage_refused),
        cmocka_unit_test(test_config_dir_refused),
        cmocka_unit_test(test_path_entries_refused),
        cmocka_unit_test(test_relative_path_entries_refused),
        cmocka_unit_test(test_home_dot_dir_refused),
        cmocka_unit_test(test_hard_rules_beat_allowed_paths),
        cmocka_unit_test(test_symlink_into_refused_area),
        cmocka_unit_test(test_symlink_from_refused_area_into_allowed),
        cmocka_unit_test(test_symlinked_home),
        cmocka_unit_test(test_root_under_dot_dir),
        cmocka_unit_test(test_listed_roots_resolve_symlinks),
        cmocka_unit_test(test_roots_compare_components),
        cmocka_unit_test(test_missing_vs_empty_file),
        cmocka_unit_test(test_comments_and_whitespace),
        cmocka_unit_test(test_missing_root_warns),
        cmocka_unit_test(test_malformed_lines),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_control_bytes_escaped),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_names_and_free),
        cmocka_unit_test_setup_teardown(test_real_symlinks, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(test_real_allowed_paths_file, real_setup, real_teardown),
    };
    return cmocka_run_group_tests_name("launch_policy", tests, NULL, NULL);
}
