/* lib/review/review_store: the meta's text both ways, and the store in a
 * temporary XDG_STATE_HOME (create, end, list, find by prefix and by
 * launch directory, size, removal of a tree the agent made read-only). */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "review/review_store.h"

#define assert_contains(s, sub) do { \
        if (strstr((s), (sub)) == NULL) fail_msg("\"%s\" does not contain \"%s\"", (s), (sub)); \
    } while (0)

static void meta_round_trip(void **state)
{
    (void)state;
    review_info_t r = { .id = "0123456789ab", .root = "/home/u/my tree", .started_ns = 17, .ended_ns = 0 };
    char *text = review_meta_format(&r);
    assert_string_equal(text, "session 0123456789ab\nroot /home/u/my tree\nstarted 17\n");
    review_info_t back = { 0 };
    as_error_t *err = NULL;
    assert_int_equal(review_meta_parse(text, "meta", "0123456789ab", &back, &err), 0);
    assert_string_equal(back.root, "/home/u/my tree");
    assert_int_equal(back.started_ns, 17);
    assert_int_equal(back.ended_ns, 0);
    review_info_clear(&back);
    free(text);
    r.ended_ns = 99;
    text = review_meta_format(&r);
    assert_int_equal(review_meta_parse(text, "meta", "0123456789ab", &back, &err), 0);
    assert_int_equal(back.ended_ns, 99);
    assert_null(back.image);
    review_info_clear(&back);
    free(text);
    r.image = "localhost/agent-sandbox-claude:1.2";
    text = review_meta_format(&r);
    assert_string_equal(text, "session 0123456789ab\nroot /home/u/my tree\nstarted 17\nended 99\n"
                              "image localhost/agent-sandbox-claude:1.2\n");
    assert_int_equal(review_meta_parse(text, "meta", "0123456789ab", &back, &err), 0);
    assert_string_equal(back.image, "localhost/agent-sandbox-claude:1.2");
    review_info_clear(&back);
    free(text);
}

static void meta_errors_name_the_line(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; } cases[] = {
        { "session 0123456789ab\nroot /t\nstarted 1\ncolour red\n", "m:4: an unknown key" },
        { "session 0123456789ab\nroot relative\nstarted 1\n", "m:2: " },
        { "session 0123456789ab\nroot /t\nstarted -5\n", "m:3: not a time" },
        { "session 0123456789ab\nroot /t\nstarted 1\nstarted 2\n", "m:4: " },
        { "session 0123456789ab\nroot /t\n", "lacks one of" },
        { "session 0123456789ac\nroot /t\nstarted 1\n", "its session is 0123456789ac" },
        { "session\n", "m:1: no value" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        review_info_t r = { 0 };
        as_error_t *err = NULL;
        assert_int_equal(review_meta_parse(cases[i].text, "m", "0123456789ab", &r, &err), -EINVAL);
        assert_contains(err->msg, cases[i].msg);
        as_error_free(&err);
    }
}

static void ids(void **state)
{
    (void)state;
    assert_true(review_id_valid("0123456789ab"));
    assert_false(review_id_valid("0123456789AB"));
    assert_false(review_id_valid("0123456789a"));
    assert_false(review_id_valid("0123456789abc"));
    assert_false(review_id_valid("../../etc/xx"));
}

static char *make_state(void)
{
    char *dir = strdup("/tmp/as-review-store-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("XDG_STATE_HOME", dir, 1);
    return dir;
}

static void touch(const char *dir, const char *name, mode_t mode)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("some content\n", f);
    fclose(f);
    chmod(path, mode);
}

static void store_life(void **state)
{
    (void)state;
    char *tmp = make_state();
    as_error_t *err = NULL;
    review_info_t a = { 0 }, b = { 0 }, c = { 0 }, got = { 0 };
    assert_int_equal(review_store_create("aaaa00000001", "/src/one", NULL, 100, &a, &err), 0);
    assert_int_equal(review_store_create("aaaa00000002", "/src/one", NULL, 200, &b, &err), 0);
    assert_int_equal(review_store_create("bbbb00000003", "/src/two", NULL, 150, &c, &err), 0);
    assert_int_equal(review_store_create("bbbb00000003", "/src/two", NULL, 150, &got, &err), -EEXIST);
    as_error_free(&err);

    /* by prefix: unique, ambiguous, none, not hex */
    assert_int_equal(review_store_load("bb", &got, &err), 0);
    assert_string_equal(got.root, "/src/two");
    assert_int_equal(got.ended_ns, 0);
    assert_contains(got.upper, "/agent-sandbox/reviews/bbbb00000003/upper");
    review_info_clear(&got);
    assert_int_equal(review_store_load("aaaa", &got, &err), -EINVAL);
    assert_contains(err->msg, "2 reviews");
    as_error_free(&err);
    assert_int_equal(review_store_load("cc", &got, &err), -ENOENT);
    as_error_free(&err);
    assert_int_equal(review_store_load("../x", &got, &err), -EINVAL);
    as_error_free(&err);

    /* the end recorded; the newest of a root; the list oldest first */
    assert_int_equal(review_store_end(&a, 300, &err), 0);
    assert_int_equal(review_store_latest_for_root("/src/one", &got, &err), 0);
    assert_string_equal(got.id, "aaaa00000002");
    review_info_clear(&got);
    assert_int_equal(review_store_latest_for_root("/src/none", &got, &err), -ENOENT);
    as_error_free(&err);
    review_info_t *v = NULL;
    size_t n = 0;
    assert_int_equal(review_store_list(&v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(v[0].id, "aaaa00000001");
    assert_int_equal(v[0].ended_ns, 300);
    assert_string_equal(v[1].id, "bbbb00000003");
    review_list_free(v, n);

    /* size and removal of a tree with a read-only directory in it */
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/ro", c.upper);
    assert_int_equal(mkdir(sub, 0700), 0);
    touch(sub, "f", 0400);
    assert_int_equal(chmod(sub, 0500), 0);
    uint64_t bytes = 0;
    assert_int_equal(review_store_usage(&c, &bytes, &err), 0);
    assert_true(bytes > 0);
    char *left = NULL;
    assert_int_equal(review_store_remove(&c, &left, &err), 0);
    assert_null(left);
    struct stat st;
    assert_int_equal(stat(c.dir, &st), -1);

    /* a broken meta is an error naming it, never a review skipped */
    touch(b.dir, "meta", 0600);
    assert_int_equal(review_store_list(&v, &n, &err), -EINVAL);
    assert_contains(err->msg, "aaaa00000002/meta:1:");
    as_error_free(&err);

    assert_int_equal(review_store_remove(&a, &left, &err), 0);
    assert_int_equal(review_store_remove(&b, &left, &err), 0);
    review_info_clear(&a);
    review_info_clear(&b);
    review_info_clear(&c);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(meta_round_trip),
        cmocka_unit_test(meta_errors_name_the_line),
        cmocka_unit_test(ids),
        cmocka_unit_test(store_life),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
