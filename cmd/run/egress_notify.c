/* Desktop notifications of what a session refuses (cli.h,
 * egress_notices_start): the first refusal of each name raises one, with
 * the command that allows it; at most NOTICES_MAX names, then one notice
 * that there are more. Silent when no notification service answers on the
 * user's session bus; off with `notifications off` in the settings file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egress_report.h"
#include "base/desktop_notify.h"
#include "base/hostname.h"
#include "base/util.h"
#include "config/allowlist.h"
#include "egress/egress_watch.h"

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
