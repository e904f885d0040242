/* The image choice of a session (image_choice.h). */
#include "image_choice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "base/strv.h"
#include "base/util.h"
#include "images/toolchains.h"
#include "images/user_image.h"

static int set_reason(image_choice_t *c, const char *why)
{
    return (c->reason = strdup(why)) == NULL ? -ENOMEM : 0;
}

static int choose_agent_image(const image_request_t *req, image_choice_t *c, const char *why)
{
    c->kind = IMAGE_AGENT;
    if (asprintf(&c->ref, "%s:%s", req->agent_image, req->tag) < 0) {
        c->ref = NULL;
        return -ENOMEM;
    }
    return set_reason(c, why);
}

/* The agent's image with the toolchains `names`; none at all (`toolchain
 * none`) is the agent's own image. */
static int choose_toolchains(const image_request_t *req, image_choice_t *c, char *const *names,
                             const char *why, as_error_t **err)
{
    _cleanup_(strv_freep) char **set = NULL;
    int r = toolchain_set(names, &set, err);
    if (r < 0)
        return r;
    if (set == NULL || set[0] == NULL) {
        _cleanup_free_ char *own = NULL;
        if (asprintf(&own, "%s: the agent's own image", why) < 0)
            return -ENOMEM;
        return choose_agent_image(req, c, own);
    }
    c->kind = IMAGE_TOOLCHAIN;
    if ((r = toolchain_image(req->agent, set, req->tag, &c->ref, err)) < 0 ||
        (r = toolchain_build_command(req->agent, set, &c->build, err)) < 0)
        return r;
    return set_reason(c, why);
}

static int choose_derived(const image_request_t *req, image_choice_t *c, const char *name, const char *why,
                          as_error_t **err)
{
    c->kind = IMAGE_DERIVED;
    int r = user_image_ref(name, req->tag, &c->ref, err);
    if (r < 0) {
        if (r == -EINVAL)
            c->refusal = IMAGE_REFUSED_NAME;
        as_error_prefix(err, "%s", why);
        return r;
    }
    if (asprintf(&c->build, "agent-sandbox image build %s", name) < 0) {
        c->build = NULL;
        return -ENOMEM;
    }
    return set_reason(c, why);
}

/* "--toolchain go --toolchain node", the options as the user gave them. */
static int joined_options(const char *option, char *const *names, char **ret, as_error_t **err)
{
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    for (size_t i = 0; names[i] != NULL; i++)
        fprintf(m.f, "%s%s %s", i ? " " : "", option, names[i]);
    return msg_close(&m, ret, err);
}

/* Of the settings' `image` and `toolchain` lines, the more specific one
 * wins (its `in DIR` is longer), and of two as specific the later. */
static bool settings_prefer_image(const user_settings_t *s)
{
    const user_setting_origin_t *img = user_settings_origin(s, "image"), *tc = user_settings_origin(s, "toolchain");
    if (img == NULL || tc == NULL)
        return img != NULL;
    return img->rank > tc->rank || (img->rank == tc->rank && img->line > tc->line);
}

/* The settings' choice, its reason naming the file and line. A toolchain
 * this build does not know is the settings' fault, not an internal one. */
static int choose_from_settings(const image_request_t *req, image_choice_t *c, as_error_t **err)
{
    const user_settings_t *s = req->settings;
    bool use_image = settings_prefer_image(s);
    const user_setting_origin_t *o = user_settings_origin(s, use_image ? "image" : "toolchain");
    _cleanup_free_ char *why = NULL;
    if (asprintf(&why, "%s:%u: %s", req->settings_path, o->line, o->key) < 0)
        return -ENOMEM;
    if (use_image)
        return choose_derived(req, c, s->image, why, err);
    for (size_t i = 0; s->toolchains[i] != NULL; i++) {
        if (!toolchain_known(s->toolchains[i])) {
            _cleanup_free_ char *known = toolchain_known_list();
            c->refusal = IMAGE_REFUSED_SETTINGS;
            return as_error_make(err, EINVAL, "%s %s: no such toolchain (the toolchains: %s)", why,
                                s->toolchains[i], known ? known : "?");
        }
    }
    return choose_toolchains(req, c, s->toolchains, why, err);
}

static int choose(const image_request_t *req, image_choice_t *c, as_error_t **err)
{
    if (req->option_image != NULL) {
        _cleanup_free_ char *why = NULL;
        if (asprintf(&why, "--image %s", req->option_image) < 0)
            return -ENOMEM;
        return choose_derived(req, c, req->option_image, why, err);
    }
    if (req->option_toolchains != NULL) {
        _cleanup_free_ char *why = NULL;
        int r = joined_options("--toolchain", req->option_toolchains, &why, err);
        return r < 0 ? r : choose_toolchains(req, c, req->option_toolchains, why, err);
    }
    if (req->env_image != NULL) {
        c->kind = IMAGE_ENV;
        if ((c->ref = strdup(req->env_image)) == NULL)
            return -ENOMEM;
        return set_reason(c, "AGENT_SANDBOX_IMAGE");
    }
    if (req->settings != NULL && (user_settings_origin(req->settings, "image") != NULL ||
                                  user_settings_origin(req->settings, "toolchain") != NULL))
        return choose_from_settings(req, c, err);
    _cleanup_free_ char *why = NULL;
    if (asprintf(&why, "the image of the agent %s", req->agent) < 0)
        return -ENOMEM;
    return choose_agent_image(req, c, why);
}

int image_choose(const image_request_t *req, image_choice_t *ret, as_error_t **err)
{
    *ret = (image_choice_t){ 0 };
    int r = choose(req, ret, err);
    if (r < 0 && *err == NULL)
        as_error_make(err, -r, "choosing the session's image: out of memory");
    return r;
}

void image_choice_clear(image_choice_t *c)
{
    free(c->ref);
    free(c->reason);
    free(c->build);
    *c = (image_choice_t){ 0 };
}
