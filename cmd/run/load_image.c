/* Which image a session runs, and why: the choice is lib/config/
 * image_choice's; this loader gathers what it reads and reports a refusal
 * with the exit code of its cause (a bad --image name is a usage error, a
 * settings line naming an unknown toolchain a config error). */
#include <errno.h>
#include <stdlib.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "inputs.h"
#include "run.h"

int load_image(const run_options_t *o, run_inputs_t *ri)
{
    const image_request_t req = {
        .agent = ri->agent->name,
        .agent_image = ri->agent->image,
        .tag = AS_IMAGE_TAG,
        .option_image = o->image,
        .option_toolchains = o->toolchains,
        .env_image = cli_env()->image,
        .settings = &ri->settings,
        .settings_path = ri->settings_path,
    };
    as_error_t *err = NULL;
    if (image_choose(&req, &ri->image, &err) < 0) {
        int rc = ri->image.refusal == IMAGE_REFUSED_NAME       ? EXIT_USAGE
                 : ri->image.refusal == IMAGE_REFUSED_SETTINGS ? EXIT_CONFIG
                                                               : EXIT_INTERNAL;
        report_error(&err);
        return rc;
    }
    return 0;
}
