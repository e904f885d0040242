/* The registry of running sessions (lib/session_registry): an entry
 * written and read back byte for byte, whatever its text holds; only
 * sessions whose lock is held are listed; a signal reaches the session's
 * CLI only while it runs, never a process that took its PID afterwards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/strv.h"
#include "session/session_registry.h"

static char runtime[] = "/tmp/test-registry-XXXXXX";

static int setup(void **state)
{
    (void)state;
    if (mkdtemp(runtime) == NULL)
        return -1;
    setenv("XDG_RUNTIME_DIR", runtime, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", runtime);
    return system(cmd) == 0 ? 0 : -1;
}

/* A session directory of this process (its lock held here) with an entry. */
static session_dir_t *session_with_entry(const char *id, pid_t pid, const char *launch_dir, long long started)
{
    session_dir_t *d = NULL;
    as_error_t *err = NULL;
    if (session_dir_create(id, &d, &err) < 0)
        fail_msg("%s", err->msg);
    char *command[] = { "sh", "-c", "echo \x1b]0;title\x07 'two words'", NULL };
    session_entry_t e = {
        .pid = pid, .launch_dir = (char *)launch_dir, .started = started, .command = command,
        .agent = NULL, .image = "localhost/agent-sandbox:dev", .allowlist_path = "/home/u/allowed-hosts",
        .allowlist_entries = 7,
    };
    snprintf(e.id, sizeof(e.id), "%s", id);
    if (session_registry_write(d->path, &e, &err) < 0)
        fail_msg("%s", err->msg);
    return d;
}

static void entry_round_trips_whatever_its_text_holds(void **state)
{
    (void)state;
    /* a directory name with a newline, an escape and a byte that is not UTF-8 */
    const char *odd = "/home/u/a\nb\x1b[31m\xff";
    session_dir_t *d = session_with_entry("0123456789ab", getpid(), odd, 1700000000);
    session_entry_t *e = NULL;
    as_error_t *err = NULL;
    if (session_registry_read(d->path, &e, &err) < 0)
        fail_msg("%s", err->msg);
    assert_string_equal(e->id, "0123456789ab");
    assert_int_equal(e->pid, getpid());
    assert_string_equal(e->launch_dir, odd);
    assert_int_equal(e->started, 1700000000);
    assert_int_equal(strv_length(e->command), 3);
    assert_string_equal(e->command[2], "echo \x1b]0;title\x07 'two words'");
    assert_null(e->agent);
    assert_string_equal(e->image, "localhost/agent-sandbox:dev");
    assert_string_equal(e->allowlist_path, "/home/u/allowed-hosts");
    assert_int_equal(e->allowlist_entries, 7);
    assert_string_equal(e->dir, d->path);
    struct stat st;
    char path[512];
    snprintf(path, sizeof(path), "%s/" REGISTRY_FILE, d->path);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    session_entry_free(e);
    session_dir_remove(d, NULL);
    session_dir_free(d);
}

static void a_missing_or_foreign_entry_is_refused(void **state)
{
    (void)state;
    session_dir_t *d = NULL;
    as_error_t *err = NULL;
    session_entry_t *e = NULL;
    assert_int_equal(session_dir_create("aaaaaaaaaaaa", &d, &err), 0);
    assert_int_equal(session_registry_read(d->path, &e, &err), -ENOENT);
    as_error_free(&err);
    char path[512];
    snprintf(path, sizeof(path), "%s/" REGISTRY_FILE, d->path);
    FILE *f = fopen(path, "w");
    fputs("{\"format\":99,\"id\":\"aaaaaaaaaaaa\"}", f);
    fclose(f);
    assert_int_equal(session_registry_read(d->path, &e, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "not a session entry"));
    as_error_free(&err);
    session_dir_remove(d, NULL);
    session_dir_free(d);
}

static void only_running_sessions_are_listed_oldest_first(void **state)
{
    (void)state;
    session_dir_t *newer = session_with_entry("bbbbbbbbbbbb", getpid(), "/home/u/newer", 2000);
    session_dir_t *older = session_with_entry("cccccccccccc", getpid(), "/home/u/older", 1000);
    session_dir_t *bare = NULL;            /* running, but no entry: not a session to list */
    as_error_t *err = NULL;
    assert_int_equal(session_dir_create("dddddddddddd", &bare, &err), 0);
    /* an entry whose CLI is gone: its lock is free */
    char base[512], dead[600], cmd[4096];
    snprintf(base, sizeof(base), "%s/agent-sandbox", runtime);
    snprintf(dead, sizeof(dead), "%s/eeeeeeeeeeee", base);
    snprintf(cmd, sizeof(cmd), "mkdir '%s' && touch '%s/lock' && cp '%s/" REGISTRY_FILE "' '%s/'", dead, dead,
             older->path, dead);
    assert_int_equal(system(cmd), 0);

    session_entry_t **v = NULL;
    size_t n = 0;
    if (session_registry_list(base, &v, &n, &err) < 0)
        fail_msg("%s", err->msg);
    assert_int_equal(n, 2);
    assert_string_equal(v[0]->id, "cccccccccccc");
    assert_string_equal(v[1]->id, "bbbbbbbbbbbb");
    assert_true(session_entry_live(v[0]));
    session_entries_free(v, n);

    /* ended: its lock released with its directory */
    session_dir_remove(newer, NULL);
    assert_int_equal(session_registry_list(base, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(v[0]->id, "cccccccccccc");
    session_entries_free(v, n);
    session_dir_free(newer);
    session_dir_remove(older, NULL);
    session_dir_free(older);
    session_dir_remove(bare, NULL);
    session_dir_free(bare);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dead);
    assert_int_equal(system(cmd), 0);
}

static pid_t sleeper(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        pause();
        _exit(0);
    }
    return pid;
}

