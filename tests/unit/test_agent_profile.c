/* The agents' profiles (config/agents/NAME) and the settings file: every
 * packaged profile parses and names an allowlist that parses; malformed
 * ones are refused with FILE:LINE; the plan runs the agent's command with
 * its variables and gives the shared login volume only to an agent with
 * login-env; the agent's allowlist merges into the user's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist_of.h"
#include "plan_of.h"
#include "base/strv.h"
#include "config/agent_profile.h"
#include "config/allowlist.h"
#include "config/allowlist_merge.h"
#include "config/user_settings.h"
#include "session/agent_spec.h"
#include "session/session_plan.h"
#include "workspace/workspace.h"

static const char *source_dir = AS_SOURCE_DIR;

/* A file of the source tree, whole; NULL when absent. */
static char *source_file(const char *rel, size_t *ret_len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", source_dir, rel);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return NULL;
    char *buf = calloc(1, 256 * 1024);
    assert_non_null(buf);
    *ret_len = fread(buf, 1, 256 * 1024 - 1, f);
    fclose(f);
    return buf;
}

static agent_profile_t *packaged(const char *name)
{
    char rel[128];
    size_t len = 0;
    snprintf(rel, sizeof(rel), "config/agents/%s", name);
    char *text = source_file(rel, &len);
    if (text == NULL)
        fail_msg("no %s", rel);
    agent_profile_t *p = NULL;
    as_error_t *err = NULL;
    if (agent_profile_parse(rel, name, text, len, &p, &err) < 0)
        fail_msg("%s", err->msg);
    free(text);
    return p;
}

static agent_profile_t *parse_ok(const char *text)
{
    agent_profile_t *p = NULL;
    as_error_t *err = NULL;
    if (agent_profile_parse("prof", "x", text, strlen(text), &p, &err) < 0)
        fail_msg("refused: %s", err->msg);
    return p;
}

static void refused(const char *text, const char *message)
{
    agent_profile_t *p = NULL;
    as_error_t *err = NULL;
    assert_int_equal(agent_profile_parse("prof", "x", text, strlen(text), &p, &err), -EINVAL);
    assert_null(p);
    if (strstr(err->msg, message) == NULL)
        fail_msg("expected \"%s\" in \"%s\"", message, err->msg);
    as_error_free(&err);
}

static void every_packaged_profile_parses(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/config/agents", source_dir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        assert_true(agent_name_valid(e->d_name));
        agent_profile_t *p = packaged(e->d_name);
        assert_string_equal(p->name, e->d_name);
        assert_non_null(p->login);
        assert_non_null(p->home);
        /* its allowlist: the default, or a file of its own that parses */
        if (!agent_profile_allowlist_is_default(p)) {
            char rel[128];
            size_t len = 0;
            snprintf(rel, sizeof(rel), "config/%s", p->allowlist);
            char *text = source_file(rel, &len);
            if (text == NULL)
                fail_msg("%s names %s, which is not there", e->d_name, rel);
            allowlist_t *al = NULL;
            as_error_t *err = NULL;
            if (allowlist_parse(rel, text, len, &al, &err) < 0)
                fail_msg("%s", err->msg);
            assert_true(al->n_entries > 0);
            allowlist_free(al);
            free(text);
        }
        agent_profile_free(p);
        n++;
    }
    closedir(d);
    assert_true(n >= 4);
}

