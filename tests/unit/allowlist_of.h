/* The allowlist of some text, for the tests that need one: fails the test
 * when allowlist_parse refuses it. */
#ifndef AS_TEST_ALLOWLIST_OF_H
#define AS_TEST_ALLOWLIST_OF_H

#include "config/allowlist.h"

allowlist_t *allowlist_of(const char *text);

#endif
