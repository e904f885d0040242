#include "allowlist_save.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_write.h"
#include "base/msg.h"
#include "base/util.h"

bool allowlist_allows(const allowlist_t *al, const allowlist_entry_t *e)
{
    const allowlist_entry_t *have = allowlist_find(al, e->name, e->wildcard);
    if (e->n_ports == 0)
        return have != NULL || allowlist_covering(al, e->name) != NULL;
    if (have == NULL)
        return false;
    for (size_t i = 0; i < e->n_ports; i++) {
        bool found = false;
        for (size_t j = 0; j < have->n_ports && !found; j++)
            found = have->ports[j].port == e->ports[i].port;
        if (!found)
            return false;
    }
    return true;
}

/* e's line(s) for a file that has `have`: of a name with ports, only the
 * ports it lacks; each line with the comment. */
static int put_missing(FILE *f, const allowlist_t *have, const allowlist_entry_t *e,
                       const char *comment, as_error_t **err)
{
    allowlist_port_t missing[e->n_ports + 1];
    allowlist_entry_t part = *e;
    const allowlist_entry_t *in = allowlist_find(have, e->name, false);
    part.ports = missing;
    part.n_ports = 0;
    for (size_t j = 0; j < e->n_ports; j++) {
        bool found = false;
        for (size_t k = 0; in != NULL && k < in->n_ports && !found; k++)
            found = in->ports[k].port == e->ports[j].port;
        if (!found)
            missing[part.n_ports++] = e->ports[j];
    }
    msg_t line;
    _cleanup_free_ char *text = NULL;
    int r = msg_open(&line, err);
    if (r < 0)
        return r;
    allowlist_put_entry(line.f, e->n_ports > 0 ? &part : e);
    if ((r = msg_close(&line, &text, err)) < 0)
        return r;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save))
        fprintf(f, comment != NULL ? "%s  # %s\n" : "%s\n", l, comment);
    return 0;
}

/* The old text and the lines of the entries it lacks. */
static int new_text(const char *shown, const char *old, size_t old_len, const allowlist_t *add,
                    const char *comment, char **ret, allowlist_save_result_t *res, as_error_t **err)
{
    _cleanup_(allowlist_freep) allowlist_t *have = NULL;
    int r = allowlist_parse(shown, old, old_len, &have, err);
    if (r < 0)
        return as_error_prefix(err, "the file has errors; nothing was added until they are fixed");
    msg_t m;
    if ((r = msg_open(&m, err)) < 0)
        return r;
    fwrite(old, 1, old_len, m.f);
    if (old_len > 0 && old[old_len - 1] != '\n')
        fputc('\n', m.f);
    *res = (allowlist_save_result_t){0};
    for (size_t i = 0; i < add->n_entries && r == 0; i++) {
        if (allowlist_allows(have, &add->entries[i])) {
            res->present++;
        } else if ((r = put_missing(m.f, have, &add->entries[i], comment, err)) == 0) {
            res->added++;
        }
    }
    if (r < 0) {
        msg_discard(&m);
        return r;
    }
    return msg_close(&m, ret, err);
}

/* text into a new file beside `real`, with `mode`, then renamed over it
 * (the one atomic writer, lib/base/file_write.h). */
static int replace_file(const char *real, const char *text, mode_t mode, as_error_t **err)
{
    const char *slash = strrchr(real, '/');
    _cleanup_free_ char *dir = slash != NULL ? strndup(real, (size_t)(slash - real)) : NULL;
    if (dir == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    return file_write_atomic(dir[0] != '\0' ? dir : "/", slash + 1, text, mode, err);
}

int allowlist_save(const char *path, const allowlist_t *add, const char *comment,
                   allowlist_save_result_t *ret, as_error_t **err)
{
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return as_error_errno(err, errno, "%s", path);
    _cleanup_free_ char *dir_copy = strdup(real);
    if (dir_copy == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    _cleanup_close_ int dir_fd = open(dirname(dir_copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0 || flock(dir_fd, LOCK_EX) < 0)
        return as_error_errno(err, errno, "locking the directory of %s", real);

    _cleanup_free_ char *old = NULL, *text = NULL;
    size_t old_len = 0;
    struct stat st;
    int r = allowlist_read_file(real, &old, &old_len, err);
    if (r < 0)
        return r;
    if (stat(real, &st) < 0)
        return as_error_errno(err, errno, "%s", real);
    allowlist_save_result_t res;
    if ((r = new_text(path, old, old_len, add, comment, &text, &res, err)) < 0)
        return r;
    if (res.added > 0) {
        /* what goes back must be a list: never a file the next session refuses */
        _cleanup_(allowlist_freep) allowlist_t *check = NULL;
        if ((r = allowlist_parse(path, text, strlen(text), &check, err)) < 0)
            return as_error_prefix(err, "internal error: the new file would not parse");
        if ((r = replace_file(real, text, st.st_mode & 07777, err)) < 0)
            return r;
    }
    *ret = res;
    return 0;
}
