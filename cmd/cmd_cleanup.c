/* `agent-sandbox cleanup`: remove what dead sessions left behind, without
 * starting a new one. Live sessions (lock held) are left alone. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_cleanup(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        report("error: cleanup takes no arguments");
        return EXIT_USAGE;
    }
    int rc = runtime_dir_settle();
    if (rc != 0)
        return rc;
    char id[SESSION_ID_LEN + 1];
    as_error_t *err = NULL;
    cli_backend_t b = {0};
    if (session_id_generate(id, &err) < 0 || backend_start(id, &b, &err) < 0) {
        report_error(&err);
        return EXIT_NO_SERVICE;
    }
    sweep_stale(&b, true);
    backend_stop(&b);
    return 0;
}
