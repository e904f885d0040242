/* The yajl wrapper: generated documents, the sticky error, typed reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/json.h"

static void generates_nested_document(void **state)
{
    (void)state;
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_str(g, "name", "a\"b\n");
    json_kv_bool(g, "internal", true);
    json_kv_int(g, "n", -3);
    char *v[] = { "x", "y", NULL };
    json_kv_strv(g, "list", v, (size_t)-1);
    json_obj_close(g);
    char *text = NULL;
    as_error_t *err = NULL;
    assert_int_equal(json_gen_finish(g, &text, &err), 0);
    assert_string_equal(text, "{\"name\":\"a\\\"b\\n\",\"internal\":true,\"n\":-3,\"list\":[\"x\",\"y\"]}");
    free(text);
    json_gen_free(g);
}

static void invalid_utf8_is_reported_once_at_the_end(void **state)
{
    (void)state;
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_str(g, "bad", "\xff\xfe");
    json_kv_str(g, "after", "ok");     /* skipped: the first error sticks */
    json_obj_close(g);
    char *text = NULL;
    as_error_t *err = NULL;
    assert_true(json_gen_finish(g, &text, &err) < 0);
    assert_null(text);
    assert_non_null(strstr(err->msg, "UTF-8"));
    as_error_free(&err);
    json_gen_free(g);
}

static void unbalanced_document_fails(void **state)
{
    (void)state;
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_key(g, NULL);
    char *text = NULL;
    as_error_t *err = NULL;
    assert_true(json_gen_finish(g, &text, &err) < 0);
    as_error_free(&err);
    json_gen_free(g);
    json_gen_free(NULL);
}

static void typed_reads_check_types(void **state)
{
    (void)state;
    json_t *doc = NULL;
    as_error_t *err = NULL;
    assert_int_equal(json_parse("{\"s\":\"v\",\"i\":7,\"b\":true,\"a\":[1,\"two\"],\"o\":{\"k\":null}}",
                                "test", &doc, &err), 0);
    assert_string_equal(json_get_str(doc, "s"), "v");
    assert_null(json_get_str(doc, "i"));           /* not a string */
    long long i = 0;
    assert_true(json_as_int(json_get(doc, "i"), &i));
    assert_int_equal(i, 7);
    assert_false(json_as_int(json_get(doc, "s"), &i));
    assert_false(json_as_int(NULL, &i));
    bool b = false;
    assert_true(json_get_bool(doc, "b", &b));
    assert_true(b);
    assert_int_equal(json_array_len(json_get(doc, "a")), 2);
    assert_string_equal(json_as_str(json_array_at(json_get(doc, "a"), 1)), "two");
    assert_null(json_array_at(json_get(doc, "a"), 2));
    assert_int_equal(json_array_len(json_get(doc, "s")), 0);
    assert_null(json_get(json_get(doc, "a"), "k"));  /* array is not an object */
    assert_null(json_get(doc, "missing"));
    assert_true(json_is_null(json_get(json_get(doc, "o"), "k")));
    assert_false(json_is_null(json_get(doc, "o")));
    assert_false(json_is_null(NULL));
    assert_true(json_is_array(json_get(doc, "a")));
    assert_false(json_is_array(json_get(doc, "o")));
    json_free(doc);
}

static void objects_are_walked_in_document_order(void **state)
{
    (void)state;
    json_t *doc = NULL;
    as_error_t *err = NULL;
    assert_int_equal(json_parse("{\"z\":false,\"a\":[true]}", "test", &doc, &err), 0);
    assert_int_equal(json_object_len(doc), 2);
    const char *key = NULL;
    bool b = true;
    assert_true(json_as_bool(json_object_at(doc, 0, &key), &b));
    assert_string_equal(key, "z");
    assert_false(b);
    const json_t *a = json_object_at(doc, 1, &key);
    assert_string_equal(key, "a");
    assert_true(json_as_bool(json_array_at(a, 0), &b));
    assert_true(b);
    assert_false(json_as_bool(a, &b));            /* an array is no bool */
    assert_null(json_object_at(doc, 2, &key));
    assert_true(json_is_object(doc));
    assert_false(json_is_object(a));
    assert_int_equal(json_object_len(a), 0);      /* not an object */
    assert_null(json_object_at(a, 0, &key));
    json_free(doc);
}

static void malformed_input_names_the_document(void **state)
{
    (void)state;
    json_t *doc = NULL;
    as_error_t *err = NULL;
    assert_true(json_parse("{\"a\":", "the pod list", &doc, &err) < 0);
    assert_non_null(strstr(err->msg, "the pod list: malformed JSON"));
    assert_null(strchr(err->msg, '\n'));
    as_error_free(&err);
    assert_true(json_parse(NULL, "x", &doc, &err) < 0);
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generates_nested_document),
        cmocka_unit_test(invalid_utf8_is_reported_once_at_the_end),
        cmocka_unit_test(unbalanced_document_fails),
        cmocka_unit_test(typed_reads_check_types),
        cmocka_unit_test(objects_are_walked_in_document_order),
        cmocka_unit_test(malformed_input_names_the_document),
    };
    return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
