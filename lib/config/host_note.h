/* Notes worth seeing once on a host, not on every call (the limits this
 * host cannot enforce): remembered in the state directory
 * (lib/base/user_dirs.h), in notes/NAME.<machine id>, with their text, so a
 * note is shown again when its text changes or on another host that
 * shares the home directory. */
#ifndef AS_HOST_NOTE_H
#define AS_HOST_NOTE_H

#include <stdbool.h>

#include "base/error.h"

/* Whether `text` is new for note `name` on this host; records it as shown.
 * On an error (an unwritable state directory) the note counts as new. */
int host_note_first(const char *state_dir, const char *name, const char *text, bool *ret_first,
                    as_error_t **err);

#endif
