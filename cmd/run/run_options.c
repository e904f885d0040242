/* The options of a session: one table for the parser and the usage text. */
#include "run_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "base/escape.h"
#include "base/strv.h"
#include "base/suggest.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "images/toolchains.h"

typedef enum opt_id {
    OPT_EXEC, OPT_AGENT, OPT_ENV, OPT_DRY_RUN, OPT_MEMORY, OPT_PIDS, OPT_CPUS, OPT_PUBLISH, OPT_AUTONOMY,
    OPT_NO_AUTONOMY, OPT_REVIEW, OPT_HELP, OPT_VERSION, OPT_TOOLCHAIN, OPT_IMAGE, OPT_SECRET,
} opt_id_t;

static const struct option {
    opt_id_t id;
    const char *name;        /* "--exec" */
    const char *alias;       /* "-h", or NULL */
    const char *value;       /* what it takes ("SIZE"), or NULL; --exec takes the rest */
    const char *help;
} options[] = {
    { OPT_EXEC,    "--exec",    NULL, "COMMAND...",   "run COMMAND instead of the agent" },
    { OPT_AGENT,   "--agent",   NULL, "NAME",         "the agent: claude (default), codex, gemini, opencode" },
    { OPT_TOOLCHAIN, "--toolchain", NULL, "NAME",     "the agent's image with toolchain NAME (repeatable; docs/images.md)" },
    { OPT_IMAGE,   "--image",   NULL, "NAME",         "the image you derived as NAME (agent-sandbox image build NAME)" },
    { OPT_ENV,     "--env",     NULL, "NAME[=VALUE]", "pass NAME into the sandbox (repeatable)" },
    { OPT_SECRET,  "--secret",  NULL, "NAME",         "the router holds NAME's value; the sandbox gets a stand-in (repeatable; docs/secrets.md)" },
    { OPT_DRY_RUN, "--dry-run", NULL, NULL,           "print the session plan and exit" },
    { OPT_MEMORY,  "--memory",  NULL, "SIZE",         "memory limit (8G, 512M, none; default 3/4 of RAM)" },
    { OPT_PIDS,    "--pids",    NULL, "N",            "process limit (default 4096, none)" },
    { OPT_CPUS,    "--cpus",    NULL, "N",            "CPU limit (1.5, none; default none)" },
    { OPT_PUBLISH, "--publish", NULL, "[HOSTPORT:]PORT", "reach PORT at the host's 127.0.0.1:HOSTPORT (repeatable)" },
    { OPT_AUTONOMY, "--autonomy", NULL, NULL,         "start the agent in its unattended mode (default: setting autonomy, on)" },
    { OPT_NO_AUTONOMY, "--no-autonomy", NULL, NULL,   "start the agent in its own mode: it asks before acting" },
    { OPT_REVIEW,  "--review",  NULL, NULL,           "keep the agent's writes apart for diff and apply (default: setting review, off)" },
    { OPT_HELP,    "--help",    "-h", NULL,           "print this text" },
    { OPT_VERSION, "--version", NULL, NULL,           "print the version" },
};

/* The option `arg` names, and its value when written `--name=value`. */
static const struct option *find_option(const char *arg, const char **ret_inline)
{
    *ret_inline = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
        const struct option *o = &options[i];
        size_t n = strlen(o->name);
        if (strcmp(arg, o->name) == 0 || (o->alias != NULL && strcmp(arg, o->alias) == 0))
            return o;
        if (o->value != NULL && o->id != OPT_EXEC && strncmp(arg, o->name, n) == 0 && arg[n] == '=') {
            *ret_inline = arg + n + 1;
            return o;
        }
    }
    return NULL;
}