/* The entry names a child as the session's CLI: signalled while the lock
 * is held, untouched once it is free (as after the CLI's end, its PID then
 * someone else's). */
static void a_signal_reaches_only_a_running_session(void **state)
{
    (void)state;
    pid_t child = sleeper();
    session_dir_t *d = session_with_entry("ffffffffffff", child, "/home/u/p", 1000);
    session_entry_t *e = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_registry_read(d->path, &e, &err), 0);

    close(d->lock_fd);           /* the lock free: the CLI that wrote it is gone */
    d->lock_fd = -1;
    assert_false(session_entry_live(e));
    int r = session_entry_signal(e, SIGTERM, &err), status;
    as_error_free(&err);
    if (r != -ESRCH || waitpid(child, &status, WNOHANG) != 0) {
        kill(child, SIGKILL);
        fail_msg("a session whose lock is free was signalled (%d)", r);
    }

    /* the lock held again (here, for the test): the signal goes through */
    char lock[600];
    snprintf(lock, sizeof(lock), "%s/lock", d->path);
    d->lock_fd = open(lock, O_RDWR | O_CLOEXEC);
    assert_int_equal(flock(d->lock_fd, LOCK_EX | LOCK_NB), 0);
    assert_true(session_entry_live(e));
    if (session_entry_signal(e, SIGTERM, &err) < 0) {
        kill(child, SIGKILL);
        fail_msg("%s", err->msg);
    }
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);

    /* a PID that no longer exists */
    assert_int_equal(session_entry_signal(e, SIGTERM, &err), -ESRCH);
    as_error_free(&err);
    session_entry_free(e);
    session_dir_remove(d, NULL);
    session_dir_free(d);
}

/* A second stop signal waits while the first is pending: read off
 * /proc/PID/status, the process's shared set or its thread's. */
static void a_pending_signal_is_read_off_the_process_status(void **state)
{
    (void)state;
    assert_true(proc_status_signal_pending("Name:\tx\nSigPnd:\t0000000000000000\n"
                                           "ShdPnd:\t0000000000004000\n", SIGTERM));
    assert_true(proc_status_signal_pending("Name:\tx\nSigPnd:\t0000000000004000\n"
                                           "ShdPnd:\t0000000000000000\n", SIGTERM));
    assert_false(proc_status_signal_pending("Name:\tx\nSigPnd:\t0000000000000000\n"
                                            "ShdPnd:\t0000000000000100\n", SIGTERM));
    assert_true(proc_status_signal_pending("Name:\tx\nShdPnd:\t0000000000000100\n", SIGKILL));
    assert_false(proc_status_signal_pending("Name:\tx\nShdPnd:\tzz\n", SIGTERM));
    assert_false(proc_status_signal_pending("Name:\tx\n", SIGTERM));
    assert_false(proc_status_signal_pending("Name:\tx\nShdPnd:\tffffffffffffffff\n", 0));
    assert_false(proc_status_signal_pending("Name:\tx\nShdPnd:\tffffffffffffffff\n", 65));

    /* a child that blocks SIGTERM: pending from the kill until it ends */
    sigset_t term, old;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &old);
    pid_t child = sleeper();
    sigprocmask(SIG_SETMASK, &old, NULL);
    session_entry_t e = { .pid = child };
    assert_false(session_entry_signal_pending(&e, SIGTERM));
    assert_int_equal(kill(child, SIGTERM), 0);
    bool pending = session_entry_signal_pending(&e, SIGTERM);
    bool other = session_entry_signal_pending(&e, SIGHUP);
    int status;
    kill(child, SIGKILL);
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(pending);
    assert_false(other);
    assert_false(session_entry_signal_pending(&e, SIGTERM));   /* gone */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entry_round_trips_whatever_its_text_holds),
        cmocka_unit_test(a_missing_or_foreign_entry_is_refused),
        cmocka_unit_test(only_running_sessions_are_listed_oldest_first),
        cmocka_unit_test(a_signal_reaches_only_a_running_session),
        cmocka_unit_test(a_pending_signal_is_read_off_the_process_status),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
