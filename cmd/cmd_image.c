/* `agent-sandbox image build NAME` and `image list`: the images the user
 * derives from a Containerfile in the config directory (docs/images.md,
 * "Images you extend"), built through the private service's libpod build
 * API, told as `make images` tells its steps, and checked as every
 * session's image is. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "session/session_images.h"
#include "session/session_load.h"
#include "base/file_read.h"
#include "base/util.h"
#include "images/build_context.h"
#include "base/user_dirs.h"
#include "images/user_image.h"

/* CONFIG/images, or NULL after reporting. */
static char *images_dir(void)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *config = NULL;
    char *dir = NULL;
    if (user_config_dir(&config, &err) < 0) {
        report_error(&err);
        return NULL;
    }
    return asprintf(&dir, "%s/%s", config, USER_IMAGE_DIR) < 0 ? NULL : dir;
}

/* The Containerfile's FROM, checked; 0 or an exit code, reported. */
static int read_from(const char *dir, char **ret_from)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *path = NULL, *text = NULL;
    size_t len = 0;
    if (asprintf(&path, "%s/%s", dir, USER_IMAGE_FILE) < 0)
        return EXIT_INTERNAL;
    if (config_file_read(AT_FDCWD, path, CONFIG_NOFOLLOW, 64 * 1024, &text, &len, &err) < 0) {
        config_error_name(&err, "cannot read ", path);
        report_error(&err);
        return EXIT_CONFIG;
    }
    if (user_image_from_check(path, text, len, ret_from, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    return 0;
}

typedef struct build_log {
    FILE *f;
} build_log_t;

static int log_line(const char *text, bool is_error, void *ctx, as_error_t **err)
{
    (void)err;
    build_log_t *l = ctx;
    fprintf(l->f, "%s%s", is_error ? "error: " : "", text);
    fflush(l->f);
    return 0;
}

/* The last 25 lines (of the last 4 KiB) of the log, indented, on stderr. */
static void show_end(const char *log)
{
    char buf[4097];
    FILE *f = fopen(log, "re");
    if (f == NULL)
        return;
    if (fseek(f, -4096, SEEK_END) < 0)
        rewind(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = buf + n;
    for (int lines = 0; p > buf && lines <= 25; p--)
        if (p[-1] == '\n' && p != buf + n && ++lines > 25)
            break;
    for (const char *line = p; *line != '\0';) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(stderr, "    %.*s\n", len, line);
        line += len + (nl != NULL);
    }
}

/* The build's whole output goes to STATE/image-builds/NAME.log, the time
 * it took beside it (NAME.seconds) for the next estimate; the terminal
 * gets scripts/image-step's lines. */
static int build(backend_t *b, const char *name, const char *ref, const char *from, const build_context_t *ctx)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *state = NULL, *logdir = NULL, *log = NULL, *secs = NULL;
    if (user_state_dir(&state, &err) < 0 || asprintf(&logdir, "%s/image-builds", state) < 0 ||
        user_dir_create(logdir, &err) < 0 || asprintf(&log, "%s/%s.log", logdir, name) < 0 ||
        asprintf(&secs, "%s/%s.seconds", logdir, name) < 0) {
        if (err != NULL)
            report_error(&err);
        return EXIT_CONFIG;
    }
    long estimate = 30;
    FILE *s = fopen(secs, "re");
    if (s != NULL) {
        if (fscanf(s, "%ld", &estimate) != 1)
            estimate = 30;
        fclose(s);
    }
    build_log_t l = { .f = fopen(log, "we") };
    if (l.f == NULL) {
        report("error: %s: %s", log, strerror(errno));
        return EXIT_CONFIG;
    }
    printf("images: %s (podman build) (about %ld s)...\n", ref, estimate);
    fflush(stdout);
    time_t start = time(NULL);
    const podman_label_t labels[] = {
        { LABEL_USER_IMAGE, name }, { LABEL_USER_IMAGE_CONTEXT, ctx->hash }, { LABEL_USER_IMAGE_FROM, from },
    };
    int r = podman_image_build(b->api, ctx->tar, ctx->len, ref, labels, ARRAY_SIZE(labels), log_line, &l, &err);
    long took = (long)(time(NULL) - start);
    if (r < 0)
        fprintf(l.f, "%s\n", err->msg);
    fclose(l.f);
    if (r < 0) {
        as_error_free(&err);
        report("images: %s failed after %ld s; its whole output is in %s, which ends:", ref, took, log);
        show_end(log);
        return EXIT_SETUP;
    }
    if ((s = fopen(secs, "we")) != NULL) {
        fprintf(s, "%ld\n", took);
        fclose(s);
    }
    printf("images: %s: done in %ld s\n", ref, took);
    fflush(stdout);
    return 0;
}

