#include "image_check.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_write.h"
#include "base/tar_scan.h"
#include "base/util.h"
#include "base/user_dirs.h"

#define PASSED "passed\n"

/* Records a finding as the scan's problem unless one is recorded already:
 * the first is the answer. Returns 0, or -ENOMEM. */
static int record_first_finding(image_scan_t *s, as_error_t **err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int record_first_finding(image_scan_t *s, as_error_t **err, const char *fmt, ...)
{
    if (s->problem != NULL)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s->problem, fmt, ap);
    va_end(ap);
    if (n < 0) {
        s->problem = NULL;
        return as_error_make(err, ENOMEM, "out of memory");
    }
    return 0;
}

int image_scan_entry(image_scan_t *s, const char *path, unsigned mode, char type, bool capability,
                     as_error_t **err)
{
    /* "./usr/bin/x", "usr/bin/x" and "/usr/bin/x" all name /usr/bin/x */
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    while (path[0] == '/')
        path++;
    _cleanup_free_ char *shown = NULL;
    if (asprintf(&shown, "/%s", path) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    size_t n = strlen(shown);
    while (n > 1 && shown[n - 1] == '/')
        shown[--n] = '\0';
    /* a setgid directory only passes its group on to new files: not a privilege */
    if (type != '5' && (mode & 04000))
        return record_first_finding(s, err, "%s is setuid", shown);
    if (type != '5' && (mode & 02000))
        return record_first_finding(s, err, "%s is setgid", shown);
    if (capability)
        return record_first_finding(s, err, "%s has file capabilities", shown);
    if (type == '3' || type == '4')
        return record_first_finding(s, err, "%s is a %s device node", shown, type == '3' ? "character" : "block");
    if (strcmp(shown, "/etc/passwd") == 0) {
        if (type != '0' && type != '7')
            return record_first_finding(s, err, "%s is not a regular file (podman adds the user's entry to it)", shown);
        s->passwd_seen = true;
    }
    return 0;
}

int image_scan_end(image_scan_t *s, as_error_t **err)
{
    if (s->problem == NULL && !s->passwd_seen)
        return record_first_finding(s, err, "/etc/passwd is missing (podman adds the user's entry to it)");
    return 0;
}

typedef struct export_ctx {
    tar_scan_t *tar;
    image_scan_t scan;
} export_ctx_t;

static int on_entry(const tar_entry_t *e, void *ctx, as_error_t **err)
{
    export_ctx_t *x = ctx;
    int r = image_scan_entry(&x->scan, e->path, e->mode, e->type, e->capability, err);
    /* the first problem is the answer: the rest of the stream is not needed */
    if (r == 0 && x->scan.problem != NULL)
        r = as_error_make(err, ECANCELED, "the scan stopped at its first finding");
    return r;
}

static int on_bytes(const char *data, size_t len, void *ctx, as_error_t **err)
{
    export_ctx_t *x = ctx;
    return tar_scan_feed(x->tar, data, len, err);
}

/* The image's config: no USER, no ENTRYPOINT. */
static int config_problem(const podman_image_info_t *info, char **ret)
{
    *ret = NULL;
    if (info->user[0] != '\0' && asprintf(ret, "it sets USER %s (the agent runs as your own id)", info->user) < 0)
        return -ENOMEM;
    if (*ret == NULL && info->n_entrypoint > 0 &&
        (*ret = strdup("it sets an ENTRYPOINT (the session gives the command)")) == NULL)
        return -ENOMEM;
    return 0;
}

/* The file system, exported from a container that is created and removed
 * but never started. */
static int scan_files(podman_api_t *api, const image_check_t *c, image_verdict_t *ret, as_error_t **err)
{
    char *command[] = { "/nonexistent-never-started", NULL };
    podman_container_spec_t spec = { .name = c->container_name, .image = c->image, .command = command,
                                     .labels = c->labels, .n_labels = c->n_labels };
    _cleanup_free_ char *id = NULL;
    int r = podman_container_create(api, &spec, &id, err);
    if (r < 0)
        return r;
    export_ctx_t x = {0};
    r = tar_scan_new(on_entry, &x, &x.tar, err);
    if (r == 0)
        r = podman_container_export(api, id, on_bytes, &x, err);
    if (r == -ECANCELED && x.scan.problem != NULL) {
        as_error_free(err);
        r = 0;
    } else if (r == 0) {
        r = tar_scan_finish(x.tar, err);
        if (r == 0)
            r = image_scan_end(&x.scan, err);
    }
    ret->entries = x.tar != NULL ? tar_scan_entries(x.tar) : 0;
    tar_scan_free(x.tar);
    as_error_t *rm_err = NULL;
    int rr = podman_container_remove(api, id, &rm_err);
    if (r == 0 && rr < 0) {
        *err = rm_err;
        r = rr;
    } else {
        as_error_free(&rm_err);
    }
    if (r < 0) {
        free(x.scan.problem);
        return r;
    }
    ret->problem = x.scan.problem;
    return 0;
}

int image_check_run(podman_api_t *api, const image_check_t *c, image_verdict_t *ret, as_error_t **err)
{
    *ret = (image_verdict_t){0};
    podman_image_info_t info = {0};
    int r = podman_image_inspect(api, c->image, NULL, &info, err);
    if (r < 0)
        return r;
    /* the ID is "sha256:HEX" or HEX: the file's name is the hex */
    const char *hex = strchr(info.id, ':') ? strchr(info.id, ':') + 1 : info.id;
    _cleanup_free_ char *cached = NULL;
    if (strspn(hex, "0123456789abcdef") != strlen(hex) || strlen(hex) < 12 || asprintf(&cached, "%s/%s", c->cache_dir, hex) < 0) {
        r = as_error_make(err, EPROTO, "image %s: an unexpected ID `%s`", c->image, info.id);
        goto out;
    }
    if (access(cached, F_OK) == 0) {
        ret->cached = true;
        goto out;
    }
    if ((r = config_problem(&info, &ret->problem)) < 0) {
        r = as_error_make(err, ENOMEM, "out of memory");
        goto out;
    }
    if (ret->problem == NULL && (r = scan_files(api, c, ret, err)) < 0) {
        as_error_prefix(err, "checking image %s", c->image);
        goto out;
    }
    if (ret->problem == NULL && ((r = user_dir_create(c->cache_dir, err)) < 0 ||
                                 (r = file_write_atomic(c->cache_dir, hex, PASSED, 0600, err)) < 0))
        as_error_prefix(err, "remembering that image %s passed its check", c->image);
out:
    podman_image_info_clear(&info);
    if (r < 0)
        image_verdict_clear(ret);
    return r;
}

void image_verdict_clear(image_verdict_t *v)
{
    free(v->problem);
    v->problem = NULL;
}
