/* Which allowlist a session uses: AGENT_SANDBOX_ALLOWLIST, else
 * allowed-hosts in the config directory (lib/user_dirs.h), copied from the
 * packaged default on first run. A missing override or a bad file refuses
 * the session. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allowlist.h"
#include "cli.h"
#include "session_dir.h"
#include "user_dirs.h"
#include "util.h"

/* The packaged default: DATADIR, or the source tree next to a build. */
static char *find_default(void)
{
    char *path = NULL;
    if (asprintf(&path, "%s/allowed-hosts", AS_DATADIR) >= 0 && access(path, R_OK) == 0)
        return path;
    free(path);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    static const char *const rel[] = { "../config/allowed-hosts", "../../config/allowed-hosts" };
    for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
        if (asprintf(&path, "%s/%s", dir, rel[i]) >= 0 && access(path, R_OK) == 0)
            return path;
        free(path);
    }
    return NULL;
}

/* Copies the default into place unless a file is there already. */
static int install_default(const char *dest)
{
    _cleanup_free_ char *src = find_default();
    if (src == NULL) {
        report("error: no allowlist at %s and no packaged default to copy (looked in %s)", dest, AS_DATADIR);
        return EXIT_CONFIG;
    }
    char *text = NULL;
    size_t len = 0;
    as_error_t *err = NULL;
    if (allowlist_read_file(src, &text, &len, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    _cleanup_free_ char *dir = NULL;
    if (user_config_dir(&dir, &err) < 0 || user_dir_create(dir, &err) < 0 ||
        session_dir_write_file_mode(dir, "allowed-hosts.new", text, 0644, &err) < 0) {
        free(text);
        report_error(&err);
        return EXIT_CONFIG;
    }
    free(text);
    _cleanup_free_ char *tmp = NULL;
    if (asprintf(&tmp, "%s.new", dest) < 0)
        return EXIT_INTERNAL;
    /* link, not rename: never replace a file a concurrent first run wrote */
    if (link(tmp, dest) < 0 && errno != EEXIST) {
        report("error: installing %s: %s", dest, strerror(errno));
        unlink(tmp);
        return EXIT_CONFIG;
    }
    unlink(tmp);
    report("created %s from %s; edit it to choose what the sandbox may reach", dest, src);
    return 0;
}

int allowlist_config_path(char **ret)
{
    const char *override = getenv("AGENT_SANDBOX_ALLOWLIST");
    if (override != NULL && override[0] != '\0')
        return (*ret = strdup(override)) != NULL ? 0 : EXIT_INTERNAL;
    as_error_t *err = NULL;
    int r = user_config_file("allowed-hosts", ret, &err);
    if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_CONFIG;
    }
    return 0;
}

int allowlist_config_load(allowlist_t **ret)
{
    const char *override = getenv("AGENT_SANDBOX_ALLOWLIST");
    _cleanup_free_ char *path = NULL;
    int rc = allowlist_config_path(&path);
    if (rc != 0)
        return rc;
    /* lstat: a symlink to a missing file is the user's mistake, to be
     * reported by the read below, not a first run */
    struct stat st;
    if ((override == NULL || override[0] == '\0') && lstat(path, &st) < 0 && errno == ENOENT &&
        (rc = install_default(path)) != 0)
        return rc;
    as_error_t *err = NULL;
    allowlist_t *al = NULL;
    if (allowlist_load(path, &al, &err) < 0) {
        report("error: %s", err->msg);
        report("the session was not started: fix the allowlist, or point AGENT_SANDBOX_ALLOWLIST at another");
        as_error_free(&err);
        return EXIT_CONFIG;
    }
    for (size_t i = 0; i < al->n_warnings; i++)
        report("warning: %s", al->warnings[i]);
    *ret = al;
    return 0;
}
