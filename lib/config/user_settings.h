/* The settings file, `settings` in the config directory (lib/base/user_dirs.h,
 * docs/config-files.md): one `KEY VALUE` per line in the one line syntax
 * (config_lines.h); a later line wins. Its keys:
 *   agent NAME              the agent a session runs when --agent is not given
 *   git-identity on|off     whether commits inside carry the host's user.name
 *                           and user.email (default on; git_identity.h)
 *   notifications on|off    a desktop notification for the first refusal of
 *                           each name (default on)
 *   autonomy on|off         the agent starts in its unattended mode, asking
 *                           before nothing (default on; docs/agents.md)
 *   review on|off           sessions run in review mode (docs/review.md;
 *                           default off)
 *   toolchain NAME...|none  the toolchains of the session's image (toolchains.h)
 *   image NAME              the image the user derived (user_image.h)
 * Any line may start with `in DIR` (absolute, or `~/...`; in double quotes
 * when it has blanks): it then applies only when the launch directory is
 * DIR or below it. For each key the line with the longest matching DIR
 * wins, a line without `in` counting as the shortest; among equals the
 * later line. Lines that do not apply are checked all the same.
 * An unknown key or a malformed value refuses the file ("FILE:LINE: ...").
 * Pure: the caller reads the file. */
#ifndef AS_USER_SETTINGS_H
#define AS_USER_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define USER_SETTINGS_FILE "settings"
#define USER_SETTINGS_MAX (64 * 1024)
#define USER_SETTINGS_WORDS_MAX 16      /* toolchain NAME...: at most this many */
#define USER_SETTINGS_KEYS_MAX 16

/* Which line set a key, and how specific it is: 0 for a line without
 * `in`, else the length of its DIR plus one. */
typedef struct user_setting_origin {
    char key[24];
    size_t rank;
    unsigned line;
} user_setting_origin_t;

typedef struct user_settings {
    char *agent;             /* NULL when not set */
    unsigned agent_line;     /* the line that set it */
    bool git_identity;       /* default true */
    bool notifications;      /* default true */
    bool autonomy;           /* default true */
    bool review;             /* default false: review mode (docs/review.md) */
    char **toolchains;       /* NULL-terminated; NULL when not set, empty for `none` */
    char *image;             /* NULL when not set */
    user_setting_origin_t origin[USER_SETTINGS_KEYS_MAX];   /* of the keys set */
    size_t n_origin;
} user_settings_t;

/* The settings when the file says nothing of them (or there is no file). */
#define USER_SETTINGS_DEFAULTS ((user_settings_t){ .git_identity = true, .notifications = true, .autonomy = true })

/* launch_dir: the launch directory (resolved, absolute), or NULL: no `in`
 * line applies. home: what `~/` stands for (NULL: a `~/` DIR is refused). */
int user_settings_parse_at(const char *filename, const char *text, size_t len, const char *launch_dir,
                           const char *home, user_settings_t *ret, as_error_t **err);
/* The same with no launch directory. */
int user_settings_parse(const char *filename, const char *text, size_t len, user_settings_t *ret,
                        as_error_t **err);
/* The line that set `key`, or NULL when none did. */
const user_setting_origin_t *user_settings_origin(const user_settings_t *s, const char *key);
void user_settings_clear(user_settings_t *s);

#endif
