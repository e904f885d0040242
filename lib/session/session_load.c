/* A session's inputs, loaded and checked (session_load.h): the settings,
 * the agent, the image, the egress path, the limits, the user's identity;
 * the allowlist and the held secrets have files of their own. */
#include "session_load.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/doc_path.h"
#include "base/escape.h"
#include "base/file_read.h"
#include "base/msg.h"
#include "base/strv.h"
#include "base/user_dirs.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "config/git_global.h"
#include "config/git_identity.h"
#include "config/host_note.h"
#include "egress/resolv_conf.h"

#define LIMITS_FILE_MAX (64 * 1024)
#define UNSET (-1)

extern char **environ;

char *packaged_file(const char *rel)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", AS_DATADIR, rel) >= 0 && access(path, R_OK) == 0)
        return path;
    free(path);
    if (asprintf(&path, "config/%s", rel) < 0)
        return NULL;
    char *source = source_tree_path(path);
    free(path);
    return source;
}

session_fault_t user_config_path(const session_say_t *to, const char *name, char **ret_path)
{
    as_error_t *err = NULL;
    int r = user_config_file(name, ret_path, &err);
    if (r < 0) {
        say_error(to, &err);
        return r == -ENOMEM ? SESSION_FAULT_INTERNAL : SESSION_FAULT_CONFIG;
    }
    return SESSION_OK;
}

/* ---- the settings file ------------------------------------------------- */

int settings_config_read(const char *home, user_settings_t *ret, char **ret_path, as_error_t **err)
{
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    *ret = USER_SETTINGS_DEFAULTS;
    int r = user_config_file(USER_SETTINGS_FILE, ret_path, err);
    if (r < 0)
        return r;
    r = config_file_read(AT_FDCWD, *ret_path, CONFIG_FOLLOW, USER_SETTINGS_MAX, &text, &len, err);
    if (r < 0) {
        if (r != -ENOENT)
            config_error_name(err, "cannot read ", *ret_path);
        return r;
    }
    /* `in DIR` lines match the launch directory as the launch takes it */
    _cleanup_free_ char *launch_dir = getcwd(NULL, 0);
    return user_settings_parse_at(*ret_path, text, len, launch_dir, home != NULL && home[0] == '/' ? home : NULL,
                                  ret, err);
}

static session_fault_t load_settings(const session_request_t *req, const session_say_t *to, session_inputs_t *in)
{
    as_error_t *err = NULL;
    int r = settings_config_read(req->vars.home, &in->settings, &in->settings_path, &err);
    if (r == -ENOENT) {
        as_error_free(&err);
    } else if (r < 0) {
        say_error(to, &err);
        return r == -ENOMEM ? SESSION_FAULT_INTERNAL : SESSION_FAULT_CONFIG;
    }
    return SESSION_OK;
}

/* ---- the agent --------------------------------------------------------- */

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
static session_fault_t load_profile(const session_say_t *to, const char *name, const char *where,
                                    session_fault_t bad_name, agent_profile_t **ret)
{
    _cleanup_free_ char *rel = NULL, *path = NULL, *text = NULL;
    if (asprintf(&rel, "agents/%s", name) < 0)
        return SESSION_FAULT_INTERNAL;
    if (!agent_name_valid(name) || (path = packaged_file(rel)) == NULL) {
        _cleanup_free_ char *known = known_agents(), *shown = path_escaped(where);
        say(to, SAY_ERROR, "%s: no such agent (the agents: %s)", shown != NULL ? shown : "agent",
            known != NULL ? known : "none found in " AS_DATADIR "/agents");
        return bad_name;
    }
    as_error_t *err = NULL;
    size_t len = 0;
    if (config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, AGENT_PROFILE_MAX, &text, &len, &err) < 0)
        config_error_name(&err, "cannot read the agent's profile ", path);
    else
        agent_profile_parse(path, name, text, len, ret, &err);
    if (err != NULL) {
        say_error(to, &err);
        return SESSION_FAULT_CONFIG;
    }
    return SESSION_OK;
}

/* --agent NAME, else the settings file's `agent NAME`, else Claude Code. */
static session_fault_t load_agent(const session_request_t *req, const session_say_t *to, session_inputs_t *in)
{
    _cleanup_free_ char *where = NULL;
    const user_settings_t *settings = &in->settings;
    if (req->agent != NULL) {
        if (asprintf(&where, "--agent %s", req->agent) < 0)
            return SESSION_FAULT_INTERNAL;
        return load_profile(to, req->agent, where, SESSION_FAULT_USAGE, &in->agent);
    }
    if (settings->agent == NULL)
        return load_profile(to, AGENT_DEFAULT, "agent " AGENT_DEFAULT, SESSION_FAULT_CONFIG, &in->agent);
    /* the line that names it, "FILE:LINE: agent NAME" */
    if (asprintf(&where, "%s:%u: agent %s", in->settings_path, settings->agent_line, settings->agent) < 0)
        return SESSION_FAULT_INTERNAL;
    return load_profile(to, settings->agent, where, SESSION_FAULT_CONFIG, &in->agent);
}

