/* What a session tells of its egress (session_egress.h): the lines at its
 * end, and the desktop notifications of its refusals while it runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_egress.h"
#include "base/desktop_notify.h"
#include "base/escape.h"
#include "base/hostname.h"
#include "base/msg.h"
#include "base/util.h"
#include "config/allowlist.h"
#include "base/user_dirs.h"
#include "egress/egress_watch.h"
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
static void say_blocked(const session_say_t *to, const egress_summary_t *s, const char *id)
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
        say(to, SAY_PLAIN, "egress: %s", text);
    free(text);
}

/* "2 requests refused by the rules of allowed names: api.x.com (2x)": the
 * name is allowed, so no `allow` would help. */
static void say_refused(const session_say_t *to, const egress_summary_t *s)
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
        say(to, SAY_PLAIN, "egress: %s", text);
    free(text);
}

/* "api.anthropic.com: allowed, but it could not be resolved upstream (3x)" */
static void say_failures(const session_say_t *to, const name_count_t *v, size_t n, const char *what)
{
    for (size_t i = 0; i < n && i < NAMES_SHOWN; i++) {
        _cleanup_free_ char *name = path_escaped(v[i].name);
        say(to, SAY_PLAIN, "egress: %s: allowed, but %s (%zux)", name != NULL ? name : "?", what, v[i].count);
    }
    if (n > NAMES_SHOWN)
        say(to, SAY_PLAIN, "egress: and %zu more %s %s", n - NAMES_SHOWN, plural(n - NAMES_SHOWN, "name", "names"),
               what);
}

void session_egress_end(const session_dir_t *dir, const session_say_t *to)
{
    _cleanup_free_ char *log_dir = NULL, *dest = NULL;
    if (asprintf(&log_dir, "%s/router-log", dir->path) < 0 || access(log_dir, F_OK) < 0)
        return;
    as_error_t *err = NULL;
    egress_summary_t sum = {0};
    if (session_logs_keep(dir->path, dir->id, &dest, &err) < 0) {
        as_error_prefix(&err, "keeping the router's logs");
        say_error(to, &err);
        return;
    }
    if (egress_log_summary(dest, &sum, &err) < 0) {
        say_error(to, &err);
        return;
    }
    say_blocked(to, &sum, dir->id);
    say_refused(to, &sum);
    say_failures(to, sum.unresolved, sum.n_unresolved, "it could not be resolved upstream");
    /* the name may not exist; if it does, the router's resolver or its way out is wrong */
    if (sum.n_unresolved > 0)
        say(to, SAY_PLAIN, "egress: a name that exists but does not resolve: `agent-sandbox doctor` checks the "
               "router's upstream resolver (AGENT_SANDBOX_RESOLVER, or /etc/resolv.conf's) and that "
               "its egress network has a route out");
    say_failures(to, sum.unreachable, sum.n_unreachable,
                    "the connection to it failed upstream (refused, timed out, or an address "
                    "the router refuses: see allow-upstream-net)");
    if (sum.n_blocked > 0 || sum.n_unresolved > 0 || sum.n_unreachable > 0 || sum.n_refused > 0)
        say(to, SAY_PLAIN, "egress: every query and connection: agent-sandbox log %s", dir->id);
    if (sum.dropped > 0)
        say(to, SAY_PLAIN, "egress: the router's logs reached their ceiling (%d MiB each): %zu %s "
               "dropped, counted in %s/*" LOG_DROPPED_SUFFIX, ROUTER_LOG_MAX_BYTES >> 20, sum.dropped,
               plural(sum.dropped, "line was", "lines were"), dest);
    egress_summary_clear(&sum);
}

/* ---- desktop notifications ----------------------------------------------
 * The first refusal of each name raises one, with the command that allows
 * it; at most NOTICES_MAX names, then one notice that there are more.
 * Silent when no notification service answers on the user's session bus. */

#define NOTICES_MAX 5

struct egress_notices {
    char id[SESSION_ID_LEN + 1];
    egress_watch_t *watch;
    desktop_notifier_t *bus;   /* on the watcher's thread only */
    size_t sent;
};

static bool notify(egress_notices_t *n, const char *summary, const char *body)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *s = notify_text_escaped(summary), *b = notify_text_escaped(body);
    if ((n->bus == NULL && desktop_notifier_open(&n->bus, &err) < 0) || s == NULL || b == NULL ||
        desktop_notify(n->bus, s, b, &err) < 0) {
        as_error_free(&err);
        return false;            /* no bus, no service: nothing more to try */
    }
    return true;
}

/* On the watcher's thread: a name refused for the first time. */
static bool on_refused(const char *name, void *ctx)
{
    egress_notices_t *n = ctx;
    _cleanup_free_ char *summary = NULL, *body = NULL;
    if (n->sent == NOTICES_MAX) {
        if (asprintf(&body, "See every refused name: agent-sandbox log %s --denied", n->id) >= 0)
            notify(n, "agent-sandbox blocked more names", body);
        return false;
    }
    bool allowable = hostname_is_canonical(name);
    if (asprintf(&summary, "agent-sandbox blocked %s", name) < 0 ||
        (allowable ? asprintf(&body, "The agent in session %s tried to reach %s. To allow it, run: "
                              "agent-sandbox allow %s --session %s", n->id, name, name, n->id)
                   : asprintf(&body, "The agent in session %s tried to reach %s, which is not a "
                              "host name an allowlist can hold.", n->id, name)) < 0)
        return false;
    n->sent++;
    return notify(n, summary, body);
}

egress_notices_t *egress_notices_start(const session_dir_t *dir)
{
    egress_notices_t *n = calloc(1, sizeof(*n));
    _cleanup_free_ char *log_dir = NULL;
    as_error_t *err = NULL;
    if (n == NULL || asprintf(&log_dir, "%s/router-log", dir->path) < 0) {
        free(n);
        return NULL;
    }
    snprintf(n->id, sizeof(n->id), "%s", dir->id);
    if (egress_watch_start(log_dir, on_refused, n, &n->watch, &err) < 0) {
        as_error_free(&err);
        free(n);
        return NULL;
    }
    return n;
}

void egress_notices_stop(egress_notices_t *n)
{
    if (n == NULL)
        return;
    egress_watch_stop(n->watch);
    desktop_notifier_close(n->bus);
    free(n);
}
