/* The names we hand to podman, checked before any request: they go into
 * URLs unescaped and into other users' commands (podman ps). */
#ifndef AS_PODMAN_NAMES_H
#define AS_PODMAN_NAMES_H

#include <stdbool.h>

/* A podman network name: [a-zA-Z0-9][a-zA-Z0-9_.-]*, at most 200 bytes.
 * Container and volume names follow the same rule. */
bool network_name_valid(const char *name);

/* An image reference we pass through URLs unescaped: [A-Za-z0-9._/:@-],
 * no "..", at most 255 bytes. */
bool image_ref_valid(const char *ref);

#endif