/* Only Claude Code reads its login from a directory of its own. */
static void claude_shares_its_login_the_others_do_not(void **state)
{
    (void)state;
    agent_profile_t *claude = packaged("claude");
    assert_string_equal(claude->image, "localhost/agent-sandbox");
    assert_string_equal(claude->command[0], "claude");
    assert_null(claude->command[1]);
    assert_string_equal(claude->login_env, "CLAUDE_SECURESTORAGE_CONFIG_DIR");
    assert_string_equal(claude->credentials_file, AGENT_LOGIN_DIR "/.credentials.json");
    assert_true(agent_profile_allowlist_is_default(claude));
    assert_true(strv_contains(claude->telemetry_off, "DISABLE_TELEMETRY=1"));
    assert_true(strv_contains(claude->credentials, "ANTHROPIC_API_KEY"));
    /* its own options pass as they are: --agents is near agent-sandbox's --agent */
    const char *const own[] = { "-c", "--continue", "-p", "--print", "-r", "--resume", "--agents", "--model" };
    for (size_t i = 0; i < ARRAY_SIZE(own); i++)
        assert_true(strv_contains(claude->options, own[i]));
    assert_false(strv_contains(claude->options, "-e"));
    assert_true(strv_contains(claude->subcommands, "mcp"));
    agent_profile_free(claude);
    const char *others[] = { "codex", "gemini", "opencode" };
    for (size_t i = 0; i < 3; i++) {
        agent_profile_t *p = packaged(others[i]);
        assert_null(p->login_env);
        assert_true(p->credentials_file[0] != '/');
        assert_false(agent_profile_allowlist_is_default(p));
        agent_profile_free(p);
    }
}

static void values(void **state)
{
    (void)state;
    agent_profile_t *p = parse_ok("# a profile\n"
                                  "image localhost/x   # the tag is the CLI's\n"
                                  "command x run --fast\n"
                                  "login x, then \"Log in\" (or a key)\n"
                                  "credential X_KEY\n"
                                  "env A=1\n"
                                  "env B=two=parts\n"
                                  "telemetry-off X_TELEMETRY=0\n"
                                  "home .x\n"
                                  "home .config/x\n"
                                  "credentials-file .x/auth.json\n"
                                  "project-config .x/\n"
                                  "project-config x.json\n"
                                  "option -p --print --allowedTools\n"
                                  "option --x2\n"
                                  "subcommand mcp setup-token\n"
                                  "allowlist allowed-hosts.d/x\n"
                                  "autonomy-args --yes --all\n"
                                  "autonomy-env X_PERMISSION={\"*\":\"allow\"}\n");
    assert_string_equal(p->name, "x");
    assert_true(agent_profile_has_autonomy(p));
    assert_string_equal(p->autonomy_args[1], "--all");
    assert_null(p->autonomy_args[2]);
    assert_string_equal(p->autonomy_env[0], "X_PERMISSION={\"*\":\"allow\"}");
    assert_string_equal(p->image, "localhost/x");
    assert_string_equal(p->command[0], "x");
    assert_string_equal(p->command[2], "--fast");
    assert_null(p->command[3]);
    assert_string_equal(p->login, "x, then \"Log in\" (or a key)");
    assert_string_equal(p->env[1], "B=two=parts");
    assert_string_equal(p->telemetry_off[0], "X_TELEMETRY=0");
    assert_string_equal(p->home[1], ".config/x");
    assert_string_equal(p->allowlist, "allowed-hosts.d/x");
    assert_string_equal(p->project_config[0], ".x/");
    assert_string_equal(p->project_config[1], "x.json");
    assert_null(p->project_config[2]);
    assert_string_equal(p->options[0], "-p");
    assert_string_equal(p->options[2], "--allowedTools");
    assert_string_equal(p->options[3], "--x2");
    assert_null(p->options[4]);
    assert_string_equal(p->subcommands[1], "setup-token");
    assert_null(p->subcommands[2]);
    assert_false(agent_profile_allowlist_is_default(p));
    agent_profile_free(p);
    agent_profile_free(NULL);
}

#define BASE "image localhost/x\ncommand x\nallowlist allowed-hosts\n"

