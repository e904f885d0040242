/* The error contract of lib/ (lib/base/error.h), checked the one way: a
 * call that failed returned a negative code, filled *err with a message,
 * and the two agree (return code == -err->code). */
#ifndef AS_TEST_ERROR_CONTRACT_H
#define AS_TEST_ERROR_CONTRACT_H

#include "base/error.h"

/* Fails the test unless r < 0, err is filled and r == -err->code; and,
 * when code is not 0, unless that code is `code`. */
void assert_failed_with(int r, const as_error_t *err, int code);

#endif
