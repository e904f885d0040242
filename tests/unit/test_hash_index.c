/* The one hash table: keys found after many growths, keys that share a
 * first slot, the walk over every key, and a table that is still empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/hash_index.h"

static void empty_table_finds_nothing(void **state)
{
    (void)state;
    hash_index_t *ix = hash_index_new();
    assert_non_null(ix);
    assert_int_equal(hash_index_len(ix), 0);
    assert_false(hash_index_find(ix, "a.test", NULL));
    assert_false(hash_index_find(ix, "", NULL));
    size_t pos = 0, v = 0;
    const char *key = NULL;
    assert_false(hash_index_next(ix, &pos, &key, &v));
    hash_index_free(ix);
    hash_index_free(NULL);
}

static void add_finds_or_adds(void **state)
{
    (void)state;
    _cleanup_(hash_index_freep) hash_index_t *ix = hash_index_new();
    char key[] = "example.com";
    size_t *v = NULL;
    bool added = false;
    assert_int_equal(hash_index_add(ix, key, &v, &added), 0);
    assert_true(added);
    assert_int_equal(*v, 0);
    *v = 7;
    key[0] = 'X';                  /* the table holds a copy of the key */
    assert_int_equal(hash_index_add(ix, "example.com", &v, &added), 0);
    assert_false(added);
    assert_int_equal(*v, 7);
    assert_int_equal(hash_index_add(ix, "", &v, NULL), 0);
    *v = 1;
    assert_int_equal(hash_index_add(ix, "example.co", &v, NULL), 0);
    size_t found = 0;
    assert_true(hash_index_find(ix, "example.com", &found));
    assert_int_equal(found, 7);
    assert_true(hash_index_find(ix, "", &found));
    assert_int_equal(found, 1);
    assert_true(hash_index_find(ix, "example.co", &found));
    assert_int_equal(found, 0);
    assert_false(hash_index_find(ix, "Xxample.com", NULL));
    assert_false(hash_index_find(ix, "example.comm", NULL));
    assert_int_equal(hash_index_len(ix), 3);
}

/* Far more keys than the first slots hold: every growth keeps every key
 * and its number. */
static void growth_keeps_every_key(void **state)
{
    (void)state;
    enum { N = 20000 };
    _cleanup_(hash_index_freep) hash_index_t *ix = hash_index_new();
    char key[32];
    for (size_t i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "host%zu.test", i);
        size_t *v = NULL;
        bool added = false;
        assert_int_equal(hash_index_add(ix, key, &v, &added), 0);
        assert_true(added);
        *v = i;
        assert_int_equal(hash_index_len(ix), i + 1);
    }
    for (size_t i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "host%zu.test", i);
        size_t v = SIZE_MAX;
        assert_true(hash_index_find(ix, key, &v));
        assert_int_equal(v, i);
    }
    snprintf(key, sizeof(key), "host%d.test", N);
    assert_false(hash_index_find(ix, key, NULL));
}

/* Keys whose hashes agree in their low 16 bits share a first slot in any
 * table of up to 65536 slots: each is found past the others, and a key
 * that is not there is told apart from all of them. */
static void colliding_keys_are_told_apart(void **state)
{
    (void)state;
    enum { N = 6 };
    char keys[N + 1][24];
    size_t n = 0;
    uint64_t low = hash_index_hash("k0") & 0xffff;
    for (unsigned i = 0; n < N + 1; i++) {
        char key[24];
        snprintf(key, sizeof(key), "k%u", i);
        if ((hash_index_hash(key) & 0xffff) == low)
            memcpy(keys[n++], key, sizeof(key));
    }
    _cleanup_(hash_index_freep) hash_index_t *ix = hash_index_new();
    for (size_t i = 0; i < N; i++) {          /* the last one is never added */
        size_t *v = NULL;
        assert_int_equal(hash_index_add(ix, keys[i], &v, NULL), 0);
        *v = 100 + i;
    }
    for (size_t i = 0; i < N; i++) {
        size_t v = 0;
        assert_true(hash_index_find(ix, keys[i], &v));
        assert_int_equal(v, 100 + i);
    }
    assert_false(hash_index_find(ix, keys[N], NULL));
    /* So many more that the table grows past the probe's run of them. */
    char key[32];
    for (size_t i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "other%zu", i);
        size_t *v = NULL;
        assert_int_equal(hash_index_add(ix, key, &v, NULL), 0);
    }
    for (size_t i = 0; i < N; i++) {
        size_t v = 0;
        assert_true(hash_index_find(ix, keys[i], &v));
        assert_int_equal(v, 100 + i);
    }
    assert_false(hash_index_find(ix, keys[N], NULL));
}

static void walk_yields_each_key_once(void **state)
{
    (void)state;
    enum { N = 300 };
    _cleanup_(hash_index_freep) hash_index_t *ix = hash_index_new();
    char key[32];
    for (size_t i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "n%zu", i);
        size_t *v = NULL;
        assert_int_equal(hash_index_add(ix, key, &v, NULL), 0);
        *v = i;
    }
    bool seen[N] = { false };
    size_t pos = 0, v = 0, count = 0;
    const char *k = NULL;
    while (hash_index_next(ix, &pos, &k, &v)) {
        assert_true(v < N);
        assert_false(seen[v]);
        seen[v] = true;
        snprintf(key, sizeof(key), "n%zu", v);
        assert_string_equal(k, key);
        count++;
    }
    assert_int_equal(count, N);
    assert_false(hash_index_next(ix, &pos, &k, &v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_table_finds_nothing),
        cmocka_unit_test(add_finds_or_adds),
        cmocka_unit_test(growth_keeps_every_key),
        cmocka_unit_test(colliding_keys_are_told_apart),
        cmocka_unit_test(walk_yields_each_key_once),
    };
    return cmocka_run_group_tests_name("hash_index", tests, NULL, NULL);
}
