/* Changes written into a real tree and taken back: the journal restores
 * exactly (types, modes, links, bytes), conflicts are left alone, a link
 * that leads out only once its neighbours land is taken back, and a name
 * swapped for a link while apply writes it is never followed (mkdirat is
 * wrapped here, by the linker, to swap one at the worst moment). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "real_tree.h"
#include "review/review_apply.h"

static struct real upper_of(const struct real *r)
{
    struct real up = *r;
    snprintf(up.launch, sizeof(up.launch), "%s/upper", r->base);
    mkdir(up.launch, 0755);
    return up;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The tree as text: each path's type, mode, link target and bytes. */
static FILE *listing;
static size_t listing_skip;
static int list_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)flag;
    (void)ftw;
    char target[256] = "", bytes[256] = "";
    if (S_ISLNK(st->st_mode))
        target[readlink(path, target, sizeof(target) - 1)] = '\0';
    FILE *f = S_ISREG(st->st_mode) ? fopen(path, "r") : NULL;
    if (f != NULL) {
        bytes[fread(bytes, 1, sizeof(bytes) - 1, f)] = '\0';
        fclose(f);
    }
    fprintf(listing, "%s %o %s %s\n", path + listing_skip, (unsigned)st->st_mode, target, bytes);
    return 0;
}

static char *tree_text(const struct real *r)
{
    char *text = NULL;
    size_t len = 0;
    listing = open_memstream(&text, &len);
    listing_skip = strlen(r->launch);
    nftw(r->launch, list_entry, 16, FTW_PHYS);
    fclose(listing);
    return text;
}

typedef struct run {
    review_changes_t *c;
    review_verdicts_t *v;
    review_result_t res[32];
    char journal[PATH_MAX * 2];
} run_t;

static void apply_between(const struct real *r, int64_t started, run_t *run, void (*between)(const struct real *));

static void apply_all(const struct real *r, int64_t started, run_t *run)
{
    apply_between(r, started, run, NULL);
}

/* Lists, judges, calls `between` (the host changing meanwhile), applies. */
static void apply_between(const struct real *r, int64_t started, run_t *run, void (*between)(const struct real *))
{
    struct real up = upper_of(r);
    as_error_t *err = NULL;
    review_filter_t f = { .root = r->launch };
    memset(run, 0, sizeof(*run));
    snprintf(run->journal, sizeof(run->journal), "%s/journal", r->base);
    if (review_changes_list(up.launch, r->launch, &run->c, &err) < 0 ||
        review_filter_judge(&f, run->c, &run->v, &err) < 0)
        fail_msg("%s", err->msg);
    assert_true(run->c->n <= 32);
    if (between != NULL)
        between(r);
    bool chosen[32];
    for (size_t i = 0; i < 32; i++)
        chosen[i] = true;
    review_apply_ctx_t ctx = { .root = r->launch, .upper = up.launch, .started_ns = started,
                               .journal_dir = run->journal };
    if (review_apply(&ctx, run->c, run->v, chosen, run->res, &err) < 0)
        fail_msg("review_apply: %s", err->msg);
}

static const review_result_t *result_of(const run_t *run, const char *path)
{
    for (size_t i = 0; i < run->c->n; i++)
        if (strcmp(run->c->v[i].path, path) == 0)
            return &run->res[i];
    fail_msg("no change %s", path);
    return NULL;
}

static void run_free(run_t *run)
{
    for (size_t i = 0; i < 32; i++)
        free(run->res[i].why);
    review_changes_free(run->c);
    review_verdicts_free(run->v);
}

static void undo_restores_types_modes_links_and_bytes(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "was-dir/inner/x", "x", false);
    real_make(r, "was-file", "file", false);
    real_make(r, "link -> was-file", NULL, false);
    real_make(r, "edit", "old", false);
    char before_path[PATH_MAX * 2];
    snprintf(before_path, sizeof(before_path), "%s/edit", r->launch);
    chmod(before_path, 0600);
    char *before = tree_text(r);
    int64_t started = now_ns();
    real_make(&up, "was-dir", "now a file", false);
    real_make(&up, "was-file/sub", "now a dir", false);
    real_make(&up, "link -> edit", NULL, false);
    real_make(&up, "edit", "new", false);
    real_make(&up, "added/deep/f", "added", false);
    run_t run;
    apply_all(r, started, &run);
    for (size_t i = 0; i < run.c->n; i++)
        assert_int_equal(run.res[i].outcome, REVIEW_APPLIED);
    char *after = tree_text(r);
    assert_non_null(strstr(after, "/was-dir 100644  now a file"));
    assert_non_null(strstr(after, "/link 120777 edit "));
    assert_non_null(strstr(after, "/edit 100644  new"));   /* the upper layer's mode */
    char *problems = NULL;
    as_error_t *err = NULL;
    if (review_undo(run.journal, r->launch, &problems, &err) < 0)
        fail_msg("review_undo: %s", err->msg);
    assert_null(problems);
    char *restored = tree_text(r);
    assert_string_equal(restored, before);
    free(before);
    free(after);
    free(restored);
    run_free(&run);
}

