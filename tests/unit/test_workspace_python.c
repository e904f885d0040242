/* The end-of-session checks of Python virtual environments (threat 44) and
 * of the if_exists project configs (threat 45), on real directories made
 * next to the test binary: each rule, a plain `pip install` of a wheel that
 * must stay, and nothing disabled twice. */
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
#include <unistd.h>

#include "real_tree.h"
#include "base/util.h"
#include "workspace/host_names.h"
#include "workspace/link_resolve.h"
#include "workspace/python_env.h"
#include "workspace/workspace_int.h"

#define SP ".venv/lib/python3.11/site-packages"

static void make(const struct real *r, const char *spec, const char *content)
{
    real_make(r, spec, content, true);
}

static void make_exec(const struct real *r, const char *rel, const char *content)
{
    char path[PATH_MAX * 2];
    make(r, rel, content);
    snprintf(path, sizeof(path), "%s/%s", r->launch, rel);
    assert_int_equal(chmod(path, 0755), 0);
}

static void remove_rel(const struct real *r, const char *rel)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/%s", r->launch, rel);
    assert_int_equal(unlink(path), 0);
}


/* The defaults, all removed, and `lines`: no placeholder in the way. */
static workspace_t *begin(const struct real *r, const char *lines)
{
    char user_file[PATH_MAX * 2];
    snprintf(user_file, sizeof(user_file), "%s/protected-paths", r->home);
    workspace_config_t cfg = { .launch_dir = r->launch, .home = r->home, .user_file = user_file };
    workspace_rules_t *rules = NULL;
    as_error_t *err = NULL;
    if (workspace_rules_build(&cfg, &rules, &err) < 0)
        fail_msg("rules: %s", err->msg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    for (size_t i = 0; i < rules->n; i++)
        if (!rules->v[i].if_exists)
            fprintf(f, "!%s\n", rules->v[i].path);
    fputs(lines, f);
    fclose(f);
    workspace_rules_free(rules);
    cfg.user_text = text;
    cfg.user_len = len;
    if (workspace_rules_build(&cfg, &rules, &err) < 0)
        fail_msg("rules: %s", err->msg);
    free(text);
    workspace_t *ws = NULL;
    if (workspace_plan(r->launch, r->home, rules, &ws, &err) < 0 || workspace_begin(ws, &err) < 0)
        fail_msg("begin: %s", err->msg);
    return ws;
}

typedef int (*check_fn)(const workspace_t *, const workspace_snapshot_t *, ws_actions_t *, as_error_t **);

/* The host's commands for the python check: a directory of this test's,
 * `hostbin` beside the tree, holding an executable `git`. */
static char host_bin[PATH_MAX * 2];

static void make_host_bin(const struct real *r)
{
    char git[PATH_MAX * 3];
    snprintf(host_bin, sizeof(host_bin), "%s/hostbin", r->home);
    assert_int_equal(mkdir(host_bin, 0755), 0);
    snprintf(git, sizeof(git), "%s/git", host_bin);
    int fd = open(git, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
    assert_true(fd >= 0);
    close(fd);
}

static int python_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts,
                        as_error_t **err)
{
    host_names_t *hn = NULL;
    int r = host_names_new(host_bin[0] != '\0' ? host_bin : NULL, ws->launch_dir, &hn, err);
    if (r == 0)
        r = ws_python_check(ws, after, hn, acts, err);
    host_names_free(hn);
    return r;
}

/* Runs the check on the tree as it is now; "rel: why\n" for each action,
 * each one moved (none kept, none twice). */
static char *run_check(workspace_t *ws, check_fn check)
{
    workspace_snapshot_t *after = NULL;
    as_error_t *err = NULL;
    ws_actions_t acts = { 0 };
    assert_int_equal(ws_snapshot_take(ws, ws->before, &after, &err), 0);
    if (check(ws, after, &acts, &err) < 0)
        fail_msg("check: %s", err->msg);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    for (size_t i = 0; i < acts.n; i++) {
        if (acts.v[i].kind != ACT_MOVED)
            fail_msg("%s: not moved (%d)", acts.v[i].rel, (int)acts.v[i].kind);
        for (size_t j = 0; j < i; j++)
            if (strcmp(acts.v[i].rel, acts.v[j].rel) == 0)
                fail_msg("%s: twice", acts.v[i].rel);
        fprintf(f, "%s: %s\n", acts.v[i].rel, acts.v[i].why);
    }
    fclose(f);
    ws_actions_clear(&acts);
    ws_snapshot_free(after);
    return out;
}

/* A virtual environment as `python3 -m venv` makes it, with pip. */
static void make_venv(const struct real *r, const char *dir)
{
    char rel[256];
    static const char *const files[] = {
        "pyvenv.cfg", "bin/activate", "bin/activate.fish", "bin/Activate.ps1",
        "lib/python3.11/site-packages/pip/__init__.py",
        "lib/python3.11/site-packages/distutils-precedence.pth",
    };
    for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
        snprintf(rel, sizeof(rel), "%s/%s", dir, files[i]);
        make(r, rel, i == 0 ? "home = /usr/bin\nversion = 3.11.2\n"
                     : i == 5 ? "import os; var = 'SETUPTOOLS_USE_DISTUTILS'\n" : "# x\n");
    }
    snprintf(rel, sizeof(rel), "%s/bin/pip", dir);
    make_exec(r, rel, "#!/p/.venv/bin/python\nimport pip\n");
    snprintf(rel, sizeof(rel), "%s/bin/python -> /usr/bin/python3", dir);
    make(r, rel, NULL);
    snprintf(rel, sizeof(rel), "%s/bin/python3 -> python", dir);
    make(r, rel, NULL);
    snprintf(rel, sizeof(rel), "%s/lib64 -> lib", dir);
    make(r, rel, NULL);
}