static void malformed_profiles_are_refused(void **state)
{
    (void)state;
    refused(BASE "colour blue\n", "prof:4: unknown key `colour`");
    refused(BASE "image localhost/y\n", "prof:4: image is given twice (first on line 1)");
    refused("command x\nallowlist allowed-hosts\n", "prof: no `image` line");
    refused("image localhost/x\nallowlist allowed-hosts\n", "prof: no `command` line");
    refused("image localhost/x\ncommand x\n", "prof: no `allowlist` line");
    refused("image localhost/x:dev\ncommand x\nallowlist allowed-hosts\n", "prof:1: image `localhost/x:dev`");
    refused(BASE "env HOME=/root\n", "prof:4: env: HOME is the sandbox's");
    refused(BASE "env 1X=1\n", "prof:4: env: expected NAME=VALUE");
    refused(BASE "telemetry-off OFF\n", "prof:4: telemetry-off: expected NAME=VALUE");
    refused(BASE "env A=1 B=2\n", "prof:4: env takes one value, not 2");
    refused(BASE "option -p print\n", "prof:4: option `print`: expected -X or --name");
    refused(BASE "option -pc\n", "prof:4: option `-pc`: expected -X or --name");
    refused(BASE "option --a=b\n", "prof:4: option `--a=b`: expected -X or --name");
    refused(BASE "option ---x\n", "prof:4: option `---x`: expected -X or --name");
    refused(BASE "option\n", "prof:4: option needs a value");
    refused(BASE "subcommand -x\n", "prof:4: subcommand `-x`: expected a word");
    refused(BASE "subcommand Mcp\n", "prof:4: subcommand `Mcp`: expected a word");
    refused(BASE "home ../escape\n", "prof:4: home `../escape`");
    refused(BASE "home /etc\n", "prof:4: home `/etc`");
    refused(BASE "credential\n", "prof:4: credential needs a value");
    refused("image localhost/x\ncommand x\nallowlist ../allowed-hosts\n", "prof:3: allowlist `../allowed-hosts`");
    refused("image localhost/x\ncommand x\nallowlist allowed-hosts.d/../../x\n", "prof:3: allowlist");
    refused(BASE "credentials-file /etc/shadow\n", "prof:4: credentials-file `/etc/shadow`");
    refused(BASE "credentials-file " AGENT_LOGIN_DIR "/c.json\n", "needs login-env");
    refused(BASE "login-env X_DIR\ncredentials-file .x/c.json\n", "login-env needs a credentials-file in");
    refused(BASE "credential X_KEY\nenv X_KEY=leaked\n", "X_KEY is a credential");
    refused(BASE "login\x01 x\n", "prof:4: ");
    refused(BASE "project-config ../x\n", "prof:4: project-config `../x`");
    refused(BASE "project-config /etc/x\n", "prof:4: project-config `/etc/x`");
    refused(BASE "project-config a//b\n", "prof:4: project-config `a//b`");
    refused(BASE "project-config ./x\n", "prof:4: project-config `./x`");
    refused(BASE "project-config x//\n", "prof:4: project-config `x//`");
    refused(BASE "project-config /\n", "prof:4: project-config `/`");
    refused(BASE "autonomy-args\n", "prof:4: autonomy-args needs a value");
    refused(BASE "autonomy-args --a\nautonomy-args --b\n", "prof:5: autonomy-args is given twice");
    refused(BASE "autonomy-env YOLO\n", "prof:4: autonomy-env: expected NAME=VALUE");
    refused(BASE "secret\n", "prof:4: secret needs a value");
    refused(BASE "secret K api.example.test\n", "prof:4: a secret rule is VAR HOST PLACEMENT [USER]");
    refused(BASE "secret K api.example.test header:x-k a b\n", "prof:4: secret: expected VAR HOST PLACEMENT");
    refused(BASE "secret 1K api.example.test header:x-k\n", "prof:4: \"1K\" is not an environment variable name");
    refused(BASE "secret K *.example.test header:x-k\n", "prof:4: \"*.example.test\" is not a host name");
    refused(BASE "secret K api.example.test cookie\n", "prof:4: \"cookie\" is not a placement");
    refused(BASE "secret K api.example.test header:x-k\nsecret K api.example.test header:x-k\n",
            "prof:5: K is already placed in x-k on api.example.test (prof:4)");
    agent_profile_t *none = parse_ok(BASE);
    assert_false(agent_profile_has_autonomy(none));
    agent_profile_free(none);
    agent_profile_t *p = NULL;
    as_error_t *err = NULL;
    assert_int_equal(agent_profile_parse("prof", "../x", BASE, strlen(BASE), &p, &err), -EINVAL);
    as_error_free(&err);
    assert_true(agent_name_valid("opencode"));
    assert_true(agent_name_valid("gpt-5"));
    assert_false(agent_name_valid("Claude"));
    assert_false(agent_name_valid("-x"));
    assert_false(agent_name_valid("a/b"));
    assert_false(agent_name_valid(""));
    assert_false(agent_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));   /* 33 */
}

