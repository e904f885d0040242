/* The settings file of the config directory (`settings`, lib/user_dirs.h):
 * switches of the tool's own behaviour, one `NAME VALUE` per line in the
 * line syntax of every config file (lib/config_lines.h); a later line
 * wins; an unknown name or value is an error naming the file and line
 * (docs/config-files.md). */
#ifndef AS_SETTINGS_H
#define AS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define SETTINGS_FILE "settings"
#define SETTINGS_FILE_MAX (64 * 1024)

typedef struct settings {
    bool notifications;      /* `notifications on|off`: a desktop notification for the first
                              * refusal of each name (default on) */
} settings_t;

void settings_defaults(settings_t *ret);

/* Applies the file's text on top of *s. */
int settings_parse(const char *filename, const char *text, size_t len, settings_t *s,
                   as_error_t **err);

#endif
