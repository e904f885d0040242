/* The error type and the mapping of libpod's error answers into it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error_contract.h"
#include "base/error.h"
#include "podman/podman_api.h"

static void make_and_prefix(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    assert_int_equal(as_error_make(&err, EINVAL, "bad %s", "thing"), -EINVAL);
    assert_int_equal(as_error_prefix(&err, "while %d", 3), -EINVAL);
    assert_string_equal(err->msg, "while 3: bad thing");
    assert_int_equal(as_error_rc(err), -EINVAL);
    /* the first error wins, and the code returned is the kept error's */
    int r = as_error_make(&err, ENOENT, "second");
    assert_string_equal(err->msg, "while 3: bad thing");
    assert_failed_with(r, err, EINVAL);
    as_error_free(&err);
    assert_null(err);
    as_error_free(&err);
    as_error_free(NULL);
    assert_int_equal(as_error_make(NULL, 0, "nowhere"), -EIO);
}

static void errno_text_is_appended(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    as_error_errno(&err, ENOENT, "opening %s", "/x");
    assert_string_equal(err->msg, "opening /x: No such file or directory");
    as_error_free(&err);
}

static void libpod_error_body_is_mapped(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    int r = podman_error_from_answer(404, "{\"cause\":\"no such container\",\"message\":"
                                          "\"container x: no such container\",\"response\":404}",
                                     "removing container x", &err);
    assert_int_equal(r, -ENOENT);
    assert_int_equal(err->http_status, 404);
    assert_string_equal(err->msg, "removing container x: HTTP 404: container x: no such container");
    as_error_free(&err);

    r = podman_error_from_answer(409, "{\"cause\":\"name in use\",\"message\":\"\"}", "creating pod p", &err);
    assert_int_equal(r, -EEXIST);
    assert_string_equal(err->msg, "creating pod p: HTTP 409: name in use");
    as_error_free(&err);

    r = podman_error_from_answer(500, "not json\nsecond line", "x", &err);
    assert_int_equal(r, -EPROTO);
    assert_string_equal(err->msg, "x: HTTP 500: not json");
    as_error_free(&err);

    r = podman_error_from_answer(502, "", "y", &err);
    assert_string_equal(err->msg, "y: HTTP 502: no details given");
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(make_and_prefix),
        cmocka_unit_test(errno_text_is_appended),
        cmocka_unit_test(libpod_error_body_is_mapped),
    };
    return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
