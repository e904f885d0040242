/* git_global_files and git_config_file_read against real git (/usr/bin/git):
 * for each case the same environment goes to git (posix_spawn, nothing else
 * in it) and to our reader, in a scratch tree where every candidate file
 * exists with its own user.name, so a wrong rule shows as a different list:
 *  - the files git read as its global scope (`git config --show-scope
 *    --show-origin --list`; not `--global`, which reads one file only) and
 *    the ones our reader reads;
 *  - the user.name git ends with (`git config --get user.name`, the last
 *    file winning) and git_identity_read's;
 *  - with strace, every path git tries (its access(2) calls) and our list. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/strv.h"
#include "config/git_global.h"
#include "config/git_identity.h"

#define GIT "/usr/bin/git"
#define STRACE "/usr/bin/strace"

static char dir[] = "/tmp/as-test-gitglobal-XXXXXX";
static int saved_cwd = -1;

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void make_dir(const char *rel)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    assert_int_equal(mkdir(path, 0755), 0);
}

/* Every file git could read, each naming itself; the tests run in dir/cwd. */
static int setup(void **state)
{
    (void)state;
    if (mkdtemp(dir) == NULL || (saved_cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    static const char *const dirs[] = { "home", "home/.config", "home/.config/git", "xdg", "xdg/git", "cwd" };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        make_dir(dirs[i]);
    put("home/.gitconfig", "[user]\n\tname = from home/.gitconfig\n");
    put("home/.config/git/config", "[user]\n\tname = from home/.config\n\temail = dot@example.test\n");
    put("xdg/git/config", "[user]\n\tname = from xdg\n\temail = xdg@example.test\n");
    put("alt", "[user]\n\tname = from GIT_CONFIG_GLOBAL\n");
    put("plain", "not a directory\n");
    char cwd[256];
    snprintf(cwd, sizeof(cwd), "%s/cwd", dir);
    return chdir(cwd);
}

static int teardown(void **state)
{
    (void)state;
    if (saved_cwd >= 0 && fchdir(saved_cwd) == 0)
        close(saved_cwd);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Runs argv with exactly envp; its stdout, and its exit code in *ret_rc. */
static char *run(char *const *argv, char *const *envp, int *ret_rc)
{
    int fds[2];
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int r = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (r != 0)
        fail_msg("cannot run %s: %s", argv[0], strerror(r));
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
        fwrite(buf, 1, (size_t)n, mem);
    fclose(mem);
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    *ret_rc = WEXITSTATUS(status);
    return out;
}

/* A case's variables, "@" standing for the scratch directory, after what
 * every case has: no system file, no repository found above the cwd. */
static char **case_env(const char *const *vars)
{
    char **envp = NULL;
    char *line = NULL;
    assert_true(asprintf(&line, "GIT_CEILING_DIRECTORIES=%s", dir) > 0);
    assert_int_equal(strv_push(&envp, "GIT_CONFIG_NOSYSTEM=1"), 0);
    assert_int_equal(strv_push(&envp, line), 0);
    free(line);
    for (size_t i = 0; vars[i] != NULL; i++) {
        const char *at = strchr(vars[i], '@');
        if (at != NULL)
            assert_true(asprintf(&line, "%.*s%s%s", (int)(at - vars[i]), vars[i], dir, at + 1) > 0);
        else
            assert_non_null(line = strdup(vars[i]));
        assert_int_equal(strv_push(&envp, line), 0);
        free(line);
    }
    return envp;
}

static void append(char *list, size_t size, const char *item, size_t len)
{
    snprintf(list + strlen(list), size - strlen(list), "%s%.*s", list[0] ? " " : "", (int)len, item);
}

/* The files git read as global config, in order, space-separated. */
static void git_read_files(char *const *envp, char *ret, size_t size)
{
    char *argv[] = { GIT, "config", "--show-scope", "--show-origin", "--list", NULL };
    int rc;
    char *out = run(argv, envp, &rc);
    assert_int_equal(rc, 0);
    ret[0] = '\0';
    const char *last = "";
    size_t last_len = 0;
    for (char *line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strncmp(line, "global\tfile:", 12) != 0)
            fail_msg("a line of another scope or origin: %s", line);
        const char *path = line + 12, *tab = strchr(path, '\t');
        assert_non_null(tab);
        if ((size_t)(tab - path) != last_len || strncmp(path, last, last_len) != 0)
            append(ret, size, path, (size_t)(tab - path));
        last = path;
        last_len = (size_t)(tab - path);
    }
    free(out);
}

/* The files our reader reads, in order. */
static void our_read_files(char *const *files, char *ret, size_t size)
{
    ret[0] = '\0';
    for (size_t i = 0; files[i] != NULL; i++) {
        char *text = NULL;
        size_t len = 0;
        as_error_t *err = NULL;
        int r = git_config_file_read(files[i], &text, &len, &err);
        if (r < 0)
            fail_msg("%s", err->msg);
        if (r > 0)
            append(ret, size, files[i], strlen(files[i]));
        free(text);
    }
}

static char *git_user_name(char *const *envp)
{
    char *argv[] = { GIT, "config", "--get", "user.name", NULL };
    int rc;
    char *out = run(argv, envp, &rc);
    assert_true(rc == 0 || rc == 1);        /* 1: not set */
    if (rc == 1) {
        free(out);
        return NULL;
    }
    out[strcspn(out, "\n")] = '\0';
    return out;
}

/* Both comparisons of one case; *ret_files gets our list for more checks. */
static void compare(const char *what, const char *const *vars, char ***ret_files)
{
    char **envp = case_env(vars);
    char **files = NULL;
    as_error_t *err = NULL;
    assert_int_equal(git_global_files(envp, &files, &err), 0);
    char gits[2048], ours[2048];
    git_read_files(envp, gits, sizeof(gits));
    our_read_files(files, ours, sizeof(ours));
    if (strcmp(gits, ours) != 0)
        fail_msg("%s: git read [%s], we read [%s]", what, gits, ours);
    char *git_name = git_user_name(envp);
    git_identity_t id = { NULL, NULL };
    assert_int_equal(git_identity_read(files, &id, &err), 0);
    if ((git_name == NULL) != (id.name == NULL) || (git_name != NULL && strcmp(git_name, id.name) != 0))
        fail_msg("%s: git's user.name is %s, ours %s", what, git_name ? git_name : "unset",
                 id.name ? id.name : "unset");
    free(git_name);
    git_identity_clear(&id);
    strv_free(envp);
    if (ret_files != NULL)
        *ret_files = files;
    else
        strv_free(files);
}

typedef struct env_case {
    const char *what;
    const char *vars[4];
} env_case_t;

static const env_case_t cases[] = {
    { "HOME alone: ~/.config/git/config, then ~/.gitconfig (which wins)", { "HOME=@/home", NULL } },
    { "XDG_CONFIG_HOME empty: as unset", { "HOME=@/home", "XDG_CONFIG_HOME=", NULL } },
    { "XDG_CONFIG_HOME absolute: in place of ~/.config", { "HOME=@/home", "XDG_CONFIG_HOME=@/xdg", NULL } },
    { "XDG_CONFIG_HOME relative: taken as it is", { "HOME=@/home", "XDG_CONFIG_HOME=../xdg", NULL } },
    { "HOME unset, XDG_CONFIG_HOME set: the XDG file only", { "XDG_CONFIG_HOME=@/xdg", NULL } },
    { "neither set: nothing", { NULL } },
    { "HOME empty: /.config/git/config, /.gitconfig", { "HOME=", NULL } },
    { "HOME empty, XDG_CONFIG_HOME set", { "HOME=", "XDG_CONFIG_HOME=@/xdg", NULL } },
    { "HOME relative", { "HOME=../home", NULL } },
    { "GIT_CONFIG_GLOBAL empty: no file at all", { "HOME=@/home", "XDG_CONFIG_HOME=@/xdg", "GIT_CONFIG_GLOBAL=", NULL } },
    { "GIT_CONFIG_GLOBAL a file: it alone", { "HOME=@/home", "XDG_CONFIG_HOME=@/xdg", "GIT_CONFIG_GLOBAL=@/alt", NULL } },
    { "GIT_CONFIG_GLOBAL missing: nothing, no fallback", { "HOME=@/home", "GIT_CONFIG_GLOBAL=@/missing", NULL } },
    { "GIT_CONFIG_GLOBAL under a plain file (ENOTDIR): nothing", { "HOME=@/home", "GIT_CONFIG_GLOBAL=@/plain/x", NULL } },
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static void same_files_and_name_as_git(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_CASES; i++)
        compare(cases[i].what, cases[i].vars, NULL);
}

/* The scratch tree makes the comparisons above tell the rules apart: the
 * plain case reads two files, and the later one's name wins. */
static void the_plain_case_reads_both_files(void **state)
{
    (void)state;
    char **files = NULL;
    compare(cases[0].what, cases[0].vars, &files);
    assert_int_equal(strv_length(files), 2);
    git_identity_t id = { NULL, NULL };
    as_error_t *err = NULL;
    assert_int_equal(git_identity_read(files, &id, &err), 0);
    assert_string_equal(id.name, "from home/.gitconfig");
    assert_string_equal(id.email, "dot@example.test");
    git_identity_clear(&id);
    strv_free(files);
}

/* git passes over a symlink to nothing (access fails with ENOENT). */
static void a_dangling_symlink_is_passed_over(void **state)
{
    (void)state;
    char path[256], moved[256];
    snprintf(path, sizeof(path), "%s/home/.gitconfig", dir);
    snprintf(moved, sizeof(moved), "%s/home/.gitconfig.real", dir);
    assert_int_equal(rename(path, moved), 0);
    assert_int_equal(symlink("nothing-here", path), 0);
    static const char *const vars[] = { "HOME=@/home", NULL };
    compare("~/.gitconfig a symlink to nothing", vars, NULL);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rename(moved, path), 0);
}

/* Every path git tries for its global scope (access(2), traced), once:
 * git reads its config more than once per command. */
static void strace_paths(char *const *envp, char *ret, size_t size)
{
    char trace[256];
    snprintf(trace, sizeof(trace), "%s/trace", dir);
    char *argv[] = { STRACE, "-qq", "-e", "trace=access", "-o", trace, GIT, "config", "--list", NULL };
    int rc;
    free(run(argv, envp, &rc));
    assert_int_equal(rc, 0);
    FILE *f = fopen(trace, "r");
    assert_non_null(f);
    char line[1024];
    ret[0] = '\0';
    char **seen = NULL;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "access(\"", 8) != 0 || strncmp(line, "access(\"/etc/ld.so.preload\"", 27) == 0)
            continue;
        char *end = strstr(line + 8, "\", ");
        assert_non_null(end);
        *end = '\0';
        if (strv_contains(seen, line + 8))
            break;
        assert_int_equal(strv_push(&seen, line + 8), 0);
        append(ret, size, line + 8, strlen(line + 8));
    }
    fclose(f);
    strv_free(seen);
    unlink(trace);
}