/* ---- tests -------------------------------------------------------------- */

static void relevant_paths(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "/.venv/pyvenv.cfg", "/pyvenv.cfg", "/a/lib/python3.11/site-packages/x.pth",
        "/usr/lib/python3/dist-packages/y.pth", "/a/sitecustomize", "/a/sitecustomize.py",
        "/a/b/usercustomize.cpython-311.pyc", "/.venv/bin/python", "/bin/anything", "/a/bin/x.so",
    };
    static const char *const no[] = {
        "/.venv/pyvenv.cfg.bak", "/a/site-packages-x/x.pth", "/a/lib/x.pth", "/a/xsitecustomize.py",
        "/a/sitecustomizer.py", "/a/bin", "/a/binx/python", "/a/.bin/tool", "/x.pth", "/a/b/c",
    };
    for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
        if (!ws_python_relevant(yes[i]))
            fail_msg("not relevant: %s", yes[i]);
    for (size_t i = 0; i < ARRAY_SIZE(no); i++)
        if (ws_python_relevant(no[i]))
            fail_msg("relevant: %s", no[i]);
}

/* A .pth python would read, past what the check reads. */
static void make_big_pth(const struct real *r)
{
    char big[PATH_MAX * 2];
    snprintf(big, sizeof(big), "%s/%s/big.pth", r->launch, SP);
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    for (int i = 0; i < 1024 * 1024 + 1; i++)
        fputc('#', f);
    fclose(f);
}

static void assert_pth_verdicts(const char *out)
{
    static const char *const exec_lines[] = { "evil", "tab", "cr", "bom" };
    for (size_t i = 0; i < ARRAY_SIZE(exec_lines); i++) {
        char line[256];
        snprintf(line, sizeof(line), SP "/%s.pth: a .pth file with a line python runs", exec_lines[i]);
        real_assert_contains(out, line);
    }
    real_assert_contains(out, SP "/vt.pth: a .pth file that is not plain ASCII text");
    real_assert_contains(out, SP "/utf8.pth: a .pth file that is not plain ASCII text");
    real_assert_contains(out, SP "/up.pth: a .pth file naming a directory outside its site-packages");
    real_assert_contains(out, SP "/abs.pth: a .pth file naming a directory outside");
    real_assert_contains(out, SP "/vialink.pth: a .pth file naming a directory outside");
    real_assert_contains(out, SP "/link.pth: a .pth file that cannot be read");
    real_assert_contains(out, SP "/dir.pth: a .pth file that cannot be read");
    real_assert_contains(out, SP "/big.pth: a .pth file that cannot be read");
    real_assert_lacks(out, "distutils-precedence.pth");
}

