#include "plan_of.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

session_plan_t *plan_of(session_inputs_t in)
{
    session_plan_t *p = NULL;
    as_error_t *err = NULL;
    if (session_plan_build(&in, &p, &err) < 0)
        fail_msg("plan refused: %s", err->msg);
    return p;
}