/* --publish [HOSTPORT:]PORT, up to PUBLISH_MAX, no host port twice. */
static int publish_option(run_options_t *o, const char *arg)
{
    as_error_t *err = NULL;
    publish_t p;
    int r = publish_parse(arg, &p, &err);
    if (r == 0 && o->req.n_publish == PUBLISH_MAX)
        r = as_error_make(&err, E2BIG, "at most %d ports can be published", PUBLISH_MAX);
    if (r == 0) {
        o->req.publish[o->req.n_publish++] = p;
        r = publish_list_check(o->req.publish, o->req.n_publish, &err);
    }
    if (r < 0) {
        as_error_prefix(&err, "--publish");
        report_error(&err);
        return -EINVAL;
    }
    return 0;
}

int toolchain_option(char ***toolchains, const char *name)
{
    if (!toolchain_known(name)) {
        _cleanup_free_ char *known = toolchain_known_list();
        report("error: --toolchain %s: no such toolchain (the toolchains: %s)", name, known ? known : "?");
        return -EINVAL;
    }
    return strv_push(toolchains, name);
}

int image_options_check(char *const *toolchains, const char *image)
{
    if (toolchains != NULL && image != NULL) {
        report("error: --image and --toolchain cannot go together: a derived image names its own FROM "
               "(put the toolchain's image there)");
        return -EINVAL;
    }
    return 0;
}

/* --env NAME takes the host's value; --env NAME=VALUE sets one. */
static int env_option(run_options_t *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len == 0 || (arg[0] >= '0' && arg[0] <= '9') ||
        strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") < len) {
        report("error: --env %s: expected NAME or NAME=VALUE with NAME of letters, digits and _, not starting with a digit", arg);
        return -EINVAL;
    }
    if (eq != NULL)
        return strv_push(&o->req.env, arg);
    const char *value = getenv(arg);
    if (value == NULL) {
        report("error: --env %s: not set in your environment", arg);
        return -EINVAL;
    }
    _cleanup_free_ char *entry = NULL;
    if (asprintf(&entry, "%s=%s", arg, value) < 0)
        return -ENOMEM;
    return strv_push(&o->req.env, entry);
}

static bool env_named(char *const *env, const char *name, size_t len)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
            return true;
    return false;
}

extern char **environ;

/* Terminal and locale settings are passed; nothing else of the host's
 * environment is, unless named with --env. */
