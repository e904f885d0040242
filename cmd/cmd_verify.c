/* `agent-sandbox verify [--agent NAME] [--secret VAR]... [--json]`: start
 * a real session with the user's own config and the agent's profile (its
 * image, variables and allowlist), the router holding each VAR, run the
 * probe script in it, and show for each property whether the confinement
 * holds, with the evidence. Any FAIL exits 1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "run/run.h"
#include "run/run_options.h"
#include "base/strv.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "config/allowlist.h"
#include "session/session_plan.h"
#include "verify/verify.h"

extern char **environ;

#define SECRET_NAME "AGENT_SANDBOX_VERIFY_SECRET"

static int judge(const char *output, const char *workdir, char **host_mounts, const char *secret,
                 const session_inputs_t *ri, char *const *held, bool json);

static int random_hex(char *buf, size_t bytes)
{
    unsigned char raw[32];
    if (bytes > sizeof(raw) || getrandom(raw, bytes, 0) != (ssize_t)bytes)
        return -1;
    for (size_t i = 0; i < bytes; i++)
        snprintf(buf + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

static char *read_all(int fd)
{
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0 || lseek(fd, 0, SEEK_SET) < 0)
        return NULL;
    char *buf = malloc((size_t)size + 1);
    if (buf == NULL)
        return NULL;
    size_t got = 0;
    while (got < (size_t)size) {
        ssize_t n = read(fd, buf + got, (size_t)size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return buf;
}

/* The first entry's name: an exact name, or a wildcard's apex; NULL when
 * the list is empty. */
static const char *first_allowed(const allowlist_t *al)
{
    return al->n_entries > 0 ? al->entries[0].name : NULL;
}

/* The mount points of the host paths the session gives the agent, from
 * its own plan: verify expects exactly these. */
static void keep_host_mounts(const session_plan_t *plan, void *ctx)
{
    char ***ret = ctx;
    const char **points = NULL;
    as_error_t *err = NULL;
    if (session_plan_host_mounts(plan, &points, &err) < 0) {
        as_error_free(&err);
        return;                  /* then nothing is expected: any host mount fails */
    }
    *ret = strv_copy((char *const *)points);
    free(points);
}

/* The value of `--NAME VALUE` or `--NAME=VALUE` at argv[*i], or NULL. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc)
        return argv[++*i];
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    return NULL;
}

/* --json, --agent NAME, --toolchain NAME..., --image NAME, --secret
 * VAR... (each also --opt=VALUE), into the options of the session verify
 * runs. 0 or EXIT_USAGE, reported. */
static int parse_args(int argc, char **argv, bool *ret_json, session_request_t *want)
{
    const char *v;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            *ret_json = true;
        } else if (i + 1 == argc && (strcmp(argv[i], "--agent") == 0 || strcmp(argv[i], "--image") == 0 ||
                                     strcmp(argv[i], "--toolchain") == 0 || strcmp(argv[i], "--secret") == 0)) {
            return cli_missing_value("verify", argv[i], strcmp(argv[i], "--agent") == 0 ? "an agent's name"
                                                        : strcmp(argv[i], "--image") == 0 ? "an image's name"
                                                        : strcmp(argv[i], "--secret") == 0 ? "a variable's name"
                                                                                          : "a toolchain's name");
        } else if ((v = option_value(argc, argv, &i, "--secret")) != NULL) {
            if (strv_push(&want->secrets, v) < 0)
                return EXIT_INTERNAL;
        } else if ((v = option_value(argc, argv, &i, "--agent")) != NULL) {
            want->agent = v;
        } else if ((v = option_value(argc, argv, &i, "--image")) != NULL) {
            want->image = v;
        } else if ((v = option_value(argc, argv, &i, "--toolchain")) != NULL) {
            if (toolchain_option(&want->toolchains, v) < 0)
                return EXIT_USAGE;
        } else {
            static const char *const known[] = { "--json", "--agent", "--image", "--toolchain", "--secret" };
            return cli_bad_argument("verify", argv[i], known, ARRAY_SIZE(known));
        }
    }
    return image_options_check(want->toolchains, want->image) < 0 ? EXIT_USAGE : 0;
}

/* The held variables for the probe's argument: their names space-
 * separated (names have no space), or "-". */
static char *words(char *const *v)
{
    size_t len = 2;
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        len += strlen(v[i]) + 1;
    char *out = calloc(1, len);
    for (size_t i = 0; out != NULL && v != NULL && v[i] != NULL; i++)
        strcat(strcat(out, i ? " " : ""), v[i]);
    if (out != NULL && out[0] == '\0')
        strcpy(out, "-");
    return out;
}

/* The probe, run as the agent's session on the inputs loaded for it, the
 * router holding `held`: its output, or an exit code. */
