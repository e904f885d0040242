/* `agent-sandbox verify [--json]`: start a real session with the user's own
 * config, run the probe script in it, and show for each property whether
 * the confinement holds, with the evidence. Any FAIL exits 1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "allowlist.h"
#include "cli.h"
#include "session_plan.h"
#include "strv.h"
#include "util.h"
#include "verify.h"

extern char **environ;

#define SECRET_NAME "AGENT_SANDBOX_VERIFY_SECRET"

static int judge(const char *output, const char *workdir, char **host_mounts, const char *secret,
                 const char *first, bool json);

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

/* The first entry's name: an exact name, or a wildcard's apex. */
static char *first_allowed(void)
{
    allowlist_t *al = NULL;
    if (allowlist_config_load(&al) != 0)
        return NULL;
    char *name = al->n_entries > 0 ? strdup(al->entries[0].name) : NULL;
    allowlist_free(al);
    return name;
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

int cmd_verify(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else {
            report("error: verify: unknown argument %s (usage: agent-sandbox verify [--json])", argv[i]);
            return EXIT_USAGE;
        }
    }
    char secret[65], nonce[17];
    if (random_hex(secret, 32) < 0 || random_hex(nonce, 8) < 0) {
        report("error: verify: no random bytes: %s", strerror(errno));
        return EXIT_INTERNAL;
    }
    /* Held by the CLI only: it must not be visible anywhere inside. */
    setenv(SECRET_NAME, secret, 1);

    const char *home = getenv("HOME");
    _cleanup_free_ char *first = first_allowed();
    _cleanup_free_ char *workdir = realpath(".", NULL);
    int out = memfd_create("verify-out", MFD_CLOEXEC), errfd = memfd_create("verify-err", MFD_CLOEXEC);
    if (out < 0 || errfd < 0 || workdir == NULL || home == NULL) {
        report("error: verify: %s", strerror(errno));
        return EXIT_INTERNAL;
    }
    /* Nothing a session could have written shapes the evidence: an empty
     * home of its own instead of the home volume, the image's own programs
     * on a fixed PATH, a shell that reads no startup file, curl -q (no
     * ~/.curlrc) in the script. */
    char *command[] = { "/bin/bash", "--noprofile", "--norc", "-c", (char *)verify_probe_script(),
                        "verify", first ? first : "-", (char *)home, nonce, NULL };
    char *env[] = { "PATH=/usr/bin:/bin", NULL };
    char **host_mounts = NULL;
    run_request_t req = {
        .command = command, .env = env, .in_fd = -1, .out_fd = out, .err_fd = errfd,
        .allow_tty = false, .private_home = true, .ps_command = "agent-sandbox verify",
        .on_plan = keep_host_mounts, .on_plan_ctx = &host_mounts,
    };
    if (!json)
        report("verify: starting a session in %s and probing it...", workdir);   /* escaped */
    int rc = run_session(&req);
    _cleanup_free_ char *output = read_all(out);
    close(out);
    close(errfd);
    if (rc != 0 || output == NULL || host_mounts == NULL) {
        strv_free(host_mounts);
        report("error: verify: the probe session did not complete (exit %d); nothing was verified", rc);
        return rc != 0 ? rc : EXIT_INTERNAL;
    }
    rc = judge(output, workdir, host_mounts, secret, first, json);
    strv_free(host_mounts);
    return rc;
}

static int judge(const char *output, const char *workdir, char **host_mounts, const char *secret,
                 const char *first, bool json)
{
    const char *home = getenv("HOME");
    char *const passed[] = { NULL };
    verify_expect_t x = {
        .workdir = workdir, .extra_mountpoints = host_mounts, .host_env = environ, .passed_env = passed,
        .secret = secret, .host_home = home, .first_allowed = first,
    };
    as_error_t *err = NULL;
    verify_report_t *rep = NULL;
    _cleanup_free_ char *text = NULL;
    if (verify_evaluate(output, &x, &rep, &err) < 0 ||
        (json ? verify_render_json(rep, &text, &err) : verify_render_table(rep, &text, &err)) < 0) {
        verify_report_free(rep);
        report_error(&err);
        return EXIT_INTERNAL;
    }
    fputs(text, stdout);
    if (json)
        fputc('\n', stdout);
    int rc = rep->passed ? 0 : 1;
    verify_report_free(rep);
    return rc;
}