static int env_defaults(run_options_t *o)
{
    for (char **e = environ; *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        if (eq == NULL)
            continue;
        size_t len = (size_t)(eq - *e);
        bool wanted = (len == 4 && strncmp(*e, "TERM", 4) == 0) ||
                      (len == 9 && strncmp(*e, "COLORTERM", 9) == 0) ||
                      (len == 4 && strncmp(*e, "LANG", 4) == 0) ||
                      strncmp(*e, "LC_", 3) == 0;
        if (wanted && !env_named(o->req.env, *e, len) && strv_push(&o->req.env, *e) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* The options before the command: syntax only, nothing applied yet. The
 * --env and --publish values go to env_args and publish_args; *ret_next is
 * where the command starts. */
static int scan(int argc, char **argv, run_options_t *o, const char **env_args,
                const char **publish_args, const char **toolchain_args, int *ret_next)
{
    int i = 1, n_env = 0, n_publish = 0, n_toolchain = 0;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            o->args_verbatim = true;
            i++;
            break;
        }
        const char *inline_value = NULL;
        const struct option *opt = find_option(argv[i], &inline_value);
        if (opt == NULL)
            break;                       /* the rest is the agent's */
        if (opt->id == OPT_HELP || opt->id == OPT_VERSION) {
            *o = (run_options_t){ .help = opt->id == OPT_HELP, .version = opt->id == OPT_VERSION };
            return 1;
        }
        if (opt->id == OPT_EXEC) {
            o->req.exec = o->args_verbatim = true;
            i++;
            break;
        }
        const char *value = inline_value;
        if (opt->value != NULL && value == NULL) {
            if (++i >= argc) {
                report("error: %s needs %s", opt->name, opt->value);
                return -EINVAL;
            }
            value = argv[i];
        }
        switch (opt->id) {
        case OPT_ENV:     env_args[n_env++] = value; break;
        case OPT_PUBLISH: publish_args[n_publish++] = value; break;
        case OPT_TOOLCHAIN: toolchain_args[n_toolchain++] = value; break;
        case OPT_IMAGE:   o->req.image = value; break;
        case OPT_SECRET:
            if (strv_push(&o->req.secrets, value) < 0)
                return -ENOMEM;
            break;
        case OPT_DRY_RUN: o->req.dry_run = true; break;
        case OPT_AGENT:   o->req.agent = value; break;
        case OPT_MEMORY:  o->req.memory = value; break;
        case OPT_PIDS:    o->req.pids = value; break;
        case OPT_CPUS:    o->req.cpus = value; break;
        case OPT_AUTONOMY:    o->req.autonomy = AUTONOMY_ON; break;
        case OPT_NO_AUTONOMY: o->req.autonomy = AUTONOMY_OFF; break;
        case OPT_REVIEW:  o->req.review = true; break;
        default:          break;
        }
    }
    if (o->req.exec && i >= argc) {
        report("error: --exec needs a command");
        return -EINVAL;
    }
    if (o->req.exec && o->req.autonomy != AUTONOMY_SETTING) {
        report("error: --%sautonomy is the agent's mode; --exec runs no agent",
               o->req.autonomy == AUTONOMY_OFF ? "no-" : "");
        return -EINVAL;
    }
    env_args[n_env] = NULL;
    publish_args[n_publish] = NULL;
    o->args_first = i == 1;
    toolchain_args[n_toolchain] = NULL;
    *ret_next = i;
    return 0;
}

int run_options_parse(int argc, char **argv, run_options_t *ret)
{
    run_options_t o = { 0 };
    _cleanup_free_ const char **env_args = calloc((size_t)argc + 1, sizeof(char *));
    _cleanup_free_ const char **publish_args = calloc((size_t)argc + 1, sizeof(char *));
    _cleanup_free_ const char **toolchain_args = calloc((size_t)argc + 1, sizeof(char *));
    int next = argc;
    if (env_args == NULL || publish_args == NULL || toolchain_args == NULL)
        return -ENOMEM;
    int r = scan(argc, argv, &o, env_args, publish_args, toolchain_args, &next);
    if (r != 0) {
        if (r > 0)
            *ret = o;
        return r > 0 ? 0 : r;
    }
    for (size_t i = 0; r == 0 && env_args[i] != NULL; i++)
        r = env_option(&o, env_args[i]);
    for (size_t i = 0; r == 0 && publish_args[i] != NULL; i++)
        r = publish_option(&o, publish_args[i]);
    for (size_t i = 0; r == 0 && toolchain_args[i] != NULL; i++)
        r = toolchain_option(&o.req.toolchains, toolchain_args[i]);
    if (r == 0)
        r = image_options_check(o.req.toolchains, o.req.image);
    for (int i = next; r == 0 && i < argc; i++)
        r = strv_push(&o.req.command, argv[i]);
    if (r == 0)
        r = env_defaults(&o);
    o.req.in_fd = STDIN_FILENO, o.req.out_fd = STDOUT_FILENO, o.req.err_fd = STDERR_FILENO;
    o.req.vars = cli_env()->vars;
    o.req.allow_tty = true;
    if (r < 0) {
        run_options_clear(&o);
        return r;
    }
    *ret = o;
    return 0;
}

void run_options_clear(run_options_t *o)
{
    strv_free(o->req.command);
    strv_free(o->req.env);
    strv_free(o->req.secrets);
    strv_free(o->req.toolchains);
    o->req.command = o->req.env = o->req.secrets = o->req.toolchains = NULL;
}

#define AFTER_DASHES "to pass it to the agent, put it after --"

/* An option the agent does not list: near one of ours, or (a short one,
 * when the profile lists the agent's options) neither ours nor the
 * agent's. 0 when it passes to the agent. */
static int judge_option(const char *arg, const agent_profile_t *agent)
{
    size_t len = strcspn(arg, "=");
    char name[SUGGEST_WORD_MAX + 1], near[256] = "";
    if (len > SUGGEST_WORD_MAX)
        return 0;
    memcpy(name, arg, len);
    name[len] = '\0';
    if (strv_contains(agent->options, name))
        return 0;
    if (len == 2 && name[1] != '-') {
        if (agent->options == NULL)
            return 0;                    /* nothing to judge it against */
        for (size_t i = 0, n = 0; i < ARRAY_SIZE(options); i++)
            if (options[i].name[2] == name[1]) {
                size_t at = strlen(near);
                snprintf(near + at, sizeof(near) - at, "%s%s", n++ > 0 ? " or " : "", options[i].name);
            }
    } else {
        const char *known[2 * ARRAY_SIZE(options)];
        size_t n = 0;
        for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
            known[n++] = options[i].name;
            if (options[i].alias != NULL)
                known[n++] = options[i].alias;
        }
        const char *nearest = suggest_nearest(name, known, n);
        if (nearest == NULL)
            return 0;
        snprintf(near, sizeof(near), "%s", nearest);
    }
    _cleanup_free_ char *shown = path_escaped(name);
    if (near[0] != '\0')
        report("error: unknown option %s; did you mean %s? (" AFTER_DASHES ")", shown ? shown : "?", near);
    else
        report("error: unknown option %s: neither agent-sandbox's nor %s's (" AFTER_DASHES ")",
               shown ? shown : "?", agent->name);
    return -EINVAL;
}