/* What the interpreter, pip and activate would run: each rule. */
static void disables_what_python_runs_at_start(void **state)
{
    struct real *r = *state;
    make_venv(r, ".venv");
    make_venv(r, "old2");
    make(r, SP "/sub/", NULL);
    make(r, "elsewhere/", NULL);
    workspace_t *ws = begin(r, "");

    make(r, ".venv/pyvenv.cfg", "home = /x/evil\n");
    make(r, ".venv/bin/activate", "touch /tmp/mark\n");                 /* appended */
    make(r, ".venv/bin/activate_this.py", "import os\n");
    make(r, ".venv/bin/python -> ../../elsewhere/python", NULL);         /* re-pointed */
    make(r, ".venv/bin/os.py", "");
    make(r, ".venv/bin/x.cpython-311-x86_64-linux-gnu.so", "");
    make(r, ".venv/bin/json/", NULL);
    make(r, ".venv/bin/sitecustomize/sitecustomize.py", "");            /* inside what is disabled */
    make(r, ".venv/lib64 -> ../elsewhere", NULL);
    make(r, SP "/sitecustomize.py", "import os\n");
    make(r, ".venv/usercustomize/", NULL);
    make(r, SP "/evil.pth", "import os; open('/tmp/mark', 'w')\n");
    make(r, SP "/tab.pth", "# first\nimport\tos\n");
    make(r, SP "/cr.pth", "# c\rimport os\n");                          /* \r ends a line too */
    make(r, SP "/bom.pth", "\xef\xbb\xbfimport os\n");                  /* 3.13 drops the BOM */
    make(r, SP "/vt.pth", "# c\vimport os\n");                          /* 3.13 splits at \v */
    make(r, SP "/utf8.pth", "# \xe2\x80\xa8import os\n");               /* ... and at U+2028 */
    make(r, SP "/up.pth", "../../../../elsewhere\n");
    make(r, SP "/abs.pth", "/tmp\n");
    make(r, SP "/sublink -> ../../../../elsewhere", NULL);
    make(r, SP "/vialink.pth", "sub\nsublink\n");                                /* named inside, leads out */
    make(r, SP "/link.pth -> evil.pth", NULL);
    make(r, SP "/dir.pth/", NULL);
    remove_rel(r, "old2/pyvenv.cfg");                                   /* still an environment */
    make(r, "old2/bin/activate", "touch /tmp/mark\n");
    make(r, "fresh/pyvenv.cfg", "home = /usr/bin\nextends-environment = /x\n");  /* a key venv never writes */
    make(r, "intree/pyvenv.cfg", "home = elsewhere\n");                  /* not a path of the system */
    make(r, "plain/bin/activate", "echo not an environment\n");
    make(r, "plain/lib/site-packages/x.pth", "import os\n");
    make_big_pth(r);

    char *out = run_check(ws, python_check);
    real_assert_contains(out, ".venv/pyvenv.cfg: a virtual environment's pyvenv.cfg");
    real_assert_contains(out, ".venv/bin/activate: an activate script of a virtual environment");
    real_assert_contains(out, ".venv/bin/activate_this.py: an activate script");
    real_assert_contains(out, ".venv/bin/python: an interpreter of a virtual environment");
    real_assert_contains(out, ".venv/bin/os.py: a Python module in a virtual environment's bin directory");
    real_assert_contains(out, ".venv/bin/x.cpython-311-x86_64-linux-gnu.so: a Python module");
    real_assert_contains(out, ".venv/bin/json: a Python module");
    real_assert_contains(out, ".venv/bin/sitecustomize: a sitecustomize or usercustomize module");
    real_assert_lacks(out, "sitecustomize/sitecustomize.py");
    real_assert_contains(out, ".venv/lib64: a symlink on the way to a virtual environment's bin or site-packages");
    real_assert_contains(out, SP "/sitecustomize.py: a sitecustomize or usercustomize module");
    real_assert_contains(out, ".venv/usercustomize: a sitecustomize or usercustomize module");
    assert_pth_verdicts(out);
    real_assert_contains(out, "old2/bin/activate: an activate script");
    real_assert_contains(out, "fresh/pyvenv.cfg: a virtual environment's pyvenv.cfg");
    real_assert_contains(out, "intree/pyvenv.cfg: a virtual environment's pyvenv.cfg");
    /* the user's own, unchanged; and no environment around */
    real_assert_lacks(out, "bin/pip");
    real_assert_lacks(out, "bin/python3");
    real_assert_lacks(out, "activate.fish");
    real_assert_lacks(out, "plain/");
    assert_true(real_exists(r, ".venv/bin/activate" DISABLED_SUFFIX) && !real_exists(r, ".venv/bin/activate"));
    assert_true(real_exists(r, SP "/evil.pth" DISABLED_SUFFIX) && !real_exists(r, SP "/evil.pth"));
    free(out);
    workspace_free(ws);
}

/* What `pip install --no-index ./x.whl` writes stays; a .pth naming a
 * directory of its own site-packages too. */
