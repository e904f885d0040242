/* Which image a session runs, and why (docs/images.md):
 *   1. --image NAME             the image derived as NAME (`image build`)
 *   2. --toolchain NAME...      the agent's image with those toolchains
 *   3. AGENT_SANDBOX_IMAGE      any image, as named
 *   4. the settings' `image` or `toolchain`, whichever line is the more
 *      specific (`in DIR`), else the later
 *   5. the agent's own image
 * --image with --toolchain is refused (run_options.c); `toolchain none`
 * in the settings means the agent's own image. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "inputs.h"
#include "run.h"
#include "base/strv.h"
#include "base/util.h"
#include "images/toolchains.h"
#include "images/user_image.h"

static int choose_toolchains(run_inputs_t *ri, char *const *names, const char *why)
{
    as_error_t *err = NULL;
    _cleanup_(strv_freep) char **set = NULL;
    int r = toolchain_set(names, &set, &err);
    if (r == 0 && (set == NULL || set[0] == NULL)) {
        ri->image_kind = IMAGE_AGENT;
        return asprintf(&ri->image_reason, "%s: the agent's own image", why) < 0 ? EXIT_INTERNAL : 0;
    }
    if (r == 0)
        r = toolchain_image(ri->agent->name, set, AS_IMAGE_TAG, &ri->chosen_image, &err);
    if (r == 0)
        r = toolchain_build_command(ri->agent->name, set, &ri->image_build, &err);
    if (r < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    ri->image_kind = IMAGE_TOOLCHAIN;
    return (ri->image_reason = strdup(why)) == NULL ? EXIT_INTERNAL : 0;
}

static int choose_derived(run_inputs_t *ri, const char *name, const char *why)
{
    as_error_t *err = NULL;
    if (user_image_ref(name, AS_IMAGE_TAG, &ri->chosen_image, &err) < 0) {
        as_error_prefix(&err, "%s", why);
        report_error(&err);
        return EXIT_USAGE;
    }
    ri->image_kind = IMAGE_DERIVED;
    if (asprintf(&ri->image_build, "agent-sandbox image build %s", name) < 0)
        return EXIT_INTERNAL;
    return (ri->image_reason = strdup(why)) == NULL ? EXIT_INTERNAL : 0;
}

/* "--toolchain go --toolchain node" as the reason */
static char *joined_options(const char *option, char *const *names)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    for (size_t i = 0; names[i] != NULL; i++)
        fprintf(f, "%s%s %s", i ? " " : "", option, names[i]);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The settings' choice: the toolchains' names checked against this
 * build's, naming the line. */
static int choose_from_settings(run_inputs_t *ri)
{
    const user_settings_t *s = &ri->settings;
    const user_setting_origin_t *img = user_settings_origin(s, "image"), *tc = user_settings_origin(s, "toolchain");
    bool use_image = img != NULL && (tc == NULL || img->rank > tc->rank ||
                                     (img->rank == tc->rank && img->line > tc->line));
    _cleanup_free_ char *why = NULL;
    const user_setting_origin_t *o = use_image ? img : tc;
    if (asprintf(&why, "%s:%u: %s", ri->settings_path, o->line, o->key) < 0)
        return EXIT_INTERNAL;
    if (use_image)
        return choose_derived(ri, s->image, why);
    for (size_t i = 0; s->toolchains[i] != NULL; i++) {
        if (!toolchain_known(s->toolchains[i])) {
            _cleanup_free_ char *known = toolchain_known_list();
            report("error: %s %s: no such toolchain (the toolchains: %s)", why, s->toolchains[i],
                   known ? known : "?");
            return EXIT_CONFIG;
        }
    }
    return choose_toolchains(ri, s->toolchains, why);
}

int image_config_load(const run_options_t *o, run_inputs_t *ri)
{
    if (asprintf(&ri->agent_image, "%s:%s", ri->agent->image, AS_IMAGE_TAG) < 0)
        return EXIT_INTERNAL;
    const char *env = cli_env()->image;
    int rc = 0;
    if (o->image != NULL) {
        _cleanup_free_ char *why = NULL;
        rc = asprintf(&why, "--image %s", o->image) < 0 ? EXIT_INTERNAL : choose_derived(ri, o->image, why);
    } else if (o->toolchains != NULL) {
        _cleanup_free_ char *why = joined_options("--toolchain", o->toolchains);
        rc = why == NULL ? EXIT_INTERNAL : choose_toolchains(ri, o->toolchains, why);
    } else if (env != NULL) {
        ri->image_kind = IMAGE_ENV;
        ri->image = env;
        ri->image_reason = strdup("AGENT_SANDBOX_IMAGE");
        return ri->image_reason == NULL ? EXIT_INTERNAL : 0;
    } else if (user_settings_origin(&ri->settings, "image") != NULL ||
               user_settings_origin(&ri->settings, "toolchain") != NULL) {
        rc = choose_from_settings(ri);
    } else {
        ri->image_kind = IMAGE_AGENT;
        if (asprintf(&ri->image_reason, "the image of the agent %s", ri->agent->name) < 0)
            return EXIT_INTERNAL;
    }
    if (rc != 0)
        return rc;
    ri->image = ri->chosen_image != NULL ? ri->chosen_image : ri->agent_image;
    return 0;
}
