/* Which allowlist a session uses: AGENT_SANDBOX_ALLOWLIST as is, else
 * allowed-hosts in the config directory (lib/base/user_dirs.h) with the agent's
 * allowed-hosts.d/NAME merged in, each copied from the packaged default on
 * first use. A missing override or a bad file refuses the session. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "inputs.h"
#include "base/file_write.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "config/allowlist.h"
#include "config/allowlist_merge.h"
#include "base/user_dirs.h"
#include "session/session_dir.h"

/* Copies the packaged `name` (allowed-hosts, allowed-hosts.d/AGENT) to
 * dest in the config directory, unless a file is there already. */
static int install_default(const char *name, const char *dest)
{
    _cleanup_free_ char *src = packaged_file(name);
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
    /* its directory too: allowed-hosts.d/ may not exist yet */
    _cleanup_free_ char *dir = strndup(dest, (size_t)(strrchr(dest, '/') - dest)), *tmp = NULL;
    if (dir == NULL || asprintf(&tmp, "%s.new", dest) < 0) {
        free(text);
        return EXIT_INTERNAL;
    }
    if (user_dir_create(dir, &err) < 0 ||
        file_write_atomic(dir, strrchr(tmp, '/') + 1, text, 0644, &err) < 0) {
        free(text);
        report_error(&err);
        return EXIT_CONFIG;
    }
    free(text);
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

/* The file `name` in the config directory, copied from the packaged one
 * on first use. 0 or an exit code, reported. */
static int config_path(const char *name, char **ret_path)
{
    _cleanup_free_ char *path = NULL;
    int rc = user_config_path(name, &path);
    if (rc != 0)
        return rc;
    /* lstat: a symlink to a missing file is the user's mistake, to be
     * reported by the read, not a first run */
    struct stat st;
    if (lstat(path, &st) < 0 && errno == ENOENT && (rc = install_default(name, path)) != 0)
        return rc;
    *ret_path = steal_pointer(&path);
    return 0;
}

int allowlist_config_path(char **ret_path)
{
    /* an allowlist named by the variable is used as is */
    const char *override = cli_env()->allowlist;
    if (override != NULL) {
        if ((*ret_path = strdup(override)) == NULL)
            return EXIT_INTERNAL;
        return 0;
    }
    return config_path("allowed-hosts", ret_path);
}

void report_config_errors(as_error_t **err)
{
    const char *msg = *err != NULL && (*err)->msg != NULL ? (*err)->msg : "unknown error";
    for (const char *line = msg; line != NULL && *line != '\0';) {
        const char *nl = strchr(line, '\n');
        int len = nl != NULL ? (int)(nl - line) : (int)strlen(line);
        report("error: %.*s", len, line);
        line = nl != NULL ? nl + 1 : NULL;
    }
    as_error_free(err);
}

static int load_one(const char *path, allowlist_t **ret)
{
    as_error_t *err = NULL;
    allowlist_t *al = NULL;
    if (allowlist_load(path, &al, &err) < 0) {
        report_config_errors(&err);
        report("the session was not started: fix the allowlist, or point AGENT_SANDBOX_ALLOWLIST at another");
        return EXIT_CONFIG;
    }
    for (size_t i = 0; i < al->n_warnings; i++)
        report("warning: %s", al->warnings[i]);
    *ret = al;
    return 0;
}

/* The agent's allowed-hosts.d/NAME merged into al (docs/agents.md). */
static int merge_agent(const agent_profile_t *agent, const char *path, allowlist_t *al)
{
    if (agent == NULL || agent_profile_allowlist_is_default(agent))
        return 0;
    _cleanup_free_ char *agent_path = NULL;
    _cleanup_(allowlist_freep) allowlist_t *more = NULL;
    int rc = config_path(agent->allowlist, &agent_path);
    if (rc == 0)
        rc = load_one(agent_path, &more);
    if (rc == 0) {
        as_error_t *err = NULL;
        if (allowlist_merge(al, more, &err) < 0) {
            as_error_prefix(&err, "adding %s to %s", agent_path, path);
            report_error(&err);
            rc = EXIT_CONFIG;
        }
    }
    return rc;
}

int load_allowlist(const agent_profile_t *agent, allowlist_t **ret, char **ret_path)
{
    _cleanup_free_ char *path = NULL;
    _cleanup_(allowlist_freep) allowlist_t *al = NULL;
    int rc = allowlist_config_path(&path);
    if (rc == 0)
        rc = load_one(path, &al);
    /* AGENT_SANDBOX_ALLOWLIST is used as is, nothing merged in */
    if (rc == 0 && cli_env()->allowlist == NULL)
        rc = merge_agent(agent, path, al);
    if (rc != 0)
        return rc;
    *ret = steal_pointer(&al);
    if (ret_path != NULL)
        *ret_path = steal_pointer(&path);
    return 0;
}
