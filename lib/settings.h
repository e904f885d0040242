/* The general settings of a session: the `config` file in the config
 * directory (lib/user_dirs.h; docs/config-files.md). One `NAME VALUE` per
 * line in the one line syntax (lib/config_lines.h); a later line wins; an
 * unknown name or value refuses the file. Each setting is one row of the
 * table in settings.c. Pure code. */
#ifndef AS_SETTINGS_H
#define AS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define SETTINGS_FILE "config"

typedef struct settings {
    bool git_identity;       /* git-identity on|off: commits inside carry the host's user.name/email */
} settings_t;

void settings_defaults(settings_t *ret);

/* Applies every line of `text` onto *s; "FILE:LINE: ..." errors. */
int settings_parse_file(const char *file, const char *text, size_t len, settings_t *s,
                        as_error_t **err);

#endif
