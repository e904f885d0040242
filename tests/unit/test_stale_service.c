/* The stale sweep against the stub libpod server, and the private
 * service's start and stop with a fake `podman` on PATH: this very test
 * binary, run as "podman", serving the stub on the socket it is given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stub_libpod.h"
#include "podman/service.h"
#include "session/session_dir.h"
#include "session/stale.h"

/* ---- the fake podman ---------------------------------------------------- */

/* podman system service --time=0 unix://PATH, as FAKE_PODMAN says:
 * "serve" (default), "fail" (a message and status 125), "mute" (never
 * listens), "stubborn" (serves, and ignores SIGTERM). */
static int fake_podman(int argc, char **argv)
{
    const char *mode = getenv("FAKE_PODMAN");
    mode = mode != NULL ? mode : "serve";
    if (argc != 5 || strcmp(argv[1], "system") != 0 || strcmp(argv[2], "service") != 0 ||
        strncmp(argv[4], "unix://", 7) != 0)
        return 2;
    if (strcmp(mode, "fail") == 0) {
        fprintf(stderr, "Error: fake podman refuses\n");
        return 125;
    }
    /* the keeper's ignored signals are not the service's */
    struct sigaction quit;
    if (sigaction(SIGQUIT, NULL, &quit) == 0 && quit.sa_handler == SIG_IGN) {
        fprintf(stderr, "Error: fake podman started with SIGQUIT ignored\n");
        return 125;
    }
    if (strcmp(mode, "stubborn") == 0)
        signal(SIGTERM, SIG_IGN);
    stub_libpod_t *stub = NULL;
    if (strcmp(mode, "mute") != 0 && stub_libpod_start_at(argv[4] + 7, &stub) < 0)
        return 1;
    for (;;)
        pause();
}

static char bin_dir[64];

static int fake_on_path(void **state)
{
    (void)state;
    char self[PATH_MAX], link[128];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    strcpy(bin_dir, "/tmp/fake_podman.XXXXXX");
    if (n < 0 || mkdtemp(bin_dir) == NULL)
        return -1;
    self[n] = '\0';
    snprintf(link, sizeof(link), "%s/podman", bin_dir);
    char path[4096];
    snprintf(path, sizeof(path), "%s:%s", bin_dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    return symlink(self, link) < 0 || setenv("PATH", path, 1) < 0 ? -1 : 0;
}

static int fake_off_path(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", bin_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The fake service's start, as `mode` says; its result. */
static int start_fake(const char *mode, const signal_source_t *signals, podman_service_t **ret,
                      podman_api_t **ret_api, as_error_t **err)
{
    char sock[128], log[128];
    snprintf(sock, sizeof(sock), "%s/podman.sock", bin_dir);
    snprintf(log, sizeof(log), "%s/service.log", bin_dir);
    unlink(sock);
    setenv("FAKE_PODMAN", mode, 1);
    return podman_service_start(sock, log, 3000, signals, ret, ret_api, err);
}

static void start(const char *mode, const signal_source_t *signals, int expect, podman_service_t **ret,
                  podman_api_t **ret_api, as_error_t **err)
{
    assert_int_equal(start_fake(mode, signals, ret, ret_api, err), expect);
}

static void service_starts_answers_and_stops(void **state)
{
    (void)state;
    podman_service_t *svc = NULL;
    podman_api_t *api = NULL;
    as_error_t *err = NULL;
    start("serve", NULL, 0, &svc, &api, &err);
    assert_false(podman_service_reap_if_ended(svc));
    assert_int_equal(podman_ping(api, 1000, &err), 0);
    assert_int_equal(podman_service_stop(svc, 5000, &err), 0);
    assert_true(podman_service_reap_if_ended(svc));
    assert_true(WIFSIGNALED(svc->exit_status) && WTERMSIG(svc->exit_status) == SIGTERM);
    podman_api_free(api);
    podman_service_free(svc);
}

/* A forked holder (lib/session/session_finish.c's child) keeps the service answering
 * after its starter has let go; the last holder's end stops it. */
static void service_outlives_its_starter_while_a_child_holds_it(void **state)
{
    (void)state;
    podman_service_t *svc = NULL;
    podman_api_t *api = NULL;
    as_error_t *err = NULL;
    start("serve", NULL, 0, &svc, &api, &err);
    pid_t service = svc->pid, keeper = svc->keeper;
    char sock[128];
    snprintf(sock, sizeof(sock), "%s", svc->socket_path);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t holder = fork();
    if (holder == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 0)           /* until the starter has let go */
            _exit(2);
        podman_api_t *own = NULL;
        _exit(podman_api_new(sock, &own, NULL) == 0 && podman_ping(own, 2000, NULL) == 0 ? 0 : 1);
    }
    close(go[0]);
    podman_api_free(api);
    podman_service_free(svc);                  /* let go without stopping it */
    assert_int_equal(kill(service, 0), 0);
    close(go[1]);
    int status;
    assert_int_equal(waitpid(holder, &status, 0), holder);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(waitpid(keeper, &status, 0), keeper);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_true(kill(service, 0) < 0 && errno == ESRCH);
}

/* The starter killed: the service stops all the same. */
static void service_stops_when_its_starter_is_killed(void **state)
{
    (void)state;
    int tell[2];
    assert_int_equal(pipe(tell), 0);
    pid_t starter = fork();
    if (starter == 0) {
        podman_service_t *svc = NULL;
        podman_api_t *api = NULL;
        if (start_fake("serve", NULL, &svc, &api, NULL) < 0)
            _exit(1);
        if (write(tell[1], &svc->pid, sizeof(svc->pid)) < 0)
            _exit(1);
        pause();
    }
    close(tell[1]);
    pid_t service = 0;
    assert_int_equal(read(tell[0], &service, sizeof(service)), sizeof(service));
    close(tell[0]);
    assert_int_equal(kill(service, 0), 0);
    kill(starter, SIGKILL);
    waitpid(starter, NULL, 0);
    for (int i = 0; i < 500 && kill(service, 0) == 0; i++)
        usleep(10000);
    assert_true(kill(service, 0) < 0 && errno == ESRCH);
}

static void service_that_exits_is_quoted(void **state)
{
    (void)state;
    podman_service_t *svc = NULL;
    podman_api_t *api = NULL;
    as_error_t *err = NULL;
    start("fail", NULL, -ECHILD, &svc, &api, &err);
    assert_non_null(strstr(err->msg, "exited at start (status 125): Error: fake podman refuses"));
    as_error_free(&err);
}

static int always_int(void *ctx)
{
    (void)ctx;
    return SIGINT;
}

static void service_start_is_interruptible(void **state)
{
    (void)state;
    signal_source_t sig = { .fd = -1, .terminating = always_int };
    podman_service_t *svc = NULL;
    podman_api_t *api = NULL;
    as_error_t *err = NULL;
    start("mute", &sig, -EINTR, &svc, &api, &err);
    as_error_free(&err);
}

static void stubborn_service_is_killed(void **state)
{
    (void)state;
    podman_service_t *svc = NULL;
    podman_api_t *api = NULL;
    as_error_t *err = NULL;
    start("stubborn", NULL, 0, &svc, &api, &err);
    assert_int_equal(podman_service_stop(svc, 300, &err), -ETIMEDOUT);
    as_error_free(&err);
    assert_true(podman_service_reap_if_ended(svc));
    assert_true(WIFSIGNALED(svc->exit_status) && WTERMSIG(svc->exit_status) == SIGKILL);
    podman_api_free(api);
    podman_service_free(svc);
}

/* A child that waits to be killed; dies with this test, should it fail,
 * and holds none of its output open. */
static pid_t sleeper(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        for (;;)
            pause();
    }
    return pid;
}

