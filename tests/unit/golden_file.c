#include "golden_file.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static char *golden_path(const char *name)
{
    const char *dir = getenv("GOLDEN_DIR");
    char *path = NULL;
    if (dir != NULL) {
        assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
    } else {
        /* __FILE__ is tests/unit/golden_file.c relative to the top
         * directory, where `make unit` runs the tests. */
        const char *slash = strrchr(__FILE__, '/');
        int n = slash != NULL ? (int)(slash - __FILE__) : 1;
        assert_true(asprintf(&path, "%.*s/golden/%s", n, slash != NULL ? __FILE__ : ".", name) > 0);
    }
    return path;
}

/* The whole file, or NULL when it cannot be opened. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&buf, &cap, '\0', f);
    fclose(f);
    if (n < 0) {
        free(buf);
        return strdup("");
    }
    return buf;
}

static void show_first_difference(const char *path, const char *want, const char *text)
{
    unsigned line = 1;
    size_t i = 0, start = 0;
    while (want[i] != '\0' && want[i] == text[i]) {
        if (want[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    const char *a = want + start, *b = text + start;
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    print_error("%s differs at line %u:\n  golden: %.*s\n  actual: %.*s\n", path, line,
                ea != NULL ? (int)(ea - a) : (int)strlen(a), a,
                eb != NULL ? (int)(eb - b) : (int)strlen(b), b);
}

void assert_golden_file(const char *name, const char *text)
{
    char *path = golden_path(name);
    const char *update = getenv("UPDATE_GOLDEN");
    if (update != NULL && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
        print_message("updated %s\n", path);
    }
    char *want = slurp(path);
    if (want == NULL) {
        free(path);
        fail_msg("golden file %s missing; run with UPDATE_GOLDEN=1", name);
    }
    if (strcmp(want, text) != 0) {
        show_first_difference(path, want, text);
        free(want);
        free(path);
        fail_msg("golden mismatch (UPDATE_GOLDEN=1 rewrites golden files)");
    }
    free(want);
    free(path);
}
