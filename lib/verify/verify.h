/* `agent-sandbox verify`: a probe script collects evidence inside a real
 * session; this module judges it against what the CLI knows (the launch
 * directory, the mounts it made, its own environment and a secret only it
 * holds) and renders the verdict as a table or JSON. Pure: no I/O. */
#ifndef AS_VERIFY_H
#define AS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/util.h"

typedef enum { VERIFY_PASS, VERIFY_FAIL, VERIFY_SKIP } verify_status_t;

typedef struct verify_result {
    const char *id;          /* stable, for --json */
    const char *property;    /* what holds when it passes */
    verify_status_t status;
    char *evidence;
} verify_result_t;

typedef struct verify_report {
    verify_result_t *results;
    size_t n;
    bool passed;             /* no FAIL */
} verify_report_t;

typedef struct verify_expect {
    const char *workdir;               /* the one host directory */
    char *const *extra_mountpoints;    /* the mount points of the host paths the plan gives
                                        * the agent (session_plan_host_mounts) */
    char *const *host_env;             /* the CLI's environment, NAME=VALUE */
    char *const *passed_env;           /* what it passed in, NAME=VALUE */
    const char *secret;                /* a value in the CLI's environment only */
    const char *host_home;
    const char *first_allowed;         /* NULL when the allowlist is empty */
    /* The agent's profile (agent_profile.h), or agent NULL: its program is
     * in the image, its telemetry switches are set, none of its credential
     * variables is. */
    const char *agent;
    char *const *agent_telemetry_off;  /* NAME=VALUE */
    char *const *agent_credentials;    /* NAME */
    /* The held secrets (--secret; docs/secrets.md), NULL when none: their
     * variables and, in the same order, their values. The probe has only
     * the stand-ins; no value may be anywhere in its output. */
    char *const *held_vars;
    char *const *held_values;
} verify_expect_t;

/* The bash script to run in the sandbox with arguments
 * FIRST_ALLOWED_NAME (or -), HOST_HOME, NONCE, AGENT_COMMAND (or -),
 * HELD_VARIABLES (space-separated, or -). */
const char *verify_probe_script(void);

int verify_evaluate(const char *output, const verify_expect_t *x, verify_report_t **ret,
                    as_error_t **err);
void verify_report_free(verify_report_t *r);
DEFINE_CLEANUP_FUNC(verify_report_t, verify_report_free)

int verify_render_table(const verify_report_t *r, char **ret, as_error_t **err);
int verify_render_json(const verify_report_t *r, char **ret, as_error_t **err);

#endif
