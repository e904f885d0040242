/* The session's image, before anything of the session is made: there
 * (else how to build it), and passing the image check (lib/session/
 * image_check.h), whatever its origin. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cli.h"
#include "run.h"
#include "base/util.h"
#include "base/user_dirs.h"
#include "images/image_check.h"
#include "session/labels.h"

/* The image is missing: what builds it, by where it comes from. */
static void report_missing(const run_inputs_t *ri)
{
    char context[PATH_MAX];
    snprintf(context, sizeof(context), "%s/images/sandbox", AS_DATADIR);
    bool installed = access(context, R_OK) == 0;
    switch (ri->image.kind) {
    case IMAGE_DERIVED:
        report("error: the image %s (%s) is missing; build it with:\n    %s", ri->image.ref, ri->image.reason,
               ri->image.build);
        break;
    case IMAGE_TOOLCHAIN:
        report("error: the image %s (%s) is missing; build it with `%s` in %s", ri->image.ref, ri->image.reason,
               ri->image.build, installed ? "a source tree of agent-sandbox " AS_VERSION : "the source tree");
        break;
    case IMAGE_ENV:
        report("error: the image %s (AGENT_SANDBOX_IMAGE) is missing", ri->image.ref);
        break;
    case IMAGE_AGENT: {
        bool claude = strcmp(ri->agent->name, "claude") == 0;
        if (installed)
            report("error: the sandbox image %s is missing; build it once with:\n"
                   "    podman build --build-arg NPM_REGISTRY=$(npm config get registry) %s%s%s-t %s %s\n"
                   "(or set AGENT_SANDBOX_IMAGE to an image you have)", ri->image.ref,
                   claude ? "" : "--build-arg AGENTS=", claude ? "" : ri->agent->name, claude ? "" : " ",
                   ri->image.ref, context);
        else
            report("error: the sandbox image %s is missing; build it with `make images%s%s` in the source tree "
                   "(or set AGENT_SANDBOX_IMAGE to an image you have)", ri->image.ref, claude ? "" : " AGENTS=",
                   claude ? "" : ri->agent->name);
        break;
    }
    }
}

int image_check_report(cli_backend_t *b, const char *image, const char *why, bool *ret_missing)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *state = NULL, *cache = NULL, *name = NULL;
    *ret_missing = false;
    if (user_state_dir(&state, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    if (asprintf(&cache, "%s/image-checks", state) < 0 || asprintf(&name, "agent-sandbox-%s-image-check", b->dir->id) < 0)
        return EXIT_INTERNAL;
    char pid[24];
    snprintf(pid, sizeof(pid), "%ld", (long)getpid());
    const podman_label_t labels[] = { { LABEL_SESSION, b->dir->id }, { LABEL_PID, pid } };
    image_check_t c = { .image = image, .cache_dir = cache, .container_name = name, .labels = labels,
                        .n_labels = ARRAY_SIZE(labels) };
    image_verdict_t v = {0};
    progress_show("checking the image", NULL);
    int r = image_check_run(b->api, &c, &v, &err);
    progress_clear();
    if (r == -ENOENT) {
        as_error_free(&err);
        *ret_missing = true;
        return EXIT_NO_IMAGE;
    }
    if (r < 0) {
        report_error(&err);
        report("error: image %s: the check could not be completed: refused", image);
        return EXIT_NO_IMAGE;
    }
    if (v.problem != NULL) {
        report("error: image %s: %s: refused (%s; docs/images.md)", image, v.problem, why);
        image_verdict_clear(&v);
        return EXIT_NO_IMAGE;
    }
    return 0;
}

int image_gate(cli_backend_t *b, const run_inputs_t *ri)
{
    bool missing = false;
    int rc = image_check_report(b, ri->image.ref, ri->image.reason, &missing);
    if (missing)
        report_missing(ri);
    return rc;
}
