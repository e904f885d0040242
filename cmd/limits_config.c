/* The session's resource limits: defaults, then the limits file in the config
 * directory (lib/user_dirs.h, read by user_config_text), then
 * --memory/--pids/--cpus; and a clear word about any limit this host cannot
 * enforce. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "resource_limits.h"
#include "user_dirs.h"
#include "util.h"

#define LIMITS_FILE_MAX (64 * 1024)

int limits_config_load(const char *memory, const char *pids, const char *cpus, limits_t *ret,
                       cgroup_caps_t *ret_caps)
{
    limits_t lim;
    limits_defaults(&lim);
    as_error_t *err = NULL;

    _cleanup_free_ char *path = NULL, *text = NULL;
    size_t len = 0;
    int rc = user_config_text("limits", LIMITS_FILE_MAX, &path, &text, &len);
    if (rc != 0)
        return rc;
    if (text != NULL && limits_parse_file(path, text, len, &lim, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    if ((memory != NULL && limits_parse_memory(memory, "--memory", &lim.memory_bytes, &err) < 0) ||
        (pids != NULL && limits_parse_pids(pids, "--pids", &lim.pids, &err) < 0) ||
        (cpus != NULL && limits_parse_cpus(cpus, "--cpus", &lim.cpu_millis, &err) < 0)) {
        report_error(&err);
        return EXIT_USAGE;
    }
    cgroup_caps_detect(ret_caps);
    _cleanup_free_ char *note = limits_unapplied(&lim, ret_caps, path);
    if (note != NULL)
        report("note: %s", note);
    *ret = lim;
    return 0;
}