static int probe(session_inputs_t *ri, char *const *held, char ***ret_host_mounts, char **ret_output)
{
    char nonce[17];
    _cleanup_free_ char *held_names = words(held);
    if (held_names == NULL)
        return EXIT_INTERNAL;
    const char *home = cli_env()->vars.home, *first = first_allowed(ri->allowlist);
    int out = memfd_create("verify-out", MFD_CLOEXEC), errfd = memfd_create("verify-err", MFD_CLOEXEC);
    if (out < 0 || errfd < 0 || home == NULL || random_hex(nonce, 8) < 0) {
        report("error: verify: %s", strerror(errno));
        return EXIT_INTERNAL;
    }
    /* Nothing a session could have written shapes the evidence: an empty
     * home of its own instead of the home volume, the image's own programs
     * on a fixed PATH, a shell that reads no startup file, curl -q (no
     * ~/.curlrc) in the script. */
    char *command[] = { "/bin/bash", "--noprofile", "--norc", "-c", (char *)verify_probe_script(),
                        "verify", first ? (char *)first : "-", (char *)home, nonce, ri->agent->command[0],
                        held_names, NULL };
    char *env[] = { "PATH=/usr/bin:/bin", NULL };
    session_request_t o = {
        .agent = ri->agent->name, .exec = true, .command = command, .env = env, .in_fd = -1, .out_fd = out,
        .err_fd = errfd, .allow_tty = false, .private_home = true, .no_notices = true, .verify = true,
        .secrets = (char **)held, .vars = cli_env()->vars,
        .ps_command = "agent-sandbox verify", .on_plan = keep_host_mounts, .on_plan_ctx = ret_host_mounts,
    };
    int rc = run_loaded(&o, ri);
    *ret_output = read_all(out);
    close(out);
    close(errfd);
    return rc;
}

/* The session's inputs, loaded once as a session loads them (a duplicate
 * in the allowlist is told once); then the probe and the judgement. */
static int verify_session(session_request_t *want, const char *secret, bool json)
{
    session_inputs_t ri = {0};
    int rc = run_prepare();
    if (rc == 0)
        rc = run_load(want, &ri);
    _cleanup_free_ char *workdir = rc == 0 ? realpath(".", NULL) : NULL;
    if (rc == 0 && workdir == NULL) {
        report("error: verify: %s", strerror(errno));
        rc = EXIT_INTERNAL;
    }
    if (rc != 0) {
        session_inputs_clear(&ri);
        return rc;
    }
    if (!json)
        report("verify: starting a session of %s in %s and probing it...", ri.agent->name, workdir);   /* escaped */
    _cleanup_(strv_freep) char **host_mounts = NULL;
    _cleanup_free_ char *output = NULL;
    rc = probe(&ri, want->secrets, &host_mounts, &output);
    if (rc != 0 || output == NULL || host_mounts == NULL) {
        report("error: verify: the probe session did not complete (exit %d); nothing was verified", rc);
        rc = rc != 0 ? rc : EXIT_INTERNAL;
    } else {
        rc = judge(output, workdir, host_mounts, secret, &ri, want->secrets, json);
    }
    session_inputs_clear(&ri);
    return rc;
}

int cmd_verify(int argc, char **argv)
{
    bool json = false;
    run_options_t opts = { .req = { .exec = true, .in_fd = -1, .vars = cli_env()->vars } };
    session_request_t *want = &opts.req;
    int rc = parse_args(argc, argv, &json, want);
    if (rc != 0) {
        run_options_clear(&opts);
        return rc;
    }
    char secret[65];
    if (random_hex(secret, 32) < 0) {
        report("error: verify: no random bytes: %s", strerror(errno));
        run_options_clear(&opts);
        return EXIT_INTERNAL;
    }
    /* Held by the CLI only: it must not be visible anywhere inside. */
    setenv(SECRET_NAME, secret, 1);
    rc = verify_session(want, secret, json);
    run_options_clear(&opts);
    return rc;
}

static int judge(const char *output, const char *workdir, char **host_mounts, const char *secret,
                 const session_inputs_t *ri, char *const *held, bool json)
{
    const agent_profile_t *agent = ri->agent;
    const char *home = cli_env()->vars.home, *first = first_allowed(ri->allowlist);
    /* the held values, from the CLI's environment as the session took them */
    size_t n_held = strv_length(held);
    _cleanup_free_ const char **values = calloc(n_held + 1, sizeof(char *));
    if (values == NULL)
        return EXIT_INTERNAL;
    for (size_t i = 0; i < n_held; i++)
        values[i] = getenv(held[i]);
    /* what the session set on purpose: the profile's variables */
    _cleanup_(strv_freep) char **passed = strv_copy(agent->env);
    for (size_t i = 0; passed != NULL && agent->telemetry_off != NULL && agent->telemetry_off[i] != NULL; i++)
        if (strv_push(&passed, agent->telemetry_off[i]) < 0)
            return EXIT_INTERNAL;
    if (passed == NULL)
        return EXIT_INTERNAL;
    verify_expect_t x = {
        .workdir = workdir, .extra_mountpoints = host_mounts, .host_env = environ, .passed_env = passed,
        .secret = secret, .host_home = home, .first_allowed = first, .agent = agent->name,
        .agent_telemetry_off = agent->telemetry_off, .agent_credentials = agent->credentials,
        .held_vars = held, .held_values = (char *const *)values,
    };
    as_error_t *err = NULL;
    _cleanup_(verify_report_freep) verify_report_t *rep = NULL;
    _cleanup_free_ char *text = NULL;
    int r = verify_evaluate(output, &x, &rep, &err);
    if (r < 0 || (json ? verify_render_json(rep, &text, &err) : verify_render_table(rep, &text, &err)) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    fputs(text, stdout);
    if (json)
        fputc('\n', stdout);
    return rep->passed ? 0 : 1;
}
