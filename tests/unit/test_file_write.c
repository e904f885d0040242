/* The one atomic writer (lib/base/file_write.h): the exact mode whatever
 * the umask, and writers of the same file at once (two sessions checking
 * one image): every write succeeds, a reader only ever sees one writer's
 * whole text, and no temporary file is left behind; and durable, in the
 * order that survives a crash (fsync and rename are wrapped here, by the
 * linker, to record what is synced and when). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_write.h"

#define TEXT_LEN (64 * 1024)
#define WRITES 300

static char dir[] = "/tmp/test_file_write.XXXXXX";

typedef struct writer {
    char *text;
    int failures;
    char first_error[256];
} writer_t;

static atomic_int writers_running;

static void *write_many(void *arg)
{
    writer_t *w = arg;
    for (int i = 0; i < WRITES; i++) {
        as_error_t *err = NULL;
        if (file_write_atomic(dir, "state.json", w->text, 0644, &err) < 0) {
            if (w->failures++ == 0)
                snprintf(w->first_error, sizeof(w->first_error), "%s", err->msg);
            as_error_free(&err);
        }
    }
    atomic_fetch_sub(&writers_running, 1);
    return NULL;
}

static char *text_of(char c)
{
    char *t = malloc(TEXT_LEN + 1);
    assert_non_null(t);
    memset(t, c, TEXT_LEN);
    t[TEXT_LEN] = '\0';
    return t;
}

/* What the file holds now: -1 missing, 0 one writer's whole text, 1 not. */
static int read_state(char *buf)
{
    char path[64];
    snprintf(path, sizeof(path), "%s/state.json", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n, got = 0;
    while ((n = read(fd, buf + got, TEXT_LEN + 1 - (size_t)got)) > 0)
        got += n;
    close(fd);
    if (got != TEXT_LEN || (buf[0] != 'a' && buf[0] != 'b'))
        return 1;
    for (size_t i = 1; i < TEXT_LEN; i++)
        if (buf[i] != buf[0])
            return 1;
    return 0;
}

static void concurrent_writers_each_write_a_whole_file(void **state)
{
    (void)state;
    writer_t w[2] = { { .text = text_of('a') }, { .text = text_of('b') } };
    pthread_t th[2];
    char *buf = malloc(TEXT_LEN + 1);
    assert_non_null(buf);
    atomic_store(&writers_running, 2);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, write_many, &w[i]), 0);
    int torn = 0;
    while (atomic_load(&writers_running) > 0)
        torn += read_state(buf) == 1;
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    assert_string_equal(w[0].first_error, "");
    assert_string_equal(w[1].first_error, "");
    assert_int_equal(w[0].failures + w[1].failures, 0);
    assert_int_equal(torn, 0);
    assert_int_equal(read_state(buf), 0);

    DIR *d = opendir(dir);                  /* the file alone: no temporary left */
    assert_non_null(d);
    struct dirent *e;
    int others = 0;
    while ((e = readdir(d)) != NULL)
        others += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                  strcmp(e->d_name, "state.json") != 0;
    closedir(d);
    assert_int_equal(others, 0);
    free(buf);
    free(w[0].text);
    free(w[1].text);
}

/* The calls made while `recording`: 'f' a file synced, 'd' a directory
 * synced, 'r' a rename. */
static char calls[16];
static atomic_bool recording;

int __real_fsync(int fd);
int __real_rename(const char *from, const char *to);

static void record(char what)
{
    size_t n = strlen(calls);
    if (atomic_load(&recording) && n + 1 < sizeof(calls))
        calls[n] = what;
}

int __wrap_fsync(int fd)
{
    struct stat st;
    record(fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? 'd' : 'f');
    return __real_fsync(fd);
}

int __wrap_rename(const char *from, const char *to)
{
    record('r');
    return __real_rename(from, to);
}

/* The file's bytes on disk before the rename, and the rename on disk
 * after it: a crash leaves the old file or the whole new one, never an
 * empty one under the new name. */
static void a_write_is_durable_in_order(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    memset(calls, 0, sizeof(calls));
    atomic_store(&recording, true);
    int r = file_write_atomic(dir, "durable", "x\n", 0644, &err);
    atomic_store(&recording, false);
    assert_int_equal(r, 0);
    assert_string_equal(calls, "frd");
    char path[64];
    snprintf(path, sizeof(path), "%s/durable", dir);
    assert_int_equal(unlink(path), 0);
}

static void mode_is_exact_whatever_the_umask(void **state)
{
    (void)state;
    mode_t old = umask(077);
    as_error_t *err = NULL;
    assert_int_equal(file_write_atomic(dir, "moded", "x\n", 0644, &err), 0);
    umask(old);
    char path[64];
    struct stat st;
    snprintf(path, sizeof(path), "%s/moded", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(unlink(path), 0);
}

/* A directory that is not there: an error that names the file, nothing made. */
static void missing_directory_is_an_error(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    assert_int_equal(file_write_atomic(dir, "no/such", "x", 0644, &err), -ENOENT);
    assert_non_null(strstr(err->msg, "no/such"));
    as_error_free(&err);
}

static int make_dir(void **state)
{
    (void)state;
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int remove_dir(void **state)
{
    (void)state;
    as_error_t *err = NULL;
    int r = remove_tree(dir, &err);
    as_error_free(&err);
    return r;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrent_writers_each_write_a_whole_file),
        cmocka_unit_test(mode_is_exact_whatever_the_umask),
        cmocka_unit_test(a_write_is_durable_in_order),
        cmocka_unit_test(missing_directory_is_an_error),
    };
    return cmocka_run_group_tests_name("file_write", tests, make_dir, remove_dir);
}