/* `secret` lines are parsed as lines of the secrets file; the packaged
 * agents place their API keys where their APIs take them, each on a
 * variable the profile names as a credential. */
static void secret_placements(void **state)
{
    (void)state;
    agent_profile_t *p = parse_ok(BASE "secret K api.example.test header:x-k\n"
                                       "secret G git.example.test authorization-basic x-access-token\n");
    assert_int_equal(p->secrets.n, 2);
    assert_string_equal(p->secrets.rules[0].var, "K");
    assert_string_equal(p->secrets.rules[0].host, "api.example.test");
    assert_int_equal(p->secrets.rules[0].place, SECRET_HEADER);
    assert_string_equal(p->secrets.rules[0].header, "x-k");
    assert_string_equal(p->secrets.rules[0].origin, "prof:4");
    assert_int_equal(p->secrets.rules[1].place, SECRET_BASIC);
    assert_string_equal(p->secrets.rules[1].user, "x-access-token");
    assert_string_equal(p->secrets.rules[1].origin, "prof:5");
    agent_profile_free(p);
    static const struct { const char *agent, *var, *host, *header; secret_place_t place; } want[] = {
        { "claude", "ANTHROPIC_API_KEY", "api.anthropic.com", "x-api-key", SECRET_HEADER },
        { "claude", "CLAUDE_CODE_OAUTH_TOKEN", "api.anthropic.com", "authorization", SECRET_BEARER },
        { "claude", "ANTHROPIC_AUTH_TOKEN", "api.anthropic.com", "authorization", SECRET_BEARER },
        { "codex", "OPENAI_API_KEY", "api.openai.com", "authorization", SECRET_BEARER },
        { "gemini", "GEMINI_API_KEY", "generativelanguage.googleapis.com", "x-goog-api-key", SECRET_HEADER },
        { "opencode", "ANTHROPIC_API_KEY", "api.anthropic.com", "x-api-key", SECRET_HEADER },
        { "opencode", "OPENAI_API_KEY", "api.openai.com", "authorization", SECRET_BEARER },
        { "opencode", "GEMINI_API_KEY", "generativelanguage.googleapis.com", "x-goog-api-key", SECRET_HEADER },
    };
    for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
        agent_profile_t *a = packaged(want[i].agent);
        bool found = false;
        for (size_t r = 0; r < a->secrets.n; r++) {
            const secret_rule_t *rule = &a->secrets.rules[r];
            if (strcmp(rule->var, want[i].var) != 0)
                continue;
            found = strcmp(rule->host, want[i].host) == 0 && strcmp(rule->header, want[i].header) == 0 &&
                    rule->place == want[i].place;
            if (!strv_contains(a->credentials, rule->var))
                fail_msg("%s: secret %s is not a credential of the profile", want[i].agent, rule->var);
        }
        if (!found)
            fail_msg("%s: no secret %s %s %s", want[i].agent, want[i].var, want[i].host, want[i].header);
        agent_profile_free(a);
    }
}

/* Every packaged agent names its project configs, and each is one the
 * workspace protects by default: else an agent the product ships would
 * obey, on the host, a config its own sessions could plant. */
