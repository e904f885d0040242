#include "error_contract.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

void assert_failed_with(int r, const as_error_t *err, int code)
{
    if (r >= 0)
        fail_msg("the call succeeded (%d); a failure was expected", r);
    if (err == NULL)
        fail_msg("the call failed with %d but filled no error", r);
    if (err->msg == NULL)
        fail_msg("the error of %d has no message", r);
    if (r != -err->code)
        fail_msg("the call returned %d, its error says %d (%s)", r, -err->code, err->msg);
    if (code != 0 && err->code != code)
        fail_msg("the call failed with %d (%s), not %d", -err->code, err->msg, -code);
}
