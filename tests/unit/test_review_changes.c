/* The upper layer walked against the host tree: fake upper directories in
 * a temporary tree (a 0/0 whiteout device cannot be made without
 * privilege: its test is a pure function of the stat result). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "real_tree.h"
#include "review/review_changes.h"

/* The upper directory beside the host tree (r->launch), as a struct real
 * whose launch is it, for real_make. */
static struct real upper_of(const struct real *r)
{
    struct real up = *r;
    snprintf(up.launch, sizeof(up.launch), "%s/upper", r->base);
    mkdir(up.launch, 0755);
    return up;
}

static review_changes_t *list(const struct real *r)
{
    struct real up = upper_of(r);
    review_changes_t *c = NULL;
    as_error_t *err = NULL;
    if (review_changes_list(up.launch, r->launch, &c, &err) < 0)
        fail_msg("review_changes_list: %s", err->msg);
    return c;
}

static const review_change_t *find(const review_changes_t *c, const char *path)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].path, path) == 0)
            return &c->v[i];
    return NULL;
}

static void whiteout_is_a_char_device_0_0(void **state)
{
    (void)state;
    struct stat st = { .st_mode = S_IFCHR | 0644, .st_rdev = makedev(0, 0) };
    assert_true(review_stat_is_whiteout(&st));
    st.st_rdev = makedev(1, 3);   /* /dev/null */
    assert_false(review_stat_is_whiteout(&st));
    st.st_mode = S_IFBLK;
    st.st_rdev = makedev(0, 0);
    assert_false(review_stat_is_whiteout(&st));
    st.st_mode = S_IFREG;
    assert_false(review_stat_is_whiteout(&st));
}

static void whiteout_names(void **state)
{
    (void)state;
    assert_string_equal(review_whiteout_name(".wh.gone"), "gone");
    assert_string_equal(review_whiteout_name(".wh..wh..opq"), "");
    const char *aufs = ".wh..wh.plnk";
    assert_ptr_equal(review_whiteout_name(aufs), aufs);
    assert_null(review_whiteout_name(".whx"));
    assert_null(review_whiteout_name("a.wh.b"));
}

static void edit_add_mode_link_and_copy_up(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "edit.txt", "old\n", false);
    real_make(&up, "edit.txt", "new\n", false);
    real_make(r, "same.txt", "same\n", false);
    real_make(&up, "same.txt", "same\n", false);   /* copied up, unchanged */
    real_make(r, "run.sh", "echo\n", false);
    real_make(&up, "run.sh", "echo\n", false);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/run.sh", up.launch);
    assert_int_equal(chmod(p, 0755), 0);
    real_make(r, "l -> edit.txt", NULL, false);
    real_make(&up, "l -> run.sh", NULL, false);
    real_make(&up, "new/dir/file", "x", false);
    review_changes_t *c = list(r);
    assert_null(find(c, "same.txt"));
    const review_change_t *e = find(c, "edit.txt");
    assert_non_null(e);
    assert_int_equal(e->kind, REVIEW_MODIFIED);
    assert_true(e->content_changed);
    assert_false(e->mode_changed);
    e = find(c, "run.sh");
    assert_non_null(e);
    assert_true(e->mode_changed);
    assert_false(e->content_changed);
    assert_int_equal(e->mode, 0755);
    assert_int_equal(e->host_mode, 0644);
    e = find(c, "l");
    assert_non_null(e);
    assert_int_equal(e->type, REVIEW_SYMLINK);
    assert_string_equal(e->target, "run.sh");
    assert_string_equal(e->host_target, "edit.txt");
    e = find(c, "new");
    assert_non_null(e);
    assert_int_equal(e->kind, REVIEW_ADDED);
    assert_int_equal(e->type, REVIEW_DIR);
    assert_int_equal(find(c, "new/dir") - c->v, e - c->v + 1);   /* parents first */
    assert_non_null(find(c, "new/dir/file"));
    assert_int_equal(c->n, 6);
    review_changes_free(c);
}

static void same_size_edit_with_mode_change(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "f", "aaaa", false);
    real_make(&up, "f", "bbbb", false);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/f", up.launch);
    assert_int_equal(chmod(p, 04755), 0);
    review_changes_t *c = list(r);
    assert_int_equal(c->n, 1);
    assert_true(c->v[0].content_changed);
    assert_true(c->v[0].mode_changed);
    assert_int_equal(c->v[0].mode, 04755);
    review_changes_free(c);
}

