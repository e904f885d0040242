#include "real_tree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* A test may leave a directory closed (chmod 111): opened before its turn
 * (nftw visits a directory before it reads it). */
static int open_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag == FTW_D || flag == FTW_DNR)
        chmod(path, (st->st_mode & 07777) | 0700);
    return 0;
}

int real_setup(void **state)
{
    struct real *r = calloc(1, sizeof(*r));
    char exe[PATH_MAX], tmpl[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (r == NULL || n <= 0) {
        free(r);
        return -1;
    }
    exe[n] = '\0';
    snprintf(tmpl, sizeof(tmpl), "%s/ws-test-XXXXXX", dirname(exe));
    if (mkdtemp(tmpl) == NULL || realpath(tmpl, r->base) == NULL) {
        free(r);
        return -1;
    }
    snprintf(r->home, sizeof(r->home), "%s/home", r->base);
    snprintf(r->launch, sizeof(r->launch), "%s/proj", r->base);
    if (mkdir(r->home, 0755) < 0 || mkdir(r->launch, 0755) < 0) {
        free(r);
        return -1;
    }
    *state = r;
    return 0;
}

int real_teardown(void **state)
{
    struct real *r = *state;
    if (r != NULL) {
        nftw(r->base, open_entry, 16, FTW_PHYS);
        nftw(r->base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    free(r);
    return 0;
}

void real_make(const struct real *r, const char *spec, const char *content, bool append)
{
    char path[PATH_MAX * 2];
    const char *arrow = strstr(spec, " -> ");
    size_t n = arrow ? (size_t)(arrow - spec) : strlen(spec);
    snprintf(path, sizeof(path), "%s/%.*s", r->launch, (int)n, spec);
    for (char *s = path + strlen(r->launch) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    size_t l = strlen(path);
    if (arrow != NULL) {
        unlink(path);
        assert_int_equal(symlink(arrow + 4, path), 0);
    } else if (path[l - 1] == '/') {
        path[l - 1] = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            fail_msg("mkdir %s: %s", path, strerror(errno));
    } else {
        FILE *f = fopen(path, append ? "a" : "w");
        assert_non_null(f);
        fputs(content ? content : "", f);
        fclose(f);
    }
}

bool real_exists(const struct real *r, const char *rel)
{
    char path[PATH_MAX * 2];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", r->launch, rel);
    return lstat(path, &st) == 0;
}

void real_assert_contains(const char *text, const char *needle)
{
    if (text == NULL || strstr(text, needle) == NULL)
        fail_msg("expected \"%s\" in:\n%s", needle, text ? text : "(null)");
}

void real_assert_lacks(const char *text, const char *needle)
{
    if (text != NULL && strstr(text, needle) != NULL)
        fail_msg("did not expect \"%s\" in:\n%s", needle, text);
}