/* The choice is lib/config/image_choice's; a refusal has the fault of its
 * cause (a bad --image name is a usage error, a settings line naming an
 * unknown toolchain a config error). */
static session_fault_t load_image(const session_request_t *req, const session_say_t *to, session_inputs_t *in)
{
    const image_request_t ask = {
        .agent = in->agent->name, .agent_image = in->agent->image, .tag = AS_IMAGE_TAG,
        .option_image = req->image, .option_toolchains = req->toolchains, .env_image = req->vars.image,
        .settings = &in->settings, .settings_path = in->settings_path,
    };
    as_error_t *err = NULL;
    if (image_choose(&ask, &in->image_choice, &err) < 0) {
        say_error(to, &err);
        return in->image_choice.refusal == IMAGE_REFUSED_NAME       ? SESSION_FAULT_USAGE
               : in->image_choice.refusal == IMAGE_REFUSED_SETTINGS ? SESSION_FAULT_CONFIG
                                                                    : SESSION_FAULT_INTERNAL;
    }
    in->image = in->image_choice.ref;
    return SESSION_OK;
}

/* The router's image, the egress network and the resolver the router
 * asks upstream: the environment's, else the defaults and the host's. */
static session_fault_t load_egress(const session_request_t *req, const session_say_t *to, session_inputs_t *in)
{
    const session_env_t *v = &req->vars;
    in->router_image = v->router_image != NULL ? v->router_image : DEFAULT_ROUTER_IMAGE;
    in->egress_network = v->egress_network != NULL ? v->egress_network : DEFAULT_EGRESS_NETWORK;
    char resolver[16];
    as_error_t *err = NULL;
    if (v->resolver != NULL) {
        if (strlen(v->resolver) >= sizeof(resolver)) {
            say(to, SAY_ERROR, "AGENT_SANDBOX_RESOLVER=%s is not an IPv4 address", v->resolver);
            return SESSION_FAULT_USAGE;
        }
        snprintf(resolver, sizeof(resolver), "%s", v->resolver);
    } else if (resolv_conf_host_resolver(resolver, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_CONFIG;
    }
    return (in->resolver = strdup(resolver)) == NULL ? SESSION_FAULT_INTERNAL : SESSION_OK;
}

/* ---- the limits -------------------------------------------------------- */

/* The limits file on top of UNSET values, so that what it sets is known. */
static session_fault_t read_limits_file(const session_say_t *to, const char *path, limits_t *ret)
{
    as_error_t *err = NULL;
    *ret = (limits_t){ .memory_bytes = UNSET, .pids = UNSET, .cpu_millis = UNSET };
    char *text = NULL;
    size_t len = 0;
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, LIMITS_FILE_MAX, &text, &len, &err);
    if (r == 0) {
        r = limits_parse_file(path, text, len, ret, &err);
        free(text);
    } else if (r != -ENOENT) {
        config_error_name(&err, "cannot read ", path);
    } else {
        as_error_free(&err);
        r = 0;
    }
    if (r < 0) {
        say_error(to, &err);
        return SESSION_FAULT_CONFIG;
    }
    return SESSION_OK;
}

/* A limit you asked for that this host cannot enforce: named, with where
 * it was set and how to go on without it. */
static session_fault_t refuse_unenforced(const session_say_t *to, const char *what, const char *option,
                                         const char *given, const char *file, const cgroup_caps_t *caps)
{
    const char *why = caps->v2 ? "this host does not delegate the cgroup controller to your user"
                               : "rootless podman has no cgroup controllers on a cgroup v1 host";
    if (given != NULL)
        say(to, SAY_ERROR, "%s %s cannot be enforced here: %s. The session was not started; run it with "
            "%s none to go without a %s limit (`agent-sandbox doctor` checks this host)",
            option, given, why, option, what);
    else
        say(to, SAY_ERROR, "%s sets a %s limit that cannot be enforced here: %s. The session was not "
            "started; set `%s none` there to go without one (`agent-sandbox doctor` checks this host)",
            file, what, why, option + 2);
    return SESSION_FAULT_SETUP;
}

/* A default this host cannot enforce: worth a note, once per host. */
static void note_unapplied(const session_say_t *to, const limits_t *lim, const cgroup_caps_t *caps,
                           const char *path)
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
        say(to, SAY_NOTE, "%s (Said once on this host; `agent-sandbox doctor` repeats it.)", note);
}

/* Defaults, then the limits file, then --memory/--pids/--cpus. A limit you
 * set that this host cannot enforce refuses the session (fail closed); a
 * default it cannot enforce is noted once per host (`doctor` repeats it). */
