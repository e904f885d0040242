#include "desktop_notify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "escape.h"
#include "msg.h"

struct desktop_notifier {
    sd_bus *bus;
};

int desktop_notifier_open(desktop_notifier_t **ret, as_error_t **err)
{
    desktop_notifier_t *n = calloc(1, sizeof(*n));
    if (n == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = sd_bus_open_user(&n->bus);
    if (r < 0) {
        free(n);
        return as_error_errno(err, -r, "connecting to the session bus");
    }
    sd_bus_set_method_call_timeout(n->bus, (uint64_t)DESKTOP_NOTIFY_TIMEOUT_MS * 1000);
    *ret = n;
    return 0;
}

void desktop_notifier_close(desktop_notifier_t *n)
{
    if (n == NULL)
        return;
    sd_bus_flush_close_unref(n->bus);
    free(n);
}

int desktop_notify(desktop_notifier_t *n, const char *summary, const char *body, as_error_t **err)
{
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    /* app name, id to replace, icon, summary, body, actions, hints, expiry */
    int r = sd_bus_call_method(n->bus, "org.freedesktop.Notifications",
                               "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                               "Notify", &error, &reply, "susssasa{sv}i", "agent-sandbox", 0u, "",
                               summary, body, 0, 0, -1);
    if (r < 0)
        r = as_error_make(err, -r, "the notification service did not take it: %s",
                          error.message != NULL ? error.message : strerror(-r));
    sd_bus_error_free(&error);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

char *notify_text_escaped(const char *text)
{
    char *plain = path_escaped(text), *out = NULL;
    msg_t m;
    if (plain == NULL || msg_open(&m, NULL) < 0) {
        free(plain);
        return NULL;
    }
    for (const char *c = plain; *c != '\0'; c++)
        switch (*c) {
        case '&': fputs("&amp;", m.f); break;
        case '<': fputs("&lt;", m.f); break;
        case '>': fputs("&gt;", m.f); break;
        case '"': fputs("&quot;", m.f); break;
        case '\'': fputs("&apos;", m.f); break;
        default: fputc(*c, m.f);
        }
    free(plain);
    return msg_close(&m, &out, NULL) == 0 ? out : NULL;
}
