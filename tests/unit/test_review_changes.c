/* The upper layer walked against the host tree: upper directories made in
 * a temporary tree, with the kernel overlay's own markers (a whiteout is a
 * character device 0/0, which Linux lets anyone make since 5.8; an opaque
 * directory has user.overlay.opaque) and other flavours' markers, which
 * the agent's overlay took for plain files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
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

/* A whiteout as the kernel overlay makes it, at up/rel. */
static void make_whiteout(const struct real *up, const char *rel)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/%s", up->launch, rel);
    if (mknod(p, S_IFCHR | 0600, makedev(0, 0)) < 0)
        fail_msg("%s: a 0/0 character device (a whiteout): %s", p, strerror(errno));
}

static bool set_opaque(const struct real *up, const char *rel, const char *name)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/%s", up->launch, rel);
    return setxattr(p, name, "y", 1, 0) == 0;
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

static void whiteout_deletes_and_opaque_dir_replaces(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "gone", "x", false);
    make_whiteout(&up, "gone");
    make_whiteout(&up, "never-there");   /* nothing on the host: no change */
    real_make(r, "d/old1", "1", false);
    real_make(r, "d/sub/old2", "2", false);
    real_make(r, "d/kept", "k", false);
    real_make(&up, "d/kept", "k", false);
    if (!set_opaque(&up, "d", "user.overlay.opaque"))
        skip();   /* a file system without user xattrs */
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

/* Threat 49's flavours (issue 46, route 9): the OCI layer's `.wh.NAME` and
 * `.wh..wh..opq`, aufs' `.wh..wh.plnk`, fuse-overlayfs' opaque xattr are
 * plain data in the kernel overlay the agent worked on: what it saw. */
static void other_flavours_markers_are_plain(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "keep.txt", "k", false);
    real_make(&up, ".wh.keep.txt", "", false);
    real_make(r, "d/old", "1", false);
    real_make(&up, "d/.wh..wh..opq", "", false);
    real_make(&up, ".wh..wh.plnk", "", false);
    real_make(r, "f/old", "1", false);
    real_make(&up, "f/new", "2", false);
    bool xattrs = set_opaque(&up, "f", "user.fuseoverlayfs.opaque");
    review_changes_t *c = list(r);
    assert_null(find(c, "keep.txt"));
    assert_null(find(c, "d/old"));
    assert_int_equal(find(c, ".wh.keep.txt")->kind, REVIEW_ADDED);
    assert_int_equal(find(c, "d/.wh..wh..opq")->kind, REVIEW_ADDED);
    assert_int_equal(find(c, ".wh..wh.plnk")->kind, REVIEW_ADDED);
    assert_null(find(c, ".wh..wh.plnk")->unexamined);
    assert_int_equal(find(c, "f/new")->kind, REVIEW_ADDED);
    assert_null(find(c, "f/old"));
    for (size_t i = 0; i < c->n; i++)
        assert_int_not_equal(c->v[i].kind, REVIEW_DELETED);
    assert_int_equal(c->n, 4);
    review_changes_free(c);
    (void)xattrs;   /* without user xattrs, f is plain anyway */
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

static void special_files_listed(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/pipe", up.launch);
    assert_int_equal(mkfifo(p, 0644), 0);
    review_changes_t *c = list(r);
    assert_int_equal(find(c, "pipe")->type, REVIEW_FIFO);
    assert_null(find(c, "pipe")->unexamined);
    review_changes_free(c);
}

static void unreadable_directory_fails(void **state)
{
    struct real *r = *state;
    struct real up = upper_of(r);
    real_make(r, "closed/f", "1", false);
    real_make(&up, "closed/", NULL, false);
    if (!set_opaque(&up, "closed", "user.overlay.opaque"))
        skip();   /* a file system without user xattrs */
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
        cmocka_unit_test(under),
        cmocka_unit_test_setup_teardown(edit_add_mode_link_and_copy_up, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(same_size_edit_with_mode_change, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(whiteout_deletes_and_opaque_dir_replaces, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(other_flavours_markers_are_plain, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(opaque_by_xattr, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(type_changes, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(special_files_listed, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(unreadable_directory_fails, real_setup, real_teardown),
        cmocka_unit_test_setup_teardown(unreadable_upper_directory_listed, real_setup, real_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
