/* The toolchains a session may ask for (`--toolchain`, the settings'
 * `toolchain`): their names are compiled in from sandbox-image/toolchains/
 * NAME.toolchain (scripts/gen-toolchains), and the image of an agent with
 * a set of them is named by one rule, the one `make images AGENTS=A
 * TOOLCHAINS="T..."` builds by (docs/images.md):
 *     localhost/agent-sandbox-A-T1-T2...:TAG   (T sorted, without repeats)
 * Pure code. */
#ifndef AS_TOOLCHAINS_H
#define AS_TOOLCHAINS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* NULL-terminated, sorted. */
extern const char *const toolchain_names[];

bool toolchain_known(const char *name);
/* "go, java, node" (or "none" when this build knows none); NULL when out of memory. */
char *toolchain_known_list(void);

/* The names sorted alphabetically with repeats dropped (a new vector,
 * NULL-terminated); -ENOMEM. */
int toolchain_set(char *const *names, char ***ret, as_error_t **err);

/* The image of `agent` with the toolchains `set` (sorted, without repeats,
 * non-empty; toolchain_set) and `tag`. */
int toolchain_image(const char *agent, char *const *set, const char *tag, char **ret, as_error_t **err);

/* What builds it: `make images AGENTS=A TOOLCHAINS="T1 T2"`. */
int toolchain_build_command(const char *agent, char *const *set, char **ret, as_error_t **err);

#endif