static void wh_file_deletes_and_opaque_dir_replaces(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "gone", "x", false);
    real_make(&up, ".wh.gone", "", false);
    real_make(&up, ".wh.never-there", "", false);   /* nothing on the host: no change */
    real_make(r, "d/old1", "1", false);
    real_make(r, "d/sub/old2", "2", false);
    real_make(r, "d/kept", "k", false);
    real_make(&up, "d/.wh..wh..opq", "", false);
    real_make(&up, "d/kept", "k", false);
    review_changes_t *c = list(r);
    const review_change_t *e = find(c, "gone");
    assert_non_null(e);
    assert_int_equal(e->kind, REVIEW_DELETED);
    assert_int_equal(e->host_type, REVIEW_FILE);
    assert_null(find(c, "never-there"));
    assert_null(find(c, "d"));           /* the directory itself stays */
    assert_null(find(c, "d/kept"));      /* same content */
    assert_int_equal(find(c, "d/old1")->kind, REVIEW_DELETED);
    assert_int_equal(find(c, "d/sub")->kind, REVIEW_DELETED);
    assert_int_equal(find(c, "d/sub/old2")->kind, REVIEW_DELETED);
    assert_int_equal(c->n, 4);
    review_changes_free(c);
}

static void opaque_by_xattr(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "d/old", "1", false);
    real_make(&up, "d/", NULL, false);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/d", up.launch);
    if (setxattr(p, "user.overlay.opaque", "y", 1, 0) < 0)
        skip();   /* a file system without user xattrs */
    review_changes_t *c = list(r);
    assert_int_equal(c->n, 1);
    assert_string_equal(c->v[0].path, "d/old");
    assert_int_equal(c->v[0].kind, REVIEW_DELETED);
    review_changes_free(c);
}

static void type_changes(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "was-dir/inner", "i", false);
    real_make(&up, "was-dir", "now a file", false);
    real_make(r, "was-link -> /etc", NULL, false);
    real_make(&up, "was-link/x", "x", false);
    review_changes_t *c = list(r);
    const review_change_t *e = find(c, "was-dir");
    assert_int_equal(e->kind, REVIEW_MODIFIED);
    assert_int_equal(e->type, REVIEW_FILE);
    assert_int_equal(e->host_type, REVIEW_DIR);
    assert_true(e->content_changed);
    assert_int_equal(find(c, "was-dir/inner")->kind, REVIEW_DELETED);
    e = find(c, "was-link");
    assert_int_equal(e->type, REVIEW_DIR);
    assert_int_equal(e->host_type, REVIEW_SYMLINK);
    assert_string_equal(e->host_target, "/etc");
    /* never looked up through the host's link */
    assert_int_equal(find(c, "was-link/x")->kind, REVIEW_ADDED);
    assert_int_equal(c->n, 4);
    review_changes_free(c);
}

static void special_files_and_markers_listed(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/pipe", up.launch);
    assert_int_equal(mkfifo(p, 0644), 0);
    real_make(&up, ".wh..wh.plnk", "", false);
    review_changes_t *c = list(r);
    assert_int_equal(find(c, "pipe")->type, REVIEW_FIFO);
    assert_non_null(find(c, ".wh..wh.plnk")->unexamined);
    assert_null(find(c, "pipe")->unexamined);
    review_changes_free(c);
}

static void unreadable_directory_fails(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "closed/f", "1", false);
    real_make(&up, "closed/.wh..wh..opq", "", false);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/closed", r->launch);
    chmod(p, 0111);
    if (access(p, R_OK) == 0)
        skip();   /* root reads it anyway */
    review_changes_t *c = NULL;
    as_error_t *err = NULL;
    assert_true(review_changes_list(up.launch, r->launch, &c, &err) < 0);
    assert_non_null(strstr(err->msg, "proj/closed: cannot open the directory"));
    as_error_free(&err);
    chmod(p, 0755);
}

/* One the agent closed in the upper layer: listed as unexamined, and the
 * rest of the review still listed. */
static void unreadable_upper_directory_listed(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(&up, "closed/evil", "1", false);
    real_make(&up, "ok", "2", false);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/closed", up.launch);
    chmod(p, 0111);
    if (access(p, R_OK) == 0) {
        chmod(p, 0755);
        skip();   /* root reads it anyway */
    }
    review_changes_t *c = list(r);
    chmod(p, 0755);
    const review_change_t *d = find(c, "closed");
    assert_non_null(d);
    assert_string_equal(d->unexamined, "a directory that cannot be read or searched (what it holds is unknown)");
    assert_null(find(c, "closed/evil"));
    assert_non_null(find(c, "ok"));
    review_changes_free(c);
}

static void under(void **state)
{
    (void)state;
    review_change_t c = { .path = (char *)"a/b/c" };
    assert_true(review_change_under(&c, ""));
    assert_true(review_change_under(&c, "a"));
    assert_true(review_change_under(&c, "a/b/"));
    assert_true(review_change_under(&c, "a/b/c"));
    assert_false(review_change_under(&c, "a/b/cd"));
    assert_false(review_change_under(&c, "a/bb"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whiteout_is_a_char_device_0_0),
        cmocka_unit_test(whiteout_names),
        cmocka_unit_test(under),
        cmocka_unit_test_setup_teardown(edit_add_mode_link_and_copy_up, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(same_size_edit_with_mode_change, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(wh_file_deletes_and_opaque_dir_replaces, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(opaque_by_xattr, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(type_changes, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(special_files_and_markers_listed, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(unreadable_directory_fails, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(unreadable_upper_directory_listed, real_setup, real_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
