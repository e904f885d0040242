/* The agents this build knows, compiled in from the source tree
 * (scripts/gen-agent-pins): each one's pinned version
 * (sandbox-image/agents/NAME.version) and image (config/agents/NAME, with
 * this build's tag). `--version` and `doctor` show them. */
#ifndef AS_AGENT_PINS_H
#define AS_AGENT_PINS_H

#include <stddef.h>

typedef struct agent_pin {
    const char *name;
    const char *version;     /* NULL when blocked */
    const char *blocked;     /* why no image can be built, or NULL */
    const char *image;       /* "localhost/agent-sandbox-NAME:TAG" */
} agent_pin_t;

extern const agent_pin_t agent_pins[];
extern const size_t agent_pins_n;

#endif