/* In a forked child of the CLI (lib/session/session_finish.c), the keeper's pid may name
 * a stranger once the CLI has reaped it: the kill after the deadline goes
 * through the pidfd, never the pid. Here the pid names an innocent
 * process and the pidfd a stubborn keeper that never answers the stop. */
static void stop_kills_the_keeper_by_its_pidfd_not_its_pid(void **state)
{
    (void)state;
    int probe = pidfd_open(getpid(), 0);
    if (probe < 0 && errno == ENOSYS)
        skip();                       /* valgrind knows no pidfd_open */
    close(probe);
    pid_t innocent = sleeper(), stubborn = sleeper();
    int hold[2];
    assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
    podman_service_t *svc = calloc(1, sizeof(*svc));
    assert_non_null(svc);
    *svc = (podman_service_t){ .keeper = innocent, .parent = getppid(), .hold_fd = hold[1],
                               .keeper_fd = pidfd_open(stubborn, 0) };
    assert_true(svc->keeper_fd >= 0);
    assert_false(podman_service_reap_if_ended(svc));
    podman_service_stop(svc, 10, NULL);
    int status = 0;
    assert_int_equal(waitpid(innocent, &status, WNOHANG), 0);        /* untouched */
    assert_int_equal(waitpid(stubborn, &status, 0), stubborn);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    kill(innocent, SIGKILL);
    assert_int_equal(waitpid(innocent, &status, 0), innocent);
    close(hold[0]);
    podman_service_free(svc);
}

/* ---- the stale sweep ---------------------------------------------------- */

#define DEAD "aaaaaaaaaaaa"
#define LIVE "bbbbbbbbbbbb"
#define OWN  "cccccccccccc"

