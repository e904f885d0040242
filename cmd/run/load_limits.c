/* The session's resource limits: defaults, then the limits file in the config
 * directory (lib/base/user_dirs.h), then --memory/--pids/--cpus. A limit you set
 * (on the command line or in the file) that this host cannot enforce
 * refuses the session (fail closed); a default it cannot enforce is noted
 * once per host (lib/config/host_note.h), and `doctor` repeats it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cli.h"
#include "inputs.h"
#include "base/file_read.h"
#include "base/util.h"
#include "config/host_note.h"
#include "config/resource_limits.h"
#include "base/user_dirs.h"

#define LIMITS_FILE_MAX (64 * 1024)
#define UNSET (-1)

/* The limits file on top of UNSET values, so that what it sets is known. */
static int read_file(const char *path, limits_t *ret)
{
    as_error_t *err = NULL;
    *ret = (limits_t){ .memory_bytes = UNSET, .pids = UNSET, .cpu_millis = UNSET };
    char *text = NULL;
    size_t len = 0;
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, LIMITS_FILE_MAX, &text, &len, &err);
    if (r == 0) {
        r = limits_parse_file(path, text, len, ret, &err);
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
    return 0;
}

/* A limit you asked for that this host cannot enforce: named, with where
 * it was set and how to go on without it. */
static int refuse_unenforced(const char *what, const char *option, const char *given, const char *file,
                             const cgroup_caps_t *caps)
{
    const char *why = caps->v2 ? "this host does not delegate the cgroup controller to your user"
                               : "rootless podman has no cgroup controllers on a cgroup v1 host";
    if (given != NULL)
        report("error: %s %s cannot be enforced here: %s. The session was not started; run it with "
               "%s none to go without a %s limit (`agent-sandbox doctor` checks this host)",
               option, given, why, option, what);
    else
        report("error: %s sets a %s limit that cannot be enforced here: %s. The session was not "
               "started; set `%s none` there to go without one (`agent-sandbox doctor` checks this host)",
               file, what, why, option + 2);
    return EXIT_SETUP;
}

/* A default this host cannot enforce: worth a note, once per host. */
static void note_unapplied(const limits_t *lim, const cgroup_caps_t *caps, const char *path)
{
    _cleanup_free_ char *note = limits_unapplied(lim, caps, path), *state = NULL;
    if (note == NULL)
        return;
    as_error_t *err = NULL;
    bool first = true;
    if (user_state_dir(&state, &err) == 0)
        host_note_first(state, "limits", note, &first, &err);
    as_error_free(&err);
    if (first)
        report("note: %s (Said once on this host; `agent-sandbox doctor` repeats it.)", note);
}

int load_limits(const char *memory, const char *pids, const char *cpus, limits_t *ret,
                       cgroup_caps_t *ret_caps)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *path = NULL;
    int r = user_config_file("limits", &path, &err);
    if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_CONFIG;
    }
    limits_t lim, file;
    limits_defaults(&lim);
    if ((r = read_file(path, &file)) != 0)
        return r;
    if (file.memory_bytes != UNSET)
        lim.memory_bytes = file.memory_bytes;
    if (file.pids != UNSET)
        lim.pids = file.pids;
    if (file.cpu_millis != UNSET)
        lim.cpu_millis = file.cpu_millis;
    if ((memory != NULL && limits_parse_memory(memory, "--memory", &lim.memory_bytes, &err) < 0) ||
        (pids != NULL && limits_parse_pids(pids, "--pids", &lim.pids, &err) < 0) ||
        (cpus != NULL && limits_parse_cpus(cpus, "--cpus", &lim.cpu_millis, &err) < 0)) {
        report_error(&err);
        return EXIT_USAGE;
    }
    cgroup_caps_detect(ret_caps);
    if (lim.memory_bytes > 0 && !ret_caps->memory && (memory != NULL || file.memory_bytes != UNSET))
        return refuse_unenforced("memory", "--memory", memory, path, ret_caps);
    if (lim.cpu_millis > 0 && !ret_caps->cpu && (cpus != NULL || file.cpu_millis != UNSET))
        return refuse_unenforced("CPU", "--cpus", cpus, path, ret_caps);
    note_unapplied(&lim, ret_caps, path);
    *ret = lim;
    return 0;
}
