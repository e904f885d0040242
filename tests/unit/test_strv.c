/* String vectors: copy, push, length, free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/strv.h"

static void copy_is_deep_and_terminated(void **state)
{
    (void)state;
    char a[] = "one", b[] = "two";
    char *v[] = { a, b, NULL };
    char **c = strv_copy(v);
    assert_non_null(c);
    assert_int_equal(strv_length(c), 2);
    assert_ptr_not_equal(c[0], a);
    a[0] = 'X';
    assert_string_equal(c[0], "one");
    assert_string_equal(c[1], "two");
    assert_null(c[2]);
    strv_free(c);
}

static void null_is_empty(void **state)
{
    (void)state;
    assert_int_equal(strv_length(NULL), 0);
    char **c = strv_copy(NULL);
    assert_non_null(c);
    assert_null(c[0]);
    strv_free(c);
    strv_free(NULL);
}

static void push_grows_from_null(void **state)
{
    (void)state;
    char **v = NULL;
    assert_int_equal(strv_push(&v, "a"), 0);
    assert_int_equal(strv_push(&v, "b"), 0);
    assert_int_equal(strv_length(v), 2);
    assert_string_equal(v[1], "b");
    assert_null(v[2]);
    strv_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_is_deep_and_terminated),
        cmocka_unit_test(null_is_empty),
        cmocka_unit_test(push_grows_from_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
