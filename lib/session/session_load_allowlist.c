/* Which allowlist a session uses (session_load.h): AGENT_SANDBOX_ALLOWLIST
 * as is, else allowed-hosts in the config directory (lib/base/user_dirs.h)
 * with the agent's allowed-hosts.d/NAME merged in, each copied from the
 * packaged default on first use. A missing override or a bad file refuses
 * the session. */
#include "session_load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_write.h"
#include "base/user_dirs.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "config/allowlist_merge.h"

/* Copies the packaged `name` (allowed-hosts, allowed-hosts.d/AGENT) to
 * dest in the config directory, unless a file is there already. */
static session_fault_t install_default(const session_say_t *to, const char *name, const char *dest)
{
    _cleanup_free_ char *src = packaged_file(name);
    if (src == NULL) {
        say(to, SAY_ERROR, "no allowlist at %s and no packaged default to copy (looked in %s)", dest, AS_DATADIR);
        return SESSION_FAULT_CONFIG;
    }
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    as_error_t *err = NULL;
    if (allowlist_read_file(src, &text, &len, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_CONFIG;
    }
    /* its directory too: allowed-hosts.d/ may not exist yet */
    _cleanup_free_ char *dir = strndup(dest, (size_t)(strrchr(dest, '/') - dest)), *tmp = NULL;
    if (dir == NULL || asprintf(&tmp, "%s.new", dest) < 0)
        return SESSION_FAULT_INTERNAL;
    if (user_dir_create(dir, &err) < 0 || file_write_atomic(dir, strrchr(tmp, '/') + 1, text, 0644, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_CONFIG;
    }
    /* link, not rename: never replace a file a concurrent first run wrote */
    if (link(tmp, dest) < 0 && errno != EEXIST) {
        say(to, SAY_ERROR, "installing %s: %s", dest, strerror(errno));
        unlink(tmp);
        return SESSION_FAULT_CONFIG;
    }
    unlink(tmp);
    say(to, SAY_PLAIN, "created %s from %s; edit it to choose what the sandbox may reach", dest, src);
    return SESSION_OK;
}

/* The file `name` in the config directory, copied from the packaged one
 * on first use. */
static session_fault_t config_path(const session_say_t *to, const char *name, char **ret_path)
{
    _cleanup_free_ char *path = NULL;
    session_fault_t f = user_config_path(to, name, &path);
    if (f != SESSION_OK)
        return f;
    /* lstat: a symlink to a missing file is the user's mistake, to be
     * reported by the read, not a first run */
    struct stat st;
    if (lstat(path, &st) < 0 && errno == ENOENT && (f = install_default(to, name, path)) != SESSION_OK)
        return f;
    *ret_path = steal_pointer(&path);
    return SESSION_OK;
}

session_fault_t allowlist_config_path(const session_env_t *vars, const session_say_t *to, char **ret_path)
{
    /* an allowlist named by the variable is used as is */
    if (vars->allowlist != NULL)
        return (*ret_path = strdup(vars->allowlist)) == NULL ? SESSION_FAULT_INTERNAL : SESSION_OK;
    return config_path(to, "allowed-hosts", ret_path);
}

static session_fault_t load_one(const session_say_t *to, const char *path, allowlist_t **ret)
{
    as_error_t *err = NULL;
    allowlist_t *al = NULL;
    if (allowlist_load(path, &al, &err) < 0) {
        say_error_lines(to, &err);
        say(to, SAY_PLAIN, "the session was not started: fix the allowlist, or point AGENT_SANDBOX_ALLOWLIST at another");
        return SESSION_FAULT_CONFIG;
    }
    for (size_t i = 0; i < al->n_warnings; i++)
        say(to, SAY_WARNING, "%s", al->warnings[i]);
    *ret = al;
    return SESSION_OK;
}

/* The agent's allowed-hosts.d/NAME merged into al (docs/agents.md). */
static session_fault_t merge_agent(const session_say_t *to, const agent_profile_t *agent, const char *path,
                                   allowlist_t *al)
{
    if (agent == NULL || agent_profile_allowlist_is_default(agent))
        return SESSION_OK;
    _cleanup_free_ char *agent_path = NULL;
    _cleanup_(allowlist_freep) allowlist_t *more = NULL;
    session_fault_t f = config_path(to, agent->allowlist, &agent_path);
    if (f == SESSION_OK)
        f = load_one(to, agent_path, &more);
    as_error_t *err = NULL;
    if (f == SESSION_OK && allowlist_merge(al, more, &err) < 0) {
        as_error_prefix(&err, "adding %s to %s", agent_path, path);
        say_error(to, &err);
        f = SESSION_FAULT_CONFIG;
    }
    return f;
}

session_fault_t load_allowlist(const session_env_t *vars, const session_say_t *to, const agent_profile_t *agent,
                               allowlist_t **ret, char **ret_path)
{
    _cleanup_free_ char *path = NULL;
    _cleanup_(allowlist_freep) allowlist_t *al = NULL;
    session_fault_t f = allowlist_config_path(vars, to, &path);
    if (f == SESSION_OK)
        f = load_one(to, path, &al);
    /* AGENT_SANDBOX_ALLOWLIST is used as is, nothing merged in */
    if (f == SESSION_OK && vars->allowlist == NULL)
        f = merge_agent(to, agent, path, al);
    if (f != SESSION_OK)
        return f;
    *ret = steal_pointer(&al);
    if (ret_path != NULL)
        *ret_path = steal_pointer(&path);
    return SESSION_OK;
}