static void a_plain_pip_install_stays(void **state)
{
    struct real *r = *state;
    make_venv(r, ".venv");
    workspace_t *ws = begin(r, "");
    char *out = run_check(ws, python_check);
    assert_string_equal(out, "");
    free(out);

    make(r, SP "/x/__init__.py", "X = 1\n");
    make(r, SP "/x/__pycache__/__init__.cpython-311.pyc", "");
    static const char *const info[] = { "METADATA", "RECORD", "WHEEL", "INSTALLER", "entry_points.txt",
                                        "top_level.txt", "direct_url.json" };
    for (size_t i = 0; i < ARRAY_SIZE(info); i++) {
        char rel[256];
        snprintf(rel, sizeof(rel), SP "/x-0.1.dist-info/%s", info[i]);
        make(r, rel, "x\n");
    }
    make_exec(r, ".venv/bin/x-cli", "#!/p/.venv/bin/python\nfrom x import main\n");
    make(r, SP "/x-extra/", NULL);
    make(r, SP "/x-extra.pth", "# its own directory\n\nx-extra\n  \n./x-extra/\nmissing-dir\n");
    out = run_check(ws, python_check);
    assert_string_equal(out, "");
    free(out);
    workspace_free(ws);
}

/* if_exists configs: created during the session, or a file changed, is
 * disabled; there at the start, unchanged, stays; .git/commondir is git's. */
static void configs_created_during_the_session_are_disabled(void **state)
{
    struct real *r = *state;
    make(r, ".cursor/mcp.json", "{}\n");           /* the user's own */
    make(r, "crush.json", "{}\n");
    make(r, ".git/HEAD", "ref: refs/heads/main\n");
    workspace_t *ws = begin(r, "");
    make(r, ".gemini/settings.json", "{\"mcpServers\":{\"x\":{\"command\":\"touch\"}}}\n");
    make(r, "opencode.json", "{}\n");
    make(r, ".devcontainer.json", "{\"initializeCommand\":\"touch /tmp/x\"}\n");
    make(r, ".config/mise/config.toml", "[hooks]\n");
    make(r, ".codex -> .cursor", NULL);
    make(r, "elsewhere/wrapper/gradle-wrapper.properties", "distributionUrl=x\n");
    make(r, "gradle -> elsewhere", NULL);
    make(r, ".git/commondir", "../elsewhere\n");
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/crush.json", r->launch);   /* changed on the host */
    assert_int_equal(chmod(path, 0600), 0);

    char *out = run_check(ws, ws_configs_check);
    real_assert_contains(out, ".gemini: a project config of Gemini CLI, which it obeys when started here, "
                         "created during the session\n");
    real_assert_contains(out, "opencode.json: a project config of opencode");
    real_assert_contains(out, ".devcontainer.json: a project config of Dev Containers");
    real_assert_contains(out, ".config/mise: a project config of mise");
    real_assert_contains(out, ".codex: a project config of Codex");
    real_assert_contains(out, "crush.json: a project config of Crush, which it obeys when started here, "
                         "changed during the session\n");
    real_assert_contains(out, "gradle: a symlink on the way to gradle/wrapper, a project config of the Gradle "
                         "wrapper and IDEs, made or re-pointed during the session\n");
    real_assert_lacks(out, "gradle/wrapper:");
    real_assert_lacks(out, ".cursor");
    real_assert_lacks(out, ".git/commondir");
    assert_true(real_exists(r, ".gemini" DISABLED_SUFFIX "/settings.json") && !real_exists(r, ".gemini"));
    assert_true(real_exists(r, ".cursor/mcp.json"));
    free(out);
    workspace_free(ws);
}

/* Threats 55 and 57: an environment made during the session, as venv makes
 * it, keeps what has venv's shape (its interpreter links to a python of the
 * system, a pyvenv.cfg naming the system's, pip's own scripts); what its
 * bin/ holds under the name of a command on the host's PATH is disabled
 * (git, in the test's own PATH), and so is its pip.conf (pip reads
 * sys.prefix/pip.conf). */
