/* The `~.` escape of a terminal session: what is held, what is sent, what stops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/tty_escape.h"

/* Feeds each piece in turn (as separate reads) and checks the bytes sent and the stops. */
static void check(const char *const *pieces, const char *sent, unsigned stops)
{
    tty_escape_t e = TTY_ESCAPE_INIT;
    char all[256] = "";
    size_t n_all = 0;
    unsigned got_stops = 0;
    for (size_t i = 0; pieces[i] != NULL; i++) {
        char out[64];
        size_t len = strlen(pieces[i]);
        assert_true(len + 1 <= sizeof(out));
        size_t n = tty_escape_feed(&e, pieces[i], len, out, &got_stops);
        assert_true(n <= len + 1);
        memcpy(all + n_all, out, n);
        n_all += n;
    }
    all[n_all] = '\0';
    assert_string_equal(all, sent);
    assert_int_equal(got_stops, stops);
}

#define CHECK(sent, stops, ...) check((const char *const[]){ __VA_ARGS__, NULL }, sent, stops)

static void first_key_of_the_session_is_a_line_start(void **state)
{
    (void)state;
    CHECK("", 1, "~.");
}

static void after_enter(void **state)
{
    (void)state;
    CHECK("ls\r", 1, "ls\r~.");
    CHECK("ls\n", 1, "ls\n~.");
}

/* Ctrl-C at a hung agent, then ~.: no Enter needed in between */
static void after_ctrl_c(void **state)
{
    (void)state;
    CHECK("x\003\003", 1, "x\003\003~.");
    CHECK("x\003", 1, "x\003", "~", ".");
}

static void mid_line_tilde_is_plain(void **state)
{
    (void)state;
    CHECK("a~.", 0, "a~.");
    CHECK("cd ~/src\r", 0, "cd ~/src\r");
}

static void double_tilde_sends_one(void **state)
{
    (void)state;
    CHECK("~", 0, "~~");
    /* ... and the line goes on: a `~.` right after is sent */
    CHECK("~~.", 0, "~~~.");
}

static void tilde_then_other_sends_both(void **state)
{
    (void)state;
    CHECK("~/src", 0, "~/src");
    CHECK("~\r", 0, "~\r");
    CHECK("~\r", 1, "~\r~.");
}

static void held_across_reads(void **state)
{
    (void)state;
    CHECK("", 1, "~", ".");
    CHECK("~x", 0, "~", "x");
    CHECK("x\r", 1, "x\r", "~", ".");
}

static void held_tilde_stays_held(void **state)
{
    (void)state;
    CHECK("", 0, "~");
}

static void two_stops_in_a_row(void **state)
{
    (void)state;
    CHECK("", 2, "~.~.");
    CHECK("", 2, "~.", "~.");
    CHECK("\r", 2, "~.\r~.");
}

static void output_room_is_len_plus_one(void **state)
{
    (void)state;
    tty_escape_t e = TTY_ESCAPE_INIT;
    unsigned stops = 0;
    char out[4];
    assert_int_equal(tty_escape_feed(&e, "~", 1, out, &stops), 0);
    assert_int_equal(tty_escape_feed(&e, "abc", 3, out, &stops), 4);
    assert_memory_equal(out, "~abc", 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_key_of_the_session_is_a_line_start),
        cmocka_unit_test(after_enter),
        cmocka_unit_test(after_ctrl_c),
        cmocka_unit_test(mid_line_tilde_is_plain),
        cmocka_unit_test(double_tilde_sends_one),
        cmocka_unit_test(tilde_then_other_sends_both),
        cmocka_unit_test(held_across_reads),
        cmocka_unit_test(held_tilde_stays_held),
        cmocka_unit_test(two_stops_in_a_row),
        cmocka_unit_test(output_room_is_len_plus_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