static void labelled(stub_libpod_t *stub, const char *endpoint, const char *name_json, const char *labels_key)
{
    char body[1024];
    snprintf(body, sizeof(body),
             "[{%s\"dead-1\"%s,\"%s\":{\"agent-sandbox.session\":\"" DEAD "\"}},"
             "{%s\"dead-2\"%s,\"%s\":{\"agent-sandbox.session\":\"" DEAD "\"}},"
             "{%s\"live\"%s,\"%s\":{\"agent-sandbox.session\":\"" LIVE "\"}},"
             "{%s\"own\"%s,\"%s\":{\"agent-sandbox.session\":\"" OWN "\"}}]",
             name_json, name_json[strlen(name_json) - 1] == '[' ? "]" : "", labels_key,
             name_json, name_json[strlen(name_json) - 1] == '[' ? "]" : "", labels_key,
             name_json, name_json[strlen(name_json) - 1] == '[' ? "]" : "", labels_key,
             name_json, name_json[strlen(name_json) - 1] == '[' ? "]" : "", labels_key);
    stub_libpod_rule(stub, "GET", endpoint, NULL, 200, body, 0);
}

static void sweep_removes_the_dead_only_and_goes_past_failures(void **state)
{
    (void)state;
    stub_libpod_t *stub = NULL;
    assert_int_equal(stub_libpod_start(&stub), 0);
    labelled(stub, "/containers/json?", "\"Names\":[", "Labels");
    labelled(stub, "/pods/json?", "\"Name\":", "Labels");
    labelled(stub, "/networks/json?", "\"name\":", "labels");
    /* the first dead container cannot be removed: the second still is */
    stub_libpod_rule(stub, "DELETE", "/containers/dead-1?", NULL, 500,
                     "{\"cause\":\"busy\",\"message\":\"container busy\",\"response\":500}", 0);
    /* the live session holds its lock; the dead one left a directory */
    char base[256], path[300];
    snprintf(base, sizeof(base), "%s/base", stub_libpod_dir(stub));
    assert_int_equal(mkdir(base, 0700), 0);
    snprintf(path, sizeof(path), "%s/" LIVE, base);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/" LIVE "/lock", base);
    int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    assert_true(lock >= 0 && flock(lock, LOCK_EX) == 0);
    snprintf(path, sizeof(path), "%s/" DEAD, base);
    assert_int_equal(mkdir(path, 0700), 0);

    podman_api_t *api = NULL;
    as_error_t *err = NULL;
    assert_int_equal(podman_api_new(stub_libpod_socket(stub), &api, &err), 0);
    stale_report_t rep;
    assert_true(stale_sweep(api, base, OWN, &rep, &err) < 0);
    assert_non_null(strstr(err->msg, "container busy"));
    as_error_free(&err);
    assert_int_equal(stub_libpod_count(stub, "DELETE", "/containers/dead-2?"), 1);
    assert_int_equal(stub_libpod_count(stub, "DELETE", "/pods/dead-1?"), 1);
    assert_int_equal(stub_libpod_count(stub, "DELETE", "/networks/dead-2?"), 1);
    assert_int_equal(stub_libpod_count(stub, "DELETE", "/live"), 0);
    assert_int_equal(stub_libpod_count(stub, "DELETE", "/own"), 0);
    assert_int_equal(rep.resources, 5);
    assert_int_equal(rep.sessions, 1);
    assert_int_equal(rep.dirs, 1);
    assert_int_equal(access(path, F_OK), -1);
    close(lock);
    podman_api_free(api);
    stub_libpod_stop(stub);
}

/* Regression: a refusal before the lock's path was made freed an
 * uninitialised pointer (a jump past a cleanup variable); the e2e test
 * crashed now and then, valgrind and ASan see it every time. */
static void session_dir_refuses_a_long_socket_path(void **state)
{
    (void)state;
    char runtime[256], *saved = getenv("XDG_RUNTIME_DIR") ? strdup(getenv("XDG_RUNTIME_DIR")) : NULL;
    snprintf(runtime, sizeof(runtime), "%s/%0120d", bin_dir, 0);
    assert_int_equal(mkdir(runtime, 0700), 0);
    setenv("XDG_RUNTIME_DIR", runtime, 1);
    session_dir_t *d = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_dir_create("0123456789ab", &d, &err), -ENAMETOOLONG);
    assert_non_null(strstr(err->msg, "over the 107 a unix socket allows"));
    as_error_free(&err);
    if (saved != NULL)
        setenv("XDG_RUNTIME_DIR", saved, 1);
    else
        unsetenv("XDG_RUNTIME_DIR");
    free(saved);
}

int main(int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    if (strcmp(slash != NULL ? slash + 1 : argv[0], "podman") == 0)
        return fake_podman(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(service_starts_answers_and_stops),
        cmocka_unit_test(service_outlives_its_starter_while_a_child_holds_it),
        cmocka_unit_test(service_stops_when_its_starter_is_killed),
        cmocka_unit_test(service_that_exits_is_quoted),
        cmocka_unit_test(service_start_is_interruptible),
        cmocka_unit_test(stubborn_service_is_killed),
        cmocka_unit_test(stop_kills_the_keeper_by_its_pidfd_not_its_pid),
        cmocka_unit_test(sweep_removes_the_dead_only_and_goes_past_failures),
        cmocka_unit_test(session_dir_refuses_a_long_socket_path),
    };
    return cmocka_run_group_tests_name("stale_service", tests, fake_on_path, fake_off_path);
}