/* A word in a command's place: near one of the commands, and not one of
 * the agent's own. A prompt (words, capitals, punctuation) never is. */
static int judge_command(const char *word, const agent_profile_t *agent)
{
    size_t len = strlen(word);
    if (len == 0 || word[0] < 'a' || word[0] > 'z' ||
        strspn(word, "abcdefghijklmnopqrstuvwxyz0123456789-") != len || strv_contains(agent->subcommands, word))
        return 0;
    const char *names[cli_n_commands];
    for (size_t i = 0; i < cli_n_commands; i++)
        names[i] = cli_commands[i].name;
    const char *near = suggest_nearest(word, names, cli_n_commands);
    if (near == NULL)
        return 0;
    report("error: unknown command %s; did you mean %s? (to pass it to the agent as a prompt, put it "
           "after --)", word, near);
    return -EINVAL;
}

/* The variables the sandbox sets for what it mounts: HOME (the home
 * volume) and the profile's login-env (the shared login volume). */
static int judge_env(char *const *env, const agent_profile_t *agent)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        size_t len = strcspn(env[i], "=");
        bool home = len == 4 && strncmp(env[i], "HOME", 4) == 0;
        bool login = agent->login_env != NULL && strlen(agent->login_env) == len &&
                     strncmp(env[i], agent->login_env, len) == 0;
        if (home || login) {
            report("error: --env %.*s: the sandbox sets %.*s itself (%s, where %s is mounted); it "
                   "cannot be passed", (int)len, env[i], (int)len, env[i],
                   home ? AGENT_HOME : AGENT_LOGIN_DIR, home ? "the agent's home volume" : "the shared login volume");
            return -EINVAL;
        }
    }
    return 0;
}

int run_options_check(const run_options_t *o, const agent_profile_t *agent)
{
    const char *first = o->req.command != NULL && !o->args_verbatim ? o->req.command[0] : NULL;
    int r = judge_env(o->req.env, agent);
    if (r == 0 && first != NULL && first[0] == '-' && first[1] != '\0')
        r = judge_option(first, agent);
    else if (r == 0 && first != NULL && o->args_first)
        r = judge_command(first, agent);
    return r;
}

void run_options_usage(FILE *f)
{
    for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
        char left[40];
        snprintf(left, sizeof(left), "%s%s%s%s%s", options[i].name, options[i].alias ? ", " : "",
                 options[i].alias ? options[i].alias : "", options[i].value ? " " : "",
                 options[i].value ? options[i].value : "");
        fprintf(f, "  %-25s  %s\n", left, options[i].help);
    }
}
