/* The settings file, `settings` in the config directory (lib/config/user_dirs.h,
 * docs/config-files.md): one `KEY VALUE` per line in the one line syntax
 * (config_lines.h); a later line wins. Its keys:
 *   agent NAME              the agent a session runs when --agent is not given
 *   git-identity on|off     whether commits inside carry the host's user.name
 *                           and user.email (default on; git_identity.h)
 *   notifications on|off    a desktop notification for the first refusal of
 *                           each name (default on)
 *   autonomy on|off         the agent starts in its unattended mode, asking
 *                           before nothing (default on; docs/agents.md)
 * An unknown key or a malformed value refuses the file ("FILE:LINE: ...").
 * Pure: the caller reads the file. */
#ifndef AS_USER_SETTINGS_H
#define AS_USER_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define USER_SETTINGS_FILE "settings"
#define USER_SETTINGS_MAX (64 * 1024)

typedef struct user_settings {
    char *agent;             /* NULL when not set */
    unsigned agent_line;     /* the line that set it */
    bool git_identity;       /* default true */
    bool notifications;      /* default true */
    bool autonomy;           /* default true */
} user_settings_t;

/* The settings when the file says nothing of them (or there is no file). */
#define USER_SETTINGS_DEFAULTS ((user_settings_t){ .git_identity = true, .notifications = true, .autonomy = true })

int user_settings_parse(const char *filename, const char *text, size_t len, user_settings_t *ret,
                        as_error_t **err);
void user_settings_clear(user_settings_t *s);

#endif
