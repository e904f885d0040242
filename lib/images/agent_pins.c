#include "agent_pins.h"

#ifndef AS_IMAGE_TAG
#define AS_IMAGE_TAG "dev"
#endif

const agent_pin_t agent_pins[] = {
#include "agent_pins.inc"
};
const size_t agent_pins_n = sizeof(agent_pins) / sizeof(agent_pins[0]);