/* Built and checked, unless an image of this context and base exists. */
static int image_build(backend_t *b, const char *name)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *top = images_dir(), *dir = NULL, *from = NULL, *ref = NULL;
    if (top == NULL || asprintf(&dir, "%s/%s", top, name) < 0)
        return EXIT_INTERNAL;
    int rc = read_from(dir, &from);
    if (rc != 0)
        return rc;
    if (user_image_ref(name, AS_IMAGE_TAG, &ref, &err) < 0) {
        report_error(&err);
        return EXIT_USAGE;
    }
    podman_image_info_t base = {0}, have = {0};
    if (podman_image_inspect(b->api, from, NULL, &base, &err) < 0) {
        report("error: %s: FROM %s: %s", dir, from, err->msg);
        as_error_free(&err);
        return EXIT_NO_IMAGE;
    }
    build_context_t ctx = {0};
    int r = build_context_pack(dir, base.id, &ctx, &err);
    podman_image_info_clear(&base);
    if (r < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    r = podman_image_inspect(b->api, ref, LABEL_USER_IMAGE_CONTEXT, &have, &err);
    as_error_free(&err);
    bool current = r == 0 && have.label != NULL && strcmp(have.label, ctx.hash) == 0;
    podman_image_info_clear(&have);
    if (current)
        printf("images: %s: up to date (the same Containerfile, context and base)\n", ref);
    else
        rc = build(b, name, ref, from, &ctx);
    build_context_clear(&ctx);
    bool missing = false;
    if (rc == 0 && (rc = exit_code_of(image_check_said(b, ref, "built from the Containerfile", &cli_say, &missing))) != 0 &&
        !missing && podman_image_remove(b->api, ref, &err) < 0)
        report_error(&err);
    progress_clear();
    return rc;
}

static int derived_only(const struct dirent *d)
{
    return user_image_name_valid(d->d_name);
}

/* Each folder of CONFIG/images and the state of its image. */
static int image_list(backend_t *b)
{
    _cleanup_free_ char *top = images_dir();
    struct dirent **names = NULL;
    int n = top != NULL ? scandir(top, &names, derived_only, alphasort) : -1;
    if (n < 0 && errno != ENOENT) {
        report("error: %s: %s", top ? top : "images", strerror(errno));
        return EXIT_CONFIG;
    }
    for (int i = 0; i < n; i++) {
        _cleanup_free_ char *ref = NULL;
        as_error_t *err = NULL;
        podman_image_info_t have = {0};
        if (user_image_ref(names[i]->d_name, AS_IMAGE_TAG, &ref, &err) == 0) {
            int r = podman_image_inspect(b->api, ref, LABEL_USER_IMAGE, &have, &err);
            printf("%-20s %s  %s\n", names[i]->d_name, ref, r == 0 ? "built" : r == -ENOENT ? "not built" : "?");
            podman_image_info_clear(&have);
        }
        as_error_free(&err);
        free(names[i]);
    }
    free(names);
    if (n <= 0)
        printf("no images of your own: make %s/NAME/Containerfile (docs/images.md)\n", top ? top : "images");
    return 0;
}

int cmd_image(int argc, char **argv)
{
    static const char *const known[] = { "build", "list" };
    if (argc < 2)
        return cli_missing_argument("image", "the subcommand (build NAME or list)");
    bool list = strcmp(argv[1], "list") == 0;
    bool make = strcmp(argv[1], "build") == 0;
    if (!list && !make)
        return cli_bad_argument("image", argv[1], known, ARRAY_SIZE(known));
    if (make && argc < 3)
        return cli_missing_argument("image", "the image's name after build");
    if (argc > (make ? 3 : 2))
        return cli_bad_argument("image", argv[make ? 3 : 2], known, ARRAY_SIZE(known));
    if (make && !user_image_name_valid(argv[2])) {
        report("error: image build %s: not an image's name (lower-case letters, digits, - and _)", argv[2]);
        return EXIT_USAGE;
    }
    backend_t b = {0};
    int rc = backend_start_command(&b);
    if (rc != 0)
        return rc;
    rc = list ? image_list(&b) : image_build(&b, argv[2]);
    backend_stop(&b, &cli_say);
    return rc;
}
