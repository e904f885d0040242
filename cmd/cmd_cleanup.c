/* `agent-sandbox cleanup [--homes]`: remove what dead sessions left behind,
 * without starting a new one. Live sessions (lock held) are left alone.
 * With --homes, also the per-project homes whose launch directory is gone. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "shared/cli_env.h"
#include "reviews/review.h"
#include "session/session_workspace.h"
#include "base/escape.h"
#include "base/util.h"
#include "session/home_volume.h"

/* Removes each per-project home whose launch directory no longer exists;
 * one in use by a running session is kept. The login volume, a home named
 * by AGENT_SANDBOX_HOME_VOLUME and the old shared home carry no directory
 * label and are never touched. */
static int prune_homes(backend_t *b)
{
    as_error_t *err = NULL;
    podman_labelled_t *list = NULL;
    size_t n = 0;
    if (podman_list_labelled(b->api, PODMAN_VOLUMES, HOME_FOR_LABEL, &list, &n, &err) < 0) {
        report_error(&err);
        return EXIT_SETUP;
    }
    size_t removed = 0, kept = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        _cleanup_free_ char *dir = path_escaped(list[i].label_value);
        if (stat(list[i].label_value, &st) == 0 || errno != ENOENT) {
            kept++;
            continue;
        }
        int r = podman_volume_remove_unused(b->api, list[i].name, &err);
        if (r == -EEXIST) {
            report("kept the home %s of %s: a session uses it", list[i].name, dir ? dir : "?");
            as_error_free(&err);
            kept++;
        } else if (r < 0) {
            report_error(&err);
            rc = EXIT_SETUP;
        } else {
            report("removed the home %s of %s (the directory is gone)", list[i].name, dir ? dir : "?");
            removed++;
        }
    }
    podman_labelled_free(list, n);
    report("removed %zu per-project %s; kept %zu whose directory exists", removed,
           plural(removed, "home", "homes"), kept);
    return rc;
}

int cmd_cleanup(int argc, char **argv)
{
    static const char *const known[] = { "--homes" };
    bool homes = argc >= 2 && strcmp(argv[1], "--homes") == 0;
    if (argc > 2 || (argc == 2 && !homes))
        return cli_bad_argument("cleanup", argv[argc == 2 || !homes ? 1 : 2], known, ARRAY_SIZE(known));
    backend_t b = {0};
    int rc = backend_start_command(&b);
    if (rc != 0)
        return rc;
    backend_sweep(&b, &cli_say, true);
    workspace_check_recover(b.api, cli_env()->vars.path, &cli_say);
    rc = homes ? prune_homes(&b) : 0;
    int reviews = review_cleanup(stderr);
    backend_stop(&b, &cli_say);
    if (rc == 0)
        rc = reviews;
    return rc;
}
