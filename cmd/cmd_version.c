/* `agent-sandbox --version`: the tool's version on the first line (scripts
 * read that one), then the images it would run, with the version each was
 * built for as podman's storage has it, and the agents' pins of this build
 * (lib/images/agent_pins.h). Asking podman takes its private service; when that
 * cannot start, the lines say so and the exit status is still 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "shared/cli_env.h"
#include "run/run_options.h"
#include "base/util.h"
#include "images/agent_pins.h"
#include "base/user_dirs.h"

/* "(built for VERSION)", "(not built)", or why podman was not asked. */
static void put_image_state(backend_t *b, const char *why_not, const char *image)
{
    if (b == NULL) {
        printf("(%s)\n", why_not);
        return;
    }
    as_error_t *err = NULL;
    bool present = false;
    _cleanup_free_ char *version = NULL;
    if (image_status(b->api, image, &present, &version, &err) < 0) {
        printf("(podman: %s)\n", err->msg);
        as_error_free(&err);
    } else if (!present) {
        printf("(not built)\n");
    } else {
        printf("(built for %s)\n", version != NULL ? version : "an unknown version");
    }
}

/* A private service to ask, or NULL and why not. */
static backend_t *backend_for_images(backend_t *b, char **ret_why)
{
    if (geteuid() == 0) {
        *ret_why = strdup("not looked up as root");
        return NULL;
    }
    as_error_t *err = NULL;
    char id[SESSION_ID_LEN + 1];
    _cleanup_free_ char *runtime = NULL;
    bool fallback = false;
    /* runtime_dir_settle's rule, without its note: podman must use the same */
    if (user_runtime_dir(&runtime, &fallback, &err) == 0 &&
        (!fallback || setenv("XDG_RUNTIME_DIR", runtime, 1) == 0) &&
        session_id_generate(id, &err) == 0 && backend_start(id, NULL, b, &err) == 0)
        return b;
    if (asprintf(ret_why, "podman not reachable%s%s; `agent-sandbox doctor` says more",
                 err != NULL ? ": " : "", err != NULL ? err->msg : "") < 0)
        *ret_why = NULL;
    as_error_free(&err);
    return NULL;
}

int cmd_version(void)
{
    printf("agent-sandbox %s\n", AS_VERSION);
    fflush(stdout);
    backend_t backend = {0};
    _cleanup_free_ char *why = NULL;
    backend_t *b = backend_for_images(&backend, &why);
    const char *why_not = why != NULL ? why : "podman not reachable";
    const char *router = cli_env_or(cli_env()->vars.router_image, DEFAULT_ROUTER_IMAGE);
    printf("router image: %s ", router);
    put_image_state(b, why_not, router);
    printf("%-10s  %-10s  %s\n", "agent", "pinned", "image");
    for (size_t i = 0; i < agent_pins_n; i++) {
        const agent_pin_t *a = &agent_pins[i];
        if (a->blocked != NULL) {
            printf("%-10s  %-10s  %s\n", a->name, "blocked", a->blocked);
            continue;
        }
        /* Claude Code's is the default image, which the variable replaces */
        const char *image = strcmp(a->image, DEFAULT_IMAGE) == 0 ? cli_env_or(cli_env()->vars.image, a->image)
                                                                  : a->image;
        printf("%-10s  %-10s  %s ", a->name, a->version != NULL ? a->version : "?", image);
        put_image_state(b, why_not, image);
    }
    if (b != NULL)
        backend_stop(b, &cli_say);
    return 0;
}
