/* The session's resource limits: defaults, then the limits file in the config
 * directory (lib/user_dirs.h), then --memory/--pids/--cpus; and a clear word
 * about any limit this host cannot enforce. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "file_read.h"
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

    _cleanup_free_ char *path = NULL;
    int r = user_config_file("limits", &path, &err);
    if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_CONFIG;
    }
    char *text = NULL;
    size_t len = 0;
    r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, LIMITS_FILE_MAX, &text, &len, &err);
    if (r == 0) {
        r = limits_parse_file(path, text, len, &lim, &err);
        free(text);
        if (r < 0) {
            report_error(&err);
            return EXIT_CONFIG;
        }
    } else if (r != -ENOENT) {
        config_error_name(&err, "cannot read ", path);
        report_error(&err);
        return EXIT_CONFIG;
    }
    as_error_free(&err);
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
