/* The user's allowed-paths file: read by the config-file policy, and parsed
 * into the roots under which a launch is allowed (docs/launch-policy.md). */
#include "launch_policy_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config_lines.h"
#include "base/file_read.h"
#include "base/util.h"

/* A longer file is refused as unreadable: no list of roots needs that much. */
#define ALLOWED_PATHS_MAX (1024 * 1024)

/* ---- reading ----------------------------------------------------------- */

int launch_policy_file_read(const char *path, launch_policy_file_t **ret_file, as_error_t **err)
{
    if (path == NULL)
        return as_error_make(err, EINVAL, "no allowed-paths file name");

    _cleanup_free_ char *buf = NULL;
    size_t len = 0;
    as_error_t *read_err = NULL;
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, ALLOWED_PATHS_MAX, &buf, &len, &read_err);
    if (r == -ENOMEM) {
        as_error_free(&read_err);
        return as_error_make(err, ENOMEM, "out of memory reading %s", path);
    }
    launch_policy_file_state_t state = r == 0 ? LAUNCH_POLICY_FILE_PRESENT
                                     : r == -ENOENT ? LAUNCH_POLICY_FILE_ABSENT
                                     : LAUNCH_POLICY_FILE_UNREADABLE;
    const char *reason = state == LAUNCH_POLICY_FILE_UNREADABLE ? read_err->msg : "";
    size_t reason_len = strlen(reason);

    /* One allocation: the struct, the text, then why it is unreadable. */
    launch_policy_file_t *f = calloc(1, sizeof(*f) + len + 1 + reason_len + 1);
    if (f == NULL) {
        as_error_free(&read_err);
        return as_error_make(err, ENOMEM, "out of memory reading %s", path);
    }
    char *text = (char *)(f + 1);
    if (len > 0)
        memcpy(text, buf, len);
    char *why = text + len + 1;
    memcpy(why, reason, reason_len);
    f->state = state;
    f->read_errno = state == LAUNCH_POLICY_FILE_UNREADABLE ? -r : 0;
    f->reason = state == LAUNCH_POLICY_FILE_UNREADABLE ? why : NULL;
    f->text = state == LAUNCH_POLICY_FILE_PRESENT ? text : NULL;
    f->len = len;
    as_error_free(&read_err);
    *ret_file = f;
    return 0;
}

void launch_policy_file_free(launch_policy_file_t **file)
{
    if (file == NULL || *file == NULL)
        return;
    free(*file);
    *file = NULL;
}

/* ---- parsing ----------------------------------------------------------- */

/* Gives a root line's path, "~/" expanded: 0 and *ret, or 1 and a refusal
 * stored when the line is no absolute path nor one under ~/. */
static int root_path(struct ctx *c, const config_line_t *l, char **ret, as_error_t **err)
{
    const char *p = l->text;
    size_t n = l->len;
    const char *problem = NULL;
    size_t k = 2;
    if (p[0] == '/') {
        *ret = strndup(p, n);
    } else if (p[0] == '~' && n >= 2 && p[1] == '/') {
        while (k < n && p[k] == '/')
            k++;
        if (k == n)
            problem = "nothing after ~/";
        else if (asprintf(ret, "%s/%.*s", c->home_lex, (int)(n - k), p + k) < 0)
            *ret = NULL;
    } else if (p[0] == '~') {
        problem = n == 1 ? "a bare ~ is not allowed (write ~/ and a directory)"
                         : "the ~user/ form is not supported (write the path in full)";
    } else {
        problem = "a relative path";
    }
    if (problem != NULL) {
        int r = lp_refuse_bad_line(c, l->number, problem, p, n, err);
        return r < 0 ? r : 1;
    }
    return *ret == NULL ? lp_oom(err) : 0;
}

/* Keeps a root resolved. One that does not resolve is skipped with a warning:
 * skipping never widens anything, since the other roots still apply. */
static int add_root(struct ctx *c, unsigned line, const char *path, as_error_t **err)
{
    _cleanup_free_ char *resolved = NULL;
    as_error_t *rerr = NULL;
    int r = lp_resolve_strict(c, path, &resolved, &rerr);
    if (r == -ENOMEM) {
        as_error_free(&rerr);
        return lp_oom(err);
    }
    if (r < 0) {
        int code = as_error_rc(rerr);
        as_error_free(&rerr);
        return lp_warn_root(c, line, path, -code, err);
    }
    struct root *nr = realloc(c->roots, (c->n_roots + 1) * sizeof(*nr));
    if (nr == NULL)
        return lp_oom(err);
    c->roots = nr;
    c->roots[c->n_roots++] = (struct root){ steal_pointer(&resolved), line };
    return 0;
}

int lp_parse_roots(struct ctx *c, const char *text, size_t len, as_error_t **err)
{
    config_lines_t it;
    config_line_t l;
    config_lines_init(&it, c->file, text, len);
    while (config_lines_next(&it, &l)) {
        if (l.problem != NULL) {
            int r = lp_refuse_bad_line(c, l.number, l.problem, l.text, l.len, err);
            return r < 0 ? r : 1;
        }
        _cleanup_free_ char *path = NULL;
        int r = root_path(c, &l, &path, err);
        if (r == 0)
            r = add_root(c, l.number, path, err);
        if (r != 0)
            return r;
    }
    return 0;
}
