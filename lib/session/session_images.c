/* The images a session runs (session_images.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_images.h"
#include "labels.h"
#include "config/agent_profile.h"
#include "base/util.h"
#include "base/user_dirs.h"
#include "images/image_check.h"

/* The image is missing: what builds it, by where it comes from. */
static void say_missing(const session_inputs_t *ri, const session_say_t *to)
{
    char context[PATH_MAX];
    snprintf(context, sizeof(context), "%s/images/sandbox", AS_DATADIR);
    bool installed = access(context, R_OK) == 0;
    switch (ri->image_choice.kind) {
    case IMAGE_DERIVED:
        say(to, SAY_ERROR, "the image %s (%s) is missing; build it with:\n    %s", ri->image_choice.ref, ri->image_choice.reason,
               ri->image_choice.build);
        break;
    case IMAGE_TOOLCHAIN:
        say(to, SAY_ERROR, "the image %s (%s) is missing; build it with `%s` in %s", ri->image_choice.ref, ri->image_choice.reason,
               ri->image_choice.build, installed ? "a source tree of agent-sandbox " AS_VERSION : "the source tree");
        break;
    case IMAGE_ENV:
        say(to, SAY_ERROR, "the image %s (AGENT_SANDBOX_IMAGE) is missing", ri->image_choice.ref);
        break;
    case IMAGE_AGENT: {
        bool claude = strcmp(ri->agent->name, "claude") == 0;
        if (installed)
            say(to, SAY_ERROR, "the sandbox image %s is missing; build it once with:\n"
                   "    podman build --build-arg NPM_REGISTRY=$(npm config get registry) %s%s%s-t %s %s\n"
                   "(or set AGENT_SANDBOX_IMAGE to an image you have)", ri->image_choice.ref,
                   claude ? "" : "--build-arg AGENTS=", claude ? "" : ri->agent->name, claude ? "" : " ",
                   ri->image_choice.ref, context);
        else
            say(to, SAY_ERROR, "the sandbox image %s is missing; build it with `make images%s%s` in the source tree "
                   "(or set AGENT_SANDBOX_IMAGE to an image you have)", ri->image_choice.ref, claude ? "" : " AGENTS=",
                   claude ? "" : ri->agent->name);
        break;
    }
    }
}

session_fault_t image_check_said(backend_t *b, const char *image, const char *why, const session_say_t *to,
                                 bool *ret_missing)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *state = NULL, *cache = NULL, *name = NULL;
    *ret_missing = false;
    if (user_state_dir(&state, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_CONFIG;
    }
    if (asprintf(&cache, "%s/image-checks", state) < 0 || asprintf(&name, "agent-sandbox-%s-image-check", b->dir->id) < 0)
        return SESSION_FAULT_INTERNAL;
    char pid[24];
    snprintf(pid, sizeof(pid), "%ld", (long)getpid());
    const podman_label_t labels[] = { { LABEL_SESSION, b->dir->id }, { LABEL_PID, pid } };
    image_check_t c = { .image = image, .cache_dir = cache, .container_name = name, .labels = labels,
                        .n_labels = ARRAY_SIZE(labels) };
    image_verdict_t v = {0};
    say_progress(to, "checking the image");
    int r = image_check_run(b->api, &c, &v, &err);
    if (r == -ENOENT) {
        as_error_free(&err);
        *ret_missing = true;
        return SESSION_FAULT_NO_IMAGE;
    }
    if (r < 0) {
        say_error(to, &err);
        say(to, SAY_ERROR, "image %s: the check could not be completed: refused", image);
        return SESSION_FAULT_NO_IMAGE;
    }
    if (v.problem != NULL) {
        say(to, SAY_ERROR, "image %s: %s: refused (%s; docs/images.md)", image, v.problem, why);
        image_verdict_clear(&v);
        return SESSION_FAULT_NO_IMAGE;
    }
    return SESSION_OK;
}

/* In a release build, the image is of this release. */
static session_fault_t check_release(backend_t *b, const char *image, const char *kind, const char *env_name,
                                     const session_say_t *to)
{
#if AS_RELEASE_BUILD
    /* A release runs only images of its own version. */
    as_error_t *err = NULL;
    _cleanup_free_ char *version = NULL;
    if (podman_image_label(b->api, image, LABEL_VERSION, &version, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_SETUP;
    }
    if (version == NULL || strcmp(version, AS_VERSION) != 0) {
        say(to, SAY_ERROR, "the %s image %s is of version %s, but this is agent-sandbox %s; rebuild it "
               "for this version (see above) or set %s", kind, image, version ? version : "(unknown)",
               AS_VERSION, env_name);
        return SESSION_FAULT_NO_IMAGE;
    }
#else
    (void)b, (void)image, (void)kind, (void)env_name, (void)to;
#endif
    return SESSION_OK;
}

/* The router's image is there (and, in a release build, of this release):
 * else say exactly how to build it. Building is left to the user: it
 * needs a base image from a registry and takes minutes. (The session's
 * own image: image_gate.) */
static session_fault_t check_image(backend_t *b, const char *image, const char *kind, const char *env_name,
                                   const session_say_t *to)
{
    as_error_t *err = NULL;
    bool present = false;
    if (podman_image_exists(b->api, image, &present, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_SETUP;
    }
    if (!present) {
        char context[PATH_MAX];
        snprintf(context, sizeof(context), "%s/images/%s", AS_DATADIR, kind);
        if (access(context, R_OK) == 0)
            say(to, SAY_ERROR, "the %s image %s is missing; build it once with:\n"
                   "    podman build -t %s %s\n(or set %s to an image you have)",
                   kind, image, image, context, env_name);
        else
            say(to, SAY_ERROR, "the %s image %s is missing; build it with `make images` in the "
                   "source tree (or set %s to an image you have)", kind, image, env_name);
        return SESSION_FAULT_NO_IMAGE;
    }
    return check_release(b, image, kind, env_name, to);
}

session_fault_t session_images_gate(backend_t *b, const session_inputs_t *in, const session_say_t *to)
{
    bool missing = false;
    session_fault_t f = image_check_said(b, in->image, in->image_choice.reason, to, &missing);
    if (missing)
        say_missing(in, to);
    if (f == SESSION_OK)
        f = check_release(b, in->image, "sandbox", "AGENT_SANDBOX_IMAGE", to);
    if (f == SESSION_OK)
        f = check_image(b, in->router_image, "router", "AGENT_SANDBOX_ROUTER_IMAGE", to);
    return f;
}