static void same_candidates_as_gits_access_calls(void **state)
{
    (void)state;
    char *probe_argv[] = { STRACE, "-qq", "-o", "/dev/null", "/bin/true", NULL };
    char *probe_env[] = { NULL };
    int rc = -1;
    if (access(STRACE, X_OK) == 0)
        free(run(probe_argv, probe_env, &rc));
    if (rc != 0)
        skip();                     /* no strace, or no ptrace here */
    for (size_t i = 0; i < N_CASES; i++) {
        char **envp = case_env(cases[i].vars);
        char **files = NULL;
        as_error_t *err = NULL;
        assert_int_equal(git_global_files(envp, &files, &err), 0);
        char gits[2048], ours[2048] = "";
        strace_paths(envp, gits, sizeof(gits));
        for (size_t j = 0; files[j] != NULL; j++)
            append(ours, sizeof(ours), files[j], strlen(files[j]));
        /* an empty GIT_CONFIG_GLOBAL: git tries "", we know it is no file */
        if (strcmp(gits, ours) != 0)
            fail_msg("%s: git tried [%s], our list is [%s]", cases[i].what, gits, ours);
        strv_free(files);
        strv_free(envp);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_files_and_name_as_git),
        cmocka_unit_test(the_plain_case_reads_both_files),
        cmocka_unit_test(a_dangling_symlink_is_passed_over),
        cmocka_unit_test(same_candidates_as_gits_access_calls),
    };
    return cmocka_run_group_tests_name("git_global", tests, setup, teardown);
}
