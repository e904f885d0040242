/* Recognising the init's report that the agent's command could not be
 * executed, in pieces of every size, and nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "podman/exec_failure.h"

static const char REPORT[] = "ERROR (catatonit:6): failed to exec pid1: No such file or directory\n";

/* Offers text in pieces of `step` bytes; returns how many were taken. */
static size_t offer_all(exec_failure_t *ef, const char *text, size_t step)
{
    size_t len = strlen(text), taken = 0;
    for (size_t off = 0; off < len; off += step) {
        size_t n = off + step > len ? len - off : step;
        if (!exec_failure_offer(ef, text + off, n))
            return taken;
        taken += n;
    }
    return taken;
}

static void report_in_every_split(void **state)
{
    (void)state;
    for (size_t step = 1; step <= sizeof(REPORT); step++) {
        exec_failure_t ef = {0};
        assert_int_equal(offer_all(&ef, REPORT, step), strlen(REPORT));
        char reason[64];
        assert_string_equal(exec_failure_reason(&ef, reason, sizeof(reason)), "No such file or directory");
        assert_int_equal(ef.len, strlen(REPORT));
        assert_memory_equal(ef.held, REPORT, ef.len);
    }
}

static void report_on_a_terminal(void **state)
{
    (void)state;
    exec_failure_t ef = {0};
    const char *tty = "ERROR (catatonit:12): failed to exec pid1: Permission denied\r\n";
    assert_int_equal(offer_all(&ef, tty, 7), strlen(tty));
    char reason[64];
    assert_string_equal(exec_failure_reason(&ef, reason, sizeof(reason)), "Permission denied");
    assert_false(exec_failure_not_found(reason));
    assert_true(exec_failure_not_found("No such file or directory"));
}

static void other_output_is_not_held(void **state)
{
    (void)state;
    char reason[64];
    /* the first byte already differs */
    exec_failure_t ef = {0};
    assert_false(exec_failure_offer(&ef, "hello\n", 6));
    assert_int_equal(ef.len, 0);
    assert_null(exec_failure_reason(&ef, reason, sizeof(reason)));
    assert_false(exec_failure_offer(&ef, "ERROR", 5));     /* decided: nothing more is taken */

    /* a prefix, then a difference */
    ef = (exec_failure_t){0};
    assert_true(exec_failure_offer(&ef, "ERROR (cata", 11));
    assert_false(exec_failure_offer(&ef, "strophe)\n", 9));
    assert_int_equal(ef.len, 11);           /* the caller writes these, then the rest */

    /* no pid, or an empty reason */
    ef = (exec_failure_t){0};
    assert_int_equal(offer_all(&ef, "ERROR (catatonit:): failed to exec pid1: x\n", 100), 0);
    ef = (exec_failure_t){0};
    assert_int_equal(offer_all(&ef, "ERROR (catatonit:5): failed to exec pid1: \n", 100), 0);
}

static void output_after_a_report_means_the_command_ran(void **state)
{
    (void)state;
    exec_failure_t ef = {0};
    assert_int_equal(offer_all(&ef, REPORT, 100), strlen(REPORT));
    assert_false(exec_failure_offer(&ef, "more\n", 5));
    char reason[64];
    assert_null(exec_failure_reason(&ef, reason, sizeof(reason)));
    assert_int_equal(ef.len, strlen(REPORT));      /* still to be written by the caller */

    /* stdout came first: declined */
    ef = (exec_failure_t){0};
    assert_int_equal(offer_all(&ef, REPORT, 100), strlen(REPORT));
    exec_failure_decline(&ef);
    assert_null(exec_failure_reason(&ef, reason, sizeof(reason)));
}

static void long_output_is_not_held(void **state)
{
    (void)state;
    char big[EXEC_FAILURE_HELD_MAX + 10];
    memset(big, 'x', sizeof(big));
    memcpy(big, "ERROR (catatonit:1): failed to exec pid1: ", 42);
    exec_failure_t ef = {0};
    assert_false(exec_failure_offer(&ef, big, sizeof(big)));
    assert_int_equal(ef.len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_in_every_split),
        cmocka_unit_test(report_on_a_terminal),
        cmocka_unit_test(other_output_is_not_held),
        cmocka_unit_test(output_after_a_report_means_the_command_ran),
        cmocka_unit_test(long_output_is_not_held),
    };
    return cmocka_run_group_tests_name("exec_failure", tests, NULL, NULL);
}