static void every_agent_project_config_is_protected(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/config/agents", source_dir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        agent_profile_t *p = packaged(e->d_name);
        if (strv_length(p->project_config) == 0)
            fail_msg("config/agents/%s has no project-config line", e->d_name);
        for (size_t i = 0; p->project_config[i] != NULL; i++)
            if (!workspace_default_covers(p->project_config[i]))
                fail_msg("config/agents/%s: project-config %s is not in the default protected set "
                         "(lib/workspace/workspace_rules.c)", e->d_name, p->project_config[i]);
        agent_profile_free(p);
        n++;
    }
    closedir(d);
    assert_true(n >= 5);
    /* the function itself: a path of the set, one inside it, one beside it */
    assert_true(workspace_default_covers(".gemini/"));
    assert_true(workspace_default_covers(".claude/settings.json"));
    assert_true(workspace_default_covers("opencode.json"));
    assert_false(workspace_default_covers("opencode.json5"));
    assert_false(workspace_default_covers(".geminix/"));
    assert_false(workspace_default_covers("src/.gemini/"));
}

static void settings_file(void **state)
{
    (void)state;
    user_settings_t s;
    as_error_t *err = NULL;
    const char *text = "# mine\nagent codex\n\nagent gemini   # later wins\n";
    assert_int_equal(user_settings_parse("settings", text, strlen(text), &s, &err), 0);
    assert_string_equal(s.agent, "gemini");
    assert_int_equal(s.agent_line, 4);
    user_settings_clear(&s);
    assert_int_equal(user_settings_parse("settings", "", 0, &s, &err), 0);
    assert_null(s.agent);
    const struct { const char *text, *message; } bad[] = {
        { "agent\n", "settings:1: expected \"KEY VALUE\"" },
        { "agent a b\n", "settings:1: expected \"KEY VALUE\"" },
        { "agent Codex\n", "settings:1: agent `Codex` is not an agent's name" },
        { "\nagent ../x\n", "settings:2: agent `../x`" },
        { "colour blue\n", "settings:1: unknown setting `colour`" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(user_settings_parse("settings", bad[i].text, strlen(bad[i].text), &s, &err), -EINVAL);
        if (strstr(err->msg, bad[i].message) == NULL)
            fail_msg("expected \"%s\" in \"%s\"", bad[i].message, err->msg);
        as_error_free(&err);
    }
}

static void allowlists_merge(void **state)
{
    (void)state;
    allowlist_t *user = allowlist_of("api.anthropic.com\nregistry.npmjs.org\ngit.example.com:2222\n"
                                     "allow-upstream-net 10.1.0.0/16\n");
    const char *agent_text = "api.openai.com\napi.anthropic.com\n.openai.com\n"
                             "git.example.com:2222\ngit.example.com:8443\ndb.example.com:5432\n"
                             "allow-upstream-net 10.1.0.0/16\nallow-upstream-net 10.2.0.0/16\n";
    allowlist_t *agent = NULL;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_parse("/cfg/allowed-hosts.d/codex", agent_text, strlen(agent_text), &agent, &err), 0);
    assert_int_equal(allowlist_merge(user, agent, &err), 0);
    allowlist_free(agent);      /* what was merged holds nothing of it */
    const char *want[] = { "api.anthropic.com", "registry.npmjs.org", "git.example.com", "api.openai.com",
                           "openai.com", "db.example.com" };
    assert_int_equal(user->n_entries, 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(user->entries[i].name, want[i]);
    assert_true(user->entries[4].wildcard);
    assert_int_equal(user->entries[2].n_ports, 2);     /* 2222 once, 8443 added */
    assert_int_equal(user->entries[2].ports[1].port, 8443);
    /* each port keeps the file and line it came from (the errors name them) */
    assert_string_equal(user->entries[2].ports[0].file, "list");
    assert_int_equal(user->entries[2].ports[0].line, 3);
    assert_string_equal(user->entries[2].ports[1].file, "/cfg/allowed-hosts.d/codex");
    assert_int_equal(user->entries[2].ports[1].line, 5);
    assert_string_equal(user->entries[5].ports[0].file, "/cfg/allowed-hosts.d/codex");
    assert_int_equal(user->entries[5].ports[0].line, 6);
    assert_int_equal(user->n_nets, 2);
    assert_int_equal(user->n_warnings, 0);               /* a name in both is fine */
    allowlist_free(user);
}

/* ---- the plan ---------------------------------------------------------- */

static char *args[] = { "--continue", NULL };
static char *env[] = { "TERM=xterm", "DISABLE_TELEMETRY=0", NULL };

static session_inputs_t inputs(agent_profile_t *agent)
{
    return (session_inputs_t){
        .id = "0123456789ab", .cli_pid = 4242, .workdir = "/home/u/proj",
        .image = "localhost/agent-sandbox:dev", .agent = agent, .agent_args = true, .command = args,
        .env = env, .home_volume = "agent-sandbox-home-proj-0123456789abcdef",
        .home_per_project = true, .login_volume = "agent-sandbox-login",
        .legacy_home = "agent-sandbox-home",
    };
}

/* Claude Code: its command with the arguments; its variables, the user's
 * --env winning; the launch directory's own home and, apart, the login
 * volume, and the variable that points there. */
static void plan_of_claude(void **state)
{
    (void)state;
    agent_profile_t *claude = packaged("claude");
    session_plan_t *p = plan_of(inputs(claude));
    assert_string_equal(p->command[0], "claude");
    assert_string_equal(p->command[1], "--continue");
    assert_null(p->command[2]);
    assert_true(strv_contains(p->env, "DISABLE_ERROR_REPORTING=1"));
    assert_true(strv_contains(p->env, "DISABLE_TELEMETRY=0"));      /* named with --env: the user's */
    assert_false(strv_contains(p->env, "DISABLE_TELEMETRY=1"));
    /* quiet: no traffic it does not need, no self-update of the pinned build */
    assert_true(strv_contains(p->env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"));
    assert_true(strv_contains(p->env, "DISABLE_AUTOUPDATER=1"));
    assert_true(strv_contains(p->env, "CLAUDE_SECURESTORAGE_CONFIG_DIR=" AGENT_LOGIN_DIR));
    assert_string_equal(p->login_volume, "agent-sandbox-login");
    assert_string_equal(p->legacy_home, "agent-sandbox-home");
    const agent_spec_t *a = p->agent_spec;
    assert_int_equal(a->spec.n_volumes, 2);
    assert_string_equal(a->volumes[0].name, "agent-sandbox-home-proj-0123456789abcdef");
    assert_string_equal(a->volumes[0].destination, AGENT_HOME);
    assert_string_equal(a->volumes[1].name, "agent-sandbox-login");
    assert_string_equal(a->volumes[1].destination, AGENT_LOGIN_DIR);
    assert_true(strv_contains(a->volumes[1].options, "nocopy"));
    /* the plan's env, the login's variable last, then HOME */
    size_t n = 0;
    while (a->spec.env[n] != NULL)
        n++;
    assert_string_equal(a->spec.env[n - 2], "CLAUDE_SECURESTORAGE_CONFIG_DIR=" AGENT_LOGIN_DIR);
    assert_string_equal(a->spec.env[n - 1], "HOME=" AGENT_HOME);
    char *text = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_describe(p, &text, &err), 0);
    assert_non_null(strstr(text, "home:    volume agent-sandbox-home-proj-0123456789abcdef (this launch directory's own)"));
    assert_non_null(strstr(text, "login:   volume agent-sandbox-login (the agent's login, shared by every project)"));
    assert_non_null(strstr(text, "  profile: claude; its state: ~/.claude, ~/.claude.json; its login: the login volume\n"));
    assert_non_null(strstr(text, "  credentials, passed only when named (--env): ANTHROPIC_API_KEY "));
    assert_non_null(strstr(text, "  command: claude --continue\n"));
    free(text);
    session_plan_free(p);
    agent_profile_free(claude);
}

/* Another agent: its own command, no login volume (it never sees Claude's
 * login) and no login variable; with --exec, the command as given. */
static void plan_of_another_agent(void **state)
{
    (void)state;
    agent_profile_t *opencode = packaged("opencode");
    session_plan_t *p = plan_of(inputs(opencode));
    assert_string_equal(p->command[0], "opencode");
    assert_string_equal(p->command[1], "--continue");
    assert_null(p->login_volume);
    assert_null(p->legacy_home);
    assert_int_equal(p->agent_spec->n_volumes, 1);
    assert_true(strv_contains(p->env, "OPENCODE_DISABLE_AUTOUPDATE=1"));
    for (size_t i = 0; p->env[i] != NULL; i++)
        assert_null(strstr(p->env[i], "CLAUDE"));
    session_plan_free(p);

    char *exec[] = { "sh", "-c", "true", NULL };
    session_inputs_t in = inputs(opencode);
    in.agent_args = false;
    in.command = exec;
    p = plan_of(in);
    assert_string_equal(p->command[0], "sh");
    assert_null(p->command[3]);
    assert_true(strv_contains(p->env, "OPENCODE_DISABLE_SHARE=1"));
    session_plan_free(p);

    in.agent_args = true;
    in.command = NULL;                     /* no arguments at all */
    p = plan_of(in);
    assert_string_equal(p->command[0], "opencode");
    assert_null(p->command[1]);
    session_plan_free(p);
    agent_profile_free(opencode);

    in.agent = NULL;                       /* arguments, but no agent */
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &p, &err), -EINVAL);
    as_error_free(&err);
}

