/* The end-of-session lines about egress (cli.h, egress_report_end). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cli.h"
#include "egress_report.h"
#include "base/escape.h"
#include "base/hostname.h"
#include "base/msg.h"
#include "base/util.h"
#include "config/allowlist.h"
#include "base/user_dirs.h"
#include "egress/session_logs.h"

#define NAMES_SHOWN 3

/* "a (12x), b (4x), c (1x)" and how many more, escaped. */
static void put_counts(FILE *f, const name_count_t *v, size_t n)
{
    for (size_t i = 0; i < n && i < NAMES_SHOWN; i++) {
        fputs(i > 0 ? ", " : "", f);
        path_put_escaped(f, v[i].name, strlen(v[i].name));
        fprintf(f, " (%zux)", v[i].count);
    }
    if (n > NAMES_SHOWN)
        fprintf(f, " and %zu more", n - NAMES_SHOWN);
}

/* "3 blocked: pypi.org (12x), ...; allow with: agent-sandbox allow pypi.org --save" */
static void report_blocked(const egress_summary_t *s, const char *id)
{
    msg_t m;
    char *text = NULL;
    if (s->n_blocked == 0 || msg_open(&m, NULL) < 0)
        return;
    fprintf(m.f, "%zu blocked: ", s->n_blocked);
    put_counts(m.f, s->blocked, s->n_blocked);
    if (s->n_blocked > NAMES_SHOWN)
        fprintf(m.f, " (agent-sandbox log %s --denied)", id);
    /* the one blocked most that an allowlist can hold */
    for (size_t i = 0; i < s->n_blocked; i++)
        if (hostname_is_canonical(s->blocked[i].name)) {
            fprintf(m.f, "; allow with: agent-sandbox allow %s --save", s->blocked[i].name);
            break;
        }
    if (msg_close(&m, &text, NULL) == 0)
        report("egress: %s", text);
    free(text);
}

/* "2 requests refused by the rules of allowed names: api.x.com (2x)": the
 * name is allowed, so no `allow` would help. */
static void report_refused(const egress_summary_t *s)
{
    msg_t m;
    char *text = NULL;
    size_t n = 0;
    for (size_t i = 0; i < s->n_refused; i++)
        n += s->refused[i].count;
    if (s->n_refused == 0 || msg_open(&m, NULL) < 0)
        return;
    fprintf(m.f, "%zu %s refused by the rules of allowed names (held secrets, `rules`: docs/secrets.md): ", n,
            plural(n, "request", "requests"));
    put_counts(m.f, s->refused, s->n_refused);
    if (msg_close(&m, &text, NULL) == 0)
        report("egress: %s", text);
    free(text);
}

/* "api.anthropic.com: allowed, but it could not be resolved upstream (3x)" */
static void report_failures(const name_count_t *v, size_t n, const char *what)
{
    for (size_t i = 0; i < n && i < NAMES_SHOWN; i++) {
        _cleanup_free_ char *name = path_escaped(v[i].name);
        report("egress: %s: allowed, but %s (%zux)", name != NULL ? name : "?", what, v[i].count);
    }
    if (n > NAMES_SHOWN)
        report("egress: and %zu more %s %s", n - NAMES_SHOWN, plural(n - NAMES_SHOWN, "name", "names"),
               what);
}

void egress_report_end(const session_dir_t *dir)
{
    _cleanup_free_ char *log_dir = NULL, *dest = NULL;
    if (asprintf(&log_dir, "%s/router-log", dir->path) < 0 || access(log_dir, F_OK) < 0)
        return;
    as_error_t *err = NULL;
    egress_summary_t sum = {0};
    if (session_logs_keep(dir->path, dir->id, &dest, &err) < 0) {
        as_error_prefix(&err, "keeping the router's logs");
        report_error(&err);
        return;
    }
    if (egress_log_summary(dest, &sum, &err) < 0) {
        report_error(&err);
        return;
    }
    report_blocked(&sum, dir->id);
    report_refused(&sum);
    report_failures(sum.unresolved, sum.n_unresolved, "it could not be resolved upstream");
    /* the name may not exist; if it does, the router's resolver or its way out is wrong */
    if (sum.n_unresolved > 0)
        report("egress: a name that exists but does not resolve: `agent-sandbox doctor` checks the "
               "router's upstream resolver (AGENT_SANDBOX_RESOLVER, or /etc/resolv.conf's) and that "
               "its egress network has a route out");
    report_failures(sum.unreachable, sum.n_unreachable,
                    "the connection to it failed upstream (refused, timed out, or an address "
                    "the router refuses: see allow-upstream-net)");
    if (sum.n_blocked > 0 || sum.n_unresolved > 0 || sum.n_unreachable > 0 || sum.n_refused > 0)
        report("egress: every query and connection: agent-sandbox log %s", dir->id);
    if (sum.dropped > 0)
        report("egress: the router's logs reached their ceiling (%d MiB each): %zu %s "
               "dropped, counted in %s/*" LOG_DROPPED_SUFFIX, ROUTER_LOG_MAX_BYTES >> 20, sum.dropped,
               plural(sum.dropped, "line was", "lines were"), dest);
    egress_summary_clear(&sum);
}
