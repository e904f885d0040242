/* A program run and waited for (lib/base/spawn.h): its exit status, its
 * first line, its output drained, and a wait that fails taken as an error
 * (SIGCHLD ignored: the kernel reaps the child, waitpid says ECHILD, and
 * the status it never filled in must not read as success). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/spawn.h"

static int run(char *const *argv, const spawn_io_t *io, char **ret_line)
{
    return spawn_and_wait(argv, NULL, io, ret_line);
}

static void exit_status_and_first_line(void **state)
{
    (void)state;
    char *exit3[] = { "sh", "-c", "exit 3", NULL };
    char *lines[] = { "printf", "one\\ntwo\\n", NULL };
    char *killed[] = { "sh", "-c", "kill -9 $$", NULL };
    const spawn_io_t capture = { .capture = true, .stdin_null = true, .quiet = true };
    char *line = NULL;
    assert_int_equal(run(exit3, &capture, NULL), 3);
    assert_int_equal(run(lines, &capture, &line), 0);
    assert_string_equal(line, "one");
    free(line);
    assert_int_equal(run(killed, &capture, NULL), 128 + SIGKILL);
}

/* A long answer is read to its end (the program is not left blocked on a
 * full pipe) and only its first line kept. */
static void long_output_is_drained(void **state)
{
    (void)state;
    char *seq[] = { "seq", "1", "200000", NULL };
    const spawn_io_t capture = { .capture = true };
    char *line = NULL;
    assert_int_equal(run(seq, &capture, &line), 0);
    assert_string_equal(line, "1");
    free(line);
}

static void output_goes_to_the_given_descriptor(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    char *echo[] = { "echo", "hello", NULL };
    assert_int_equal(run(echo, &(spawn_io_t){ .stdout_fd = fileno(f) }, NULL), 0);
    char buf[16] = "";
    rewind(f);
    assert_non_null(fgets(buf, sizeof(buf), f));
    assert_string_equal(buf, "hello\n");
    fclose(f);
}

/* The program runs in the directory asked for, not in ours (host python is
 * run from "/", never from the tree it is asked about). */
static void runs_in_the_directory_asked_for(void **state)
{
    (void)state;
    char *pwd[] = { "pwd", NULL };
    char *line = NULL;
    assert_int_equal(run(pwd, &(spawn_io_t){ .capture = true, .dir = "/" }, &line), 0);
    assert_string_equal(line, "/");
    free(line);
    assert_int_not_equal(run(pwd, &(spawn_io_t){ .capture = true, .dir = "/nonexistent-dir" }, NULL), 0);
}

static void failed_wait_is_no_success(void **state)
{
    (void)state;
    struct sigaction ign = { .sa_handler = SIG_IGN }, old;
    assert_int_equal(sigaction(SIGCHLD, &ign, &old), 0);
    char *no[] = { "false", NULL };
    char *line = NULL;
    int r = run(no, &(spawn_io_t){ .capture = true }, &line);
    assert_int_equal(sigaction(SIGCHLD, &old, NULL), 0);
    assert_int_equal(r, -ECHILD);
    assert_null(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_status_and_first_line),
        cmocka_unit_test(long_output_is_drained),
        cmocka_unit_test(output_goes_to_the_given_descriptor),
        cmocka_unit_test(runs_in_the_directory_asked_for),
        cmocka_unit_test(failed_wait_is_no_success),
    };
    return cmocka_run_group_tests_name("spawn", tests, NULL, NULL);
}
