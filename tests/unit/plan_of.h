/* The plan of some inputs, for the tests that read it: fails the test when
 * session_plan_build refuses them. */
#ifndef AS_TEST_PLAN_OF_H
#define AS_TEST_PLAN_OF_H

#include "session/session_plan.h"

session_plan_t *plan_of(session_inputs_t in);

#endif