static session_fault_t load_limits(const session_request_t *req, const session_say_t *to, session_inputs_t *in)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *path = NULL;
    session_fault_t f = user_config_path(to, "limits", &path);
    limits_t lim, file;
    limits_defaults(&lim);
    if (f != SESSION_OK || (f = read_limits_file(to, path, &file)) != SESSION_OK)
        return f;
    lim.memory_bytes = file.memory_bytes != UNSET ? file.memory_bytes : lim.memory_bytes;
    lim.pids = file.pids != UNSET ? file.pids : lim.pids;
    lim.cpu_millis = file.cpu_millis != UNSET ? file.cpu_millis : lim.cpu_millis;
    if ((req->memory != NULL && limits_parse_memory(req->memory, "--memory", &lim.memory_bytes, &err) < 0) ||
        (req->pids != NULL && limits_parse_pids(req->pids, "--pids", &lim.pids, &err) < 0) ||
        (req->cpus != NULL && limits_parse_cpus(req->cpus, "--cpus", &lim.cpu_millis, &err) < 0)) {
        say_error(to, &err);
        return SESSION_FAULT_USAGE;
    }
    cgroup_caps_t *caps = &in->cgroups;
    cgroup_caps_detect(caps);
    if (lim.memory_bytes > 0 && !caps->memory && (req->memory != NULL || file.memory_bytes != UNSET))
        return refuse_unenforced(to, "memory", "--memory", req->memory, path, caps);
    if (lim.cpu_millis > 0 && !caps->cpu && (req->cpus != NULL || file.cpu_millis != UNSET))
        return refuse_unenforced(to, "CPU", "--cpus", req->cpus, path, caps);
    note_unapplied(to, &lim, caps, path);
    in->limits = lim;
    return SESSION_OK;
}

/* ---- the user ---------------------------------------------------------- */

/* The system git config for the sandbox, or NULL (said why, when it is not
 * for want of an identity): read from the global git config files without
 * running git. It is a warning, not a refusal: the confinement does not
 * depend on it. */
static char *git_config_for_sandbox(const session_say_t *to, const char *settings_path)
{
    as_error_t *err = NULL;
    _cleanup_(strv_freep) char **paths = NULL;
    git_identity_t id = { NULL, NULL };
    char *text = NULL;
    if (git_global_files(environ, &paths, &err) < 0 || git_identity_read(paths, &id, &err) < 0 ||
        git_identity_render(&id, &text, &err) < 0) {
        say(to, SAY_WARNING, "commits in the sandbox carry no identity of yours: %s (`git-identity off` "
            "in %s stops passing it)", err != NULL ? err->msg : "out of memory", settings_path);
        as_error_free(&err);
    }
    git_identity_clear(&id);
    return text;
}

/* The user's ids and name (the agent's passwd entry) and, unless the
 * settings say `git-identity off`, the git identity. */
static session_fault_t load_identity(const session_say_t *to, session_inputs_t *in)
{
    in->uid = getuid();
    in->gid = getgid();
    errno = 0;
    const struct passwd *pw = getpwuid(in->uid);
    if (pw != NULL && (in->user_name = strdup(pw->pw_name)) == NULL)
        return SESSION_FAULT_INTERNAL;
    if (in->settings.git_identity)
        in->git_config = git_config_for_sandbox(to, in->settings_path);
    return SESSION_OK;
}

/* Every host port to publish is free now: else nothing starts (a port
 * taken between this and podman's listener stops the set-up as well). */
static session_fault_t publish_ports_free(const session_request_t *req, const session_say_t *to)
{
    for (size_t i = 0; i < req->n_publish; i++) {
        as_error_t *err = NULL;
        if (publish_host_port_check(&req->publish[i], &err) < 0) {
            as_error_prefix(&err, "--publish %u:%u", req->publish[i].host_port, req->publish[i].port);
            say_error(to, &err);
            return SESSION_FAULT_SETUP;
        }
    }
    return SESSION_OK;
}

session_fault_t session_load(const session_request_t *req, const session_say_t *to, session_inputs_t *in)
{
    /* The settings file is read once: the agent, the notifications and the
     * identity all come from it. */
    session_fault_t f = load_settings(req, to, in);
    if (f == SESSION_OK)
        f = load_agent(req, to, in);
    if (f == SESSION_OK)
        f = load_image(req, to, in);
    if (f == SESSION_OK)
        f = load_egress(req, to, in);
    if (f == SESSION_OK)
        f = load_limits(req, to, in);
    if (f == SESSION_OK)
        f = load_allowlist(&req->vars, to, in->agent, &in->allowlist, &in->allowlist_path);
    if (f == SESSION_OK)
        f = load_identity(to, in);
    /* The held secrets come last: they need the agent's profile and the
     * allowlist. */
    if (f == SESSION_OK)
        f = load_secrets(req, to, in);
    return f != SESSION_OK ? f : publish_ports_free(req, to);
}
