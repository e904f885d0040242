/* Which agent a session runs (docs/agents.md): --agent NAME, else `agent
 * NAME` in the settings file of the config directory, else Claude Code;
 * and its profile, one of the packaged ones (DATADIR/agents/NAME). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cli.h"
#include "inputs.h"
#include "base/escape.h"
#include "base/file_read.h"
#include "base/msg.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "base/user_dirs.h"
#include "config/user_settings.h"

static int only_agents(const struct dirent *d)
{
    return agent_name_valid(d->d_name);
}

/* "claude, codex, ..." from the packaged profiles, or NULL. */
static char *known_agents(void)
{
    _cleanup_free_ char *dir = packaged_file("agents");
    struct dirent **names = NULL;
    int n = dir != NULL ? scandir(dir, &names, only_agents, alphasort) : -1;
    char *list = NULL;
    msg_t m = { 0 };
    bool opened = n > 0 && msg_open(&m, NULL) == 0;
    for (int i = 0; i < n; i++) {
        if (opened)
            fprintf(m.f, "%s%s", i ? ", " : "", names[i]->d_name);
        free(names[i]);
    }
    free(names);
    if (opened && msg_close(&m, &list, NULL) < 0)
        return NULL;
    return list;
}

/* Reads and checks NAME's profile; `where` says who named it ("--agent
 * NAME", "FILE:LINE: agent NAME"). */
static int load_profile(const char *name, const char *where, int bad_name_rc, agent_profile_t **ret)
{
    _cleanup_free_ char *rel = NULL, *path = NULL, *text = NULL;
    if (asprintf(&rel, "agents/%s", name) < 0)
        return EXIT_INTERNAL;
    if (!agent_name_valid(name) || (path = packaged_file(rel)) == NULL) {
        _cleanup_free_ char *known = known_agents(), *shown = path_escaped(where);
        report("error: %s: no such agent (the agents: %s)", shown != NULL ? shown : "agent",
               known != NULL ? known : "none found in " AS_DATADIR "/agents");
        return bad_name_rc;
    }
    as_error_t *err = NULL;
    size_t len = 0;
    if (config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, AGENT_PROFILE_MAX, &text, &len, &err) < 0) {
        config_error_name(&err, "cannot read the agent's profile ", path);
        report_error(&err);
        return EXIT_CONFIG;
    }
    if (agent_profile_parse(path, name, text, len, ret, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    return 0;
}

int load_agent(const char *requested, const user_settings_t *settings, const char *settings_path,
                      agent_profile_t **ret)
{
    _cleanup_free_ char *where = NULL;
    if (requested != NULL) {
        if (asprintf(&where, "--agent %s", requested) < 0)
            return EXIT_INTERNAL;
        return load_profile(requested, where, EXIT_USAGE, ret);
    }
    if (settings->agent == NULL)
        return load_profile(AGENT_DEFAULT, "agent " AGENT_DEFAULT, EXIT_CONFIG, ret);
    /* the line that names it, "FILE:LINE: agent NAME" */
    if (asprintf(&where, "%s:%u: agent %s", settings_path, settings->agent_line, settings->agent) < 0)
        return EXIT_INTERNAL;
    return load_profile(settings->agent, where, EXIT_CONFIG, ret);
}
