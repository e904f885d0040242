/* One error type for all of lib/: a negative return value says that a call
 * failed, and the as_error_t it filled says why. lib/ never prints; cmd/
 * reports the message once. */
#ifndef AS_ERROR_H
#define AS_ERROR_H

#include <stdarg.h>
#include "util.h"

typedef struct as_error {
    int code;          /* errno value (positive), or 0 */
    long http_status;  /* libpod HTTP status when the failure is an API answer */
    char *msg;         /* full message, outermost context first */
} as_error_t;

/* Fill *err and return -code, or -EIO when code is 0. An *err that holds
 * an error already keeps it (the first wins), and its code is returned:
 * whatever fails, the return code is -(*err)->code. */
int as_error_make(as_error_t **err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same, with strerror(code) appended: "fmt: strerror". */
int as_error_errno(as_error_t **err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An API answer that is not a success: keeps the HTTP status. */
int as_error_http(as_error_t **err, long http_status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Add context in front of an existing error: "fmt: old message".
 * Returns the error's negative code so callers can `return as_error_prefix(...)`. */
int as_error_prefix(as_error_t **err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Negative code of an error, as the failing call returned it. */
int as_error_rc(const as_error_t *err);

/* Adds *more to *into ("first; second") and frees *more, so that no
 * failure of several is dropped; *into may be NULL. */
void as_error_add(as_error_t **into, as_error_t **more);

/* Hands an error of one's own to the caller's *err: the first error wins,
 * so one already there is kept and *mine dropped. Returns the negative
 * code of what *err then holds (-ENOMEM when neither holds one: there was
 * no memory to make it). */
int as_error_pass(as_error_t **err, as_error_t **mine);

void as_error_free(as_error_t **err);
DEFINE_CLEANUP_FUNC_REF(as_error_t, as_error_free)

#endif
