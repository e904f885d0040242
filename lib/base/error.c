#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int make_v(as_error_t **err, int code, long http_status, const char *suffix,
                  const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static int make_v(as_error_t **err, int code, long http_status, const char *suffix,
                  const char *fmt, va_list ap)
{
    int rc = code > 0 ? -code : -EIO;
    if (err == NULL)
        return rc;
    /* The first error wins (a second one is a bug): it is kept, and so is
     * the rule that what is returned is its code. */
    if (*err != NULL)
        return -(*err)->code;

    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    if (msg != NULL && suffix != NULL) {
        char *full = NULL;
        if (asprintf(&full, "%s: %s", msg, suffix) >= 0) {
            free(msg);
            msg = full;
        }
    }
    as_error_t *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        free(msg);
        return rc;
    }
    e->code = code > 0 ? code : EIO;
    e->http_status = http_status;
    e->msg = msg != NULL ? msg : strdup("out of memory while reporting an error");
    *err = e;
    return rc;
}

int as_error_make(as_error_t **err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = make_v(err, code, 0, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int as_error_errno(as_error_t **err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = make_v(err, code, 0, strerror(code), fmt, ap);
    va_end(ap);
    return rc;
}

int as_error_http(as_error_t **err, long http_status, const char *fmt, ...)
{
    int code = http_status == 404 ? ENOENT : http_status == 409 ? EEXIST
             : http_status == 304 ? EALREADY : EPROTO;
    va_list ap;
    va_start(ap, fmt);
    int rc = make_v(err, code, http_status, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int as_error_prefix(as_error_t **err, const char *fmt, ...)
{
    if (err == NULL || *err == NULL)
        return -EIO;
    char *ctx = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&ctx, fmt, ap);
    va_end(ap);
    if (n >= 0) {
        char *full = NULL;
        if (asprintf(&full, "%s: %s", ctx, (*err)->msg) >= 0) {
            free((*err)->msg);
            (*err)->msg = full;
        }
        free(ctx);
    }
    return -(*err)->code;
}

int as_error_rc(const as_error_t *err)
{
    return err != NULL ? -err->code : 0;
}

int as_error_pass(as_error_t **err, as_error_t **mine)
{
    /* no error of its own: only when there was no memory to make one */
    int rc = *mine != NULL ? as_error_rc(*mine) : -ENOMEM;
    if (err == NULL) {
        as_error_free(mine);
        return rc;
    }
    if (*err == NULL) {
        *err = *mine;
        *mine = NULL;
    }
    as_error_free(mine);
    return *err != NULL ? as_error_rc(*err) : rc;
}

void as_error_free(as_error_t **err)
{
    if (err == NULL || *err == NULL)
        return;
    free((*err)->msg);
    free(*err);
    *err = NULL;
}

void as_error_add(as_error_t **into, as_error_t **more)
{
    if (more == NULL || *more == NULL)
        return;
    if (*into == NULL) {
        *into = *more;
        *more = NULL;
        return;
    }
    char *msg = NULL;
    if (asprintf(&msg, "%s; %s", (*into)->msg, (*more)->msg) >= 0) {
        free((*into)->msg);
        (*into)->msg = msg;
    }
    as_error_free(more);
}