/* Autonomy: the profile's words between the agent's command and the
 * user's arguments, its variables set; off, neither; never for --exec.
 * Every packaged agent that can be built has an unattended mode. */
static void plan_with_autonomy(void **state)
{
    (void)state;
    const char *names[] = { "claude", "codex", "gemini", "opencode" };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        agent_profile_t *a = packaged(names[i]);
        if (!agent_profile_has_autonomy(a))
            fail_msg("%s has no autonomy-args or autonomy-env", names[i]);
        agent_profile_free(a);
    }
    agent_profile_t *claude = packaged("claude");
    session_inputs_t in = inputs(claude);
    in.autonomy = true;
    session_plan_t *p = plan_of(in);
    assert_string_equal(p->command[0], "claude");
    assert_string_equal(p->command[1], "--dangerously-skip-permissions");
    assert_string_equal(p->command[2], "--continue");
    assert_null(p->command[3]);
    session_plan_free(p);
    in.autonomy = false;
    p = plan_of(in);
    assert_string_equal(p->command[1], "--continue");
    session_plan_free(p);
    char *exec[] = { "claude", NULL };
    in = inputs(claude);
    in.autonomy = true;
    in.agent_args = false;
    in.command = exec;
    p = plan_of(in);
    assert_null(p->command[1]);
    session_plan_free(p);
    agent_profile_free(claude);

    /* each packaged agent: its words right after its command, its variables set */
    for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
        agent_profile_t *a = packaged(names[k]);
        in = inputs(a);
        in.autonomy = true;
        p = plan_of(in);
        size_t n = strv_length(a->command);
        for (size_t i = 0; a->autonomy_args != NULL && a->autonomy_args[i] != NULL; i++)
            assert_string_equal(p->command[n + i], a->autonomy_args[i]);
        for (size_t i = 0; a->autonomy_env != NULL && a->autonomy_env[i] != NULL; i++)
            assert_true(strv_contains(p->env, a->autonomy_env[i]));
        session_plan_free(p);
        agent_profile_free(a);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        source_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_packaged_profile_parses),
        cmocka_unit_test(claude_shares_its_login_the_others_do_not),
        cmocka_unit_test(values),
        cmocka_unit_test(malformed_profiles_are_refused),
        cmocka_unit_test(secret_placements),
        cmocka_unit_test(every_agent_project_config_is_protected),
        cmocka_unit_test(settings_file),
        cmocka_unit_test(allowlists_merge),
        cmocka_unit_test(plan_of_claude),
        cmocka_unit_test(plan_of_another_agent),
        cmocka_unit_test(plan_with_autonomy),
    };
    return cmocka_run_group_tests_name("agent_profile", tests, NULL, NULL);
}