static void conflicts_and_changes_since_apply_are_left(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "theirs", "base", false);
    real_make(r, "mine", "base", false);
    int64_t started = now_ns();
    real_make(&up, "theirs", "agent", false);
    real_make(&up, "mine", "agent", false);
    real_make(r, "theirs", "user", false);
    run_t run;
    apply_all(r, started, &run);
    assert_int_equal(result_of(&run, "theirs")->outcome, REVIEW_CONFLICT);
    assert_string_equal(result_of(&run, "theirs")->why, "changed on the host since the review started");
    assert_int_equal(result_of(&run, "mine")->outcome, REVIEW_APPLIED);
    real_make(r, "mine", "edited after the apply", false);
    char *problems = NULL;
    as_error_t *err = NULL;
    if (review_undo(run.journal, r->launch, &problems, &err) < 0)
        fail_msg("review_undo: %s", err->msg);
    assert_string_equal(problems, "mine: changed since the apply; left as it is\n");
    char *text = tree_text(r);
    assert_non_null(strstr(text, "/mine 100644  edited after the apply"));
    assert_non_null(strstr(text, "/theirs 100644  user"));
    free(text);
    free(problems);
    run_free(&run);
}

static void link_out_through_a_new_link_is_taken_back(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    char spec[PATH_MAX * 2];
    snprintf(spec, sizeof(spec), "sub/out -> %s", r->home);   /* there before: not apply's */
    real_make(r, spec, NULL, false);
    int64_t started = now_ns();
    real_make(&up, "y -> sub", NULL, false);
    real_make(&up, "x -> y/out/f", NULL, false);   /* y is missing on the host: judged inside */
    run_t run;
    apply_all(r, started, &run);
    assert_int_equal(result_of(&run, "y")->outcome, REVIEW_APPLIED);
    const review_result_t *x = result_of(&run, "x");
    assert_int_equal(x->outcome, REVIEW_FAILED);
    assert_non_null(strstr(x->why, "a link that leads out of the tree once applied"));
    assert_false(real_exists(r, "x"));
    assert_true(real_exists(r, "y"));
    char *problems = NULL;
    as_error_t *err = NULL;
    if (review_undo(run.journal, r->launch, &problems, &err) < 0)
        fail_msg("review_undo: %s", err->msg);
    assert_null(problems);
    assert_false(real_exists(r, "y"));
    run_free(&run);
}

static void swap_in_a_link(const struct real *r)
{
    char spec[PATH_MAX * 2];
    snprintf(spec, sizeof(spec), "d -> %s", r->home);
    real_make(r, spec, NULL, false);
}

static void no_write_through_a_host_link(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    int64_t started = now_ns();
    real_make(&up, "d/f", "x", false);          /* the review made a directory d */
    run_t run;
    apply_between(r, started, &run, swap_in_a_link);   /* a link d appears before the write */
    assert_int_equal(result_of(&run, "d")->outcome, REVIEW_CONFLICT);
    const review_result_t *f = result_of(&run, "d/f");
    assert_int_equal(f->outcome, REVIEW_FAILED);
    assert_non_null(strstr(f->why, "its directory cannot be opened without following a link"));
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/f", r->home);
    assert_int_equal(access(path, F_OK), -1);
    run_free(&run);
}

/* The name whose directory apply makes is swapped for a link to this
 * right after it is made (NULL: none). */
static const char *swap_name, *swap_target;

int __real_mkdirat(int dfd, const char *name, mode_t mode);

int __wrap_mkdirat(int dfd, const char *name, mode_t mode)
{
    int r = __real_mkdirat(dfd, name, mode);
    if (r == 0 && swap_name != NULL && strcmp(name, swap_name) == 0) {
        unlinkat(dfd, name, AT_REMOVEDIR);
        if (symlinkat(swap_target, dfd, name) < 0)
            fail_msg("swapping in a link: %m");
    }
    return r;
}

/* A directory the review made, swapped for a link to a host directory
 * between its mkdir and its chmod: the link is not followed, so the
 * host directory keeps its mode. */
static void no_mode_set_through_a_swapped_link(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    int64_t started = now_ns();
    real_make(&up, "made/", NULL, false);
    char made[PATH_MAX * 2];
    snprintf(made, sizeof(made), "%s/made", up.launch);
    assert_int_equal(chmod(made, 0751), 0);
    assert_int_equal(chmod(r->home, 0700), 0);
    swap_name = "made";
    swap_target = r->home;
    run_t run;
    apply_all(r, started, &run);
    swap_name = NULL;
    struct stat st;
    assert_int_equal(stat(r->home, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(result_of(&run, "made")->outcome, REVIEW_FAILED);
    run_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(undo_restores_types_modes_links_and_bytes, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(conflicts_and_changes_since_apply_are_left, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(link_out_through_a_new_link_is_taken_back, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(no_write_through_a_host_link, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(no_mode_set_through_a_swapped_link, real_setup, real_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