static void made_in_the_session(void **state)
{
    struct real *r = *state;
    if (!link_system_file("/usr/bin/python3"))
        fail_msg("/usr/bin/python3, root's and not writable, is what venv links to here (scripts/setup-host.sh)");
    make_host_bin(r);
    workspace_t *ws = begin(r, "");
    make_venv(r, "made");
    make(r, "made/bin/git -> /bin/sh", NULL);
    make_exec(r, "made/bin/black", "#!/p/made/bin/python\nimport black\n");   /* no host command */
    make_exec(r, "made/bin/pip3.11", "#!/p/made/bin/python\nimport pip\n");    /* venv's own name */
    make(r, "made/pip.conf", "[global]\nindex-url = http://127.0.0.1:9/simple\n");
    make(r, "made/bin/python3.11 -> /bin/sh", NULL);                            /* not even named python */
    char fake[PATH_MAX * 2], spec[PATH_MAX * 3];                                  /* named so, not the system's */
    snprintf(fake, sizeof(fake), "%s/python3", r->home);
    close(open(fake, O_WRONLY | O_CREAT | O_CLOEXEC, 0755));
    snprintf(spec, sizeof(spec), "made/bin/python3.12 -> %s", fake);
    make(r, spec, NULL);
    char *out = run_check(ws, python_check);
    real_assert_lacks(out, "made/pyvenv.cfg");
    real_assert_lacks(out, "made/bin/python:");
    real_assert_lacks(out, "made/bin/python3:");
    real_assert_lacks(out, "made/lib64");
    real_assert_lacks(out, "made/bin/pip");
    real_assert_lacks(out, "made/bin/black");
    real_assert_contains(out, "made/bin/activate: an activate script");
    real_assert_contains(out, "made/bin/git: an entry of a virtual environment's bin named like the host command git (");
    real_assert_contains(out, "made/pip.conf: a config file in a virtual environment that a tool run from it reads");
    real_assert_contains(out, "made/bin/python3.11: an interpreter of a virtual environment (changed or re-pointed");
    real_assert_contains(out, "made/bin/python3.12: an interpreter of a virtual environment, a link out of the tree to "
                         "something else than a python of the system");
    real_assert_contains(out, "made/lib/python3.11/site-packages/distutils-precedence.pth: a .pth file with a line");
    free(out);
    workspace_free(ws);
}

/* The verdicts by name and link target alone (python_env.h). */
static void verdicts_by_shape(void **state)
{
    (void)state;
    assert_null(python_env_verdict("v/bin/python", "bin/python", S_IFLNK | 0777, "python3"));
    assert_ptr_equal(python_env_verdict("v/bin/python3", "bin/python3", S_IFLNK | 0777, "/usr/bin/python3"),
                     PYTHON_ENV_SYSTEM_PYTHON);
    assert_ptr_not_equal(python_env_verdict("v/bin/python3", "bin/python3", S_IFLNK | 0777, "/bin/sh"),
                         PYTHON_ENV_SYSTEM_PYTHON);
    assert_non_null(python_env_verdict("v/bin/python3", "bin/python3", S_IFLNK | 0777, "../../x/python3"));
    assert_non_null(python_env_verdict("v/bin/python3", "bin/python3", S_IFREG | 0755, NULL));
    assert_null(python_env_verdict("v/lib64", "lib64", S_IFLNK | 0777, "lib"));
    assert_non_null(python_env_verdict("v/lib64", "lib64", S_IFLNK | 0777, "../elsewhere"));
    assert_ptr_equal(python_env_verdict("v/pyvenv.cfg", "pyvenv.cfg", S_IFREG | 0644, NULL), PYTHON_ENV_CFG);
    assert_non_null(python_env_verdict("v/pip.conf", "pip.conf", S_IFREG | 0644, NULL));
    assert_null(python_env_verdict("v/etc/pip.conf", "etc/pip.conf", S_IFREG | 0644, NULL));
    assert_true(python_env_own_bin_name("pip3.11") && python_env_own_bin_name("python3") &&
                python_env_own_bin_name("activate.fish") && python_env_own_bin_name("Activate.ps1"));
    assert_false(python_env_own_bin_name("git") || python_env_own_bin_name("pipx") ||
                 python_env_own_bin_name("python-evil"));
    assert_true(python_env_link_shape("bin/python3.11", "/opt/py/bin/python3.11"));
    assert_true(python_env_link_shape("bin/python3", "python3.11"));
    assert_false(python_env_link_shape("bin/python3", "../x/python3.11"));
    assert_false(python_env_link_shape("bin/git", "/usr/bin/python3"));
    assert_int_equal(python_env_cfg_key("home"), 2);
    assert_int_equal(python_env_cfg_key("include-system-site-packages"), 1);
    assert_int_equal(python_env_cfg_key("extends-environment"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(relevant_paths),
        cmocka_unit_test_setup_teardown(disables_what_python_runs_at_start, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(a_plain_pip_install_stays, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(configs_created_during_the_session_are_disabled, real_setup,
                                        real_teardown),
        cmocka_unit_test_setup_teardown(made_in_the_session, real_setup, real_teardown),
        cmocka_unit_test(verdicts_by_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
