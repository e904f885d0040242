/* A desktop notification on the user's session bus (the freedesktop.org
 * Notifications interface), through sd-bus: the one user of libsystemd.
 * No actions, no sounds: a line of text for the user to read, nothing
 * that can act for them. The text is the caller's, plain: control bytes
 * are escaped (path_put_escaped) and the markup a notification server
 * may interpret (& < > " ') becomes entities here, so that nothing the
 * agent chose can shape what the user sees. */
#ifndef AS_DESKTOP_NOTIFY_H
#define AS_DESKTOP_NOTIFY_H

#include "error.h"

#define DESKTOP_NOTIFY_TIMEOUT_MS 2000

typedef struct desktop_notifier desktop_notifier_t;

/* The user's session bus (DBUS_SESSION_BUS_ADDRESS, else
 * $XDG_RUNTIME_DIR/bus); an error when there is none. */
int desktop_notifier_open(desktop_notifier_t **ret, as_error_t **err);
void desktop_notifier_close(desktop_notifier_t *n);

/* Shows summary and body; an error when no notification service answers
 * within DESKTOP_NOTIFY_TIMEOUT_MS. */
int desktop_notify(desktop_notifier_t *n, const char *summary, const char *body, as_error_t **err);

/* text with control bytes escaped and markup as entities; NULL when out
 * of memory. */
char *notify_text_escaped(const char *text);

#endif
