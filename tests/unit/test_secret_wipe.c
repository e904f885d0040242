/* No freed block still holds a held secret, or its base64 in a Basic
 * header: every heap copy is wiped before it is freed (lib/config/
 * secret_rules.c, lib/egress/held_secrets.c). Linked with -Wl,--wrap=free
 * (the Makefile), so that each free() of the library and of this test
 * looks into the block first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "config/secret_rules.h"
#include "egress/held_secrets.h"
#include "egress/router_terminate.h"

#include <stdio.h>

#define SECRET "s3cretValue-0123456789abcdefXYZ"

void __real_free(void *p);
void __wrap_free(void *p);

static const char *needles[2];
static int found;            /* freed blocks that still held a needle */

void __wrap_free(void *p)
{
    if (p != NULL) {
        size_t size = malloc_usable_size(p);
        for (size_t i = 0; i < 2; i++)
            if (needles[i] != NULL && memmem(p, size, needles[i], strlen(needles[i])) != NULL)
                found++;
    }
    __real_free(p);
}

/* The rules, and the needles: the secret and its Basic header's base64. */
static void set_up(secret_rules_t *rules, char encoded[128])
{
    as_error_t *err = NULL;
    static const char text[] = "TOK api.example.com authorization-basic alice\n"
                               "TOK other.example.com authorization-bearer\n"
                               "TOK third.example.com header:x-key\n";
    assert_int_equal(secret_rules_parse(rules, "secrets", text, strlen(text), &err), 0);
    char *value = NULL;
    assert_int_equal(secret_header_value(&rules->rules[0], SECRET, &value, &err), 0);
    assert_true(strncmp(value, "Basic ", 6) == 0 && strlen(value) < 128 + 6);
    strcpy(encoded, value + 6);
    free_wiped(value);
    needles[0] = SECRET;
    needles[1] = encoded;
    found = 0;
}

static void tear_down(secret_rules_t *rules)
{
    needles[0] = needles[1] = NULL;
    secret_rules_clear(rules);
}

static void header_values_leave_no_copy(void **state)
{
    (void)state;
    secret_rules_t rules = {0};
    char encoded[128];
    set_up(&rules, encoded);
    for (size_t i = 0; i < rules.n; i++) {
        char *value = NULL;
        as_error_t *err = NULL;
        assert_int_equal(secret_header_value(&rules.rules[i], SECRET, &value, &err), 0);
        free_wiped(value);            /* the caller's part: held_secrets_free does it */
    }
    assert_int_equal(found, 0);
    tear_down(&rules);
}

static const char *secret_env(const char *var)
{
    return strcmp(var, "TOK") == 0 ? SECRET : NULL;
}

static void held_secrets_leave_no_copy(void **state)
{
    (void)state;
    secret_rules_t rules = {0};
    char encoded[128];
    set_up(&rules, encoded);
    char *vars[] = { "TOK", NULL };
    held_secrets_t *h = NULL;
    as_error_t *err = NULL;
    assert_int_equal(held_secrets_build(&rules, NULL, vars, secret_env, &h, &err), 0);
    assert_int_equal(h->n_held, 3);
    held_secrets_free(h);
    assert_int_equal(found, 0);
    tear_down(&rules);
}

/* A value refused for its stand-in (nothing to replace past its prefix):
 * the copy it was made from is wiped too. */
static void refused_standin_leaves_no_copy(void **state)
{
    (void)state;
    static const char value[] = "-._+/=-._+/=";
    needles[0] = value;
    found = 0;
    char *standin = NULL;
    as_error_t *err = NULL;
    assert_int_equal(secret_standin(value, &standin, &err), -EINVAL);
    as_error_free(&err);
    assert_int_equal(found, 0);
    needles[0] = NULL;
}

#ifndef __SANITIZE_ADDRESS__
/* Whether the heap (brk's, where glibc's malloc keeps small blocks) holds
 * `needle` anywhere, freed blocks included: what a realloc inside libc
 * (open_memstream's) leaves behind, which no wrapped free() sees. 1 yes,
 * 0 no, -1 cannot tell (no [heap]: another allocator, as ASan's). */
static int heap_holds(const char *needle)
{
    FILE *maps = fopen("/proc/self/maps", "re");
    assert_non_null(maps);
    char line[512];
    unsigned long lo = 0, hi = 0;
    while (fgets(line, sizeof(line), maps) != NULL)
        if (strstr(line, "[heap]") != NULL && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
            break;
    fclose(maps);
    if (hi <= lo)
        return -1;
    return memmem((const void *)lo, hi - lo, needle, strlen(needle)) != NULL;
}
#endif

/* The value maps the router gets on its stdin hold every value: built
 * without a copy left behind in a freed block (msg_open_secret), however
 * often the buffer grows (60 names' maps: about 10 KiB). */
static void held_values_leave_no_copy(void **state)
{
    (void)state;
    enum { N = 60 };
    static char hosts[N][32], standins[N][48];
    static const char *host_names[N];
    static held_header_t held[N];
    for (int i = 0; i < N; i++) {
        snprintf(hosts[i], sizeof(hosts[i]), "h%d.example.com", i);
        snprintf(standins[i], sizeof(standins[i]), "standin%dValue0123456789abcd", i);
        host_names[i] = hosts[i];
        held[i] = (held_header_t){ hosts[i], "TOK", "x-key", standins[i], SECRET };
    }
    router_terminate_t t = { .hosts = host_names, .n_hosts = N, .held = held, .n_held = N,
                             .cert = "/c/cert.pem", .upstream_ca = "/c/ca.pem", .log = "/l/egress.log" };
    needles[0] = SECRET;
    found = 0;
    char *values = NULL;
    as_error_t *err = NULL;
    assert_int_equal(router_render_held_values(&t, &values, &err), 0);
    assert_true(strlen(values) > 8192);
    assert_non_null(strstr(values, SECRET));
    free_wiped(values);
    /* a secret stream that grows many times, and one dropped half written */
    msg_t m;
    assert_int_equal(msg_open_secret(&m, &err), 0);
    for (int i = 0; i < 200; i++)
        fprintf(m.f, "%s %d\n", SECRET, i);
    char *text = NULL;
    assert_int_equal(msg_close(&m, &text, &err), 0);
    assert_int_equal(strlen(text), 200 * (strlen(SECRET) + 2) + 10 + 90 * 2 + 100 * 3);  /* the digits */
    free_wiped(text);
    assert_int_equal(msg_open_secret(&m, &err), 0);
    fprintf(m.f, "%s", SECRET);
    msg_discard(&m);
    assert_int_equal(found, 0);
    needles[0] = NULL;
#ifndef __SANITIZE_ADDRESS__
    int in_heap = heap_holds(SECRET);
    if (in_heap < 0)
        skip();
    assert_int_equal(in_heap, 0);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_values_leave_no_copy),
        cmocka_unit_test(held_secrets_leave_no_copy),
        cmocka_unit_test(refused_standin_leaves_no_copy),
        cmocka_unit_test(held_values_leave_no_copy),
    };
    return cmocka_run_group_tests_name("secret_wipe", tests, NULL, NULL);
}
