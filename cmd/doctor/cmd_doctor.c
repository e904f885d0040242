/* `agent-sandbox doctor`: one line per check of what sessions need of this
 * host, OK, WARN or FAIL, each problem followed by the command that fixes
 * it (the checks: lib/config/host_check.h, lib/config/host_git.h, and here those that
 * ask podman). Exit status 1 on any FAIL. The config files and the home
 * volumes are cmd/doctor/doctor_checks.c's. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "shared/cli_env.h"
#include "doctor.h"
#include "run/run_options.h"
#include "base/escape.h"
#include "base/strv.h"
#include "base/util.h"
#include "images/agent_pins.h"
#include "config/host_git.h"
#include "base/user_dirs.h"
#include "egress/resolv_conf.h"

/* ~/.config/containers/NAME, as podman reads the user's own. */
static char *containers_file(const char *name)
{
    _cleanup_free_ char *rel = NULL;
    return asprintf(&rel, "containers/%s", name) < 0 ? NULL : user_podman_config_file(rel);
}

static void check_runtime_dir(doctor_t *d, bool *ret_usable)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *dir = NULL, *fix = NULL, *fallback_dir = NULL;
    bool fallback = false;
    check_t c = {0};
    int r;
    *ret_usable = user_runtime_dir(&dir, &fallback, &err) == 0;
    unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
    if (!*ret_usable) {
        /* /run/user/UID, made as podman would use it, is the fix in both cases */
        if (asprintf(&fix, "sudo install -d -m 0700 -o %u -g %u /run/user/%u && export "
                     "XDG_RUNTIME_DIR=/run/user/%u", uid, gid, uid, uid) < 0)
            fix = NULL;
        doctor_error(d, "XDG_RUNTIME_DIR", CHECK_FAIL, fix, &err);
        return;
    }
    if (fallback) {
        /* podman must see the same; the CLI exports it to its service */
        setenv("XDG_RUNTIME_DIR", dir, 1);
        r = check_set(&c, CHECK_OK, NULL, "not set; %s stands in, as podman does", dir);
    } else {
        r = check_set(&c, CHECK_OK, NULL, "%s is yours, mode 0700", dir);
    }
    doctor_show(d, "XDG_RUNTIME_DIR", &c, r);
}

static void check_host(doctor_t *d)
{
    check_t c = {0};
    struct passwd *pw = getpwuid(getuid());
    const char *user = pw != NULL ? pw->pw_name : "?";
    doctor_show(d, "subordinate ids", &c, host_check_subids(user, getuid(), "/etc/subuid", "/etc/subgid", cli_env()->vars.path, &c));
    doctor_show(d, "user namespaces", &c, host_check_userns(&c));
    doctor_show(d, "/dev/net/tun", &c, host_check_tun("/dev/net/tun", &c));
}

/* The private service, or NULL after a FAIL line saying why not. */
static backend_t *check_service(doctor_t *d, backend_t *b, podman_host_info_t *info)
{
    as_error_t *err = NULL;
    char id[SESSION_ID_LEN + 1];
    if (session_id_generate(id, &err) < 0 || backend_start(id, NULL, b, &err) < 0) {
        _cleanup_free_ char *install = host_install_command("podman", "podman");
        doctor_error(d, "podman", CHECK_FAIL, host_on_path(cli_env()->vars.path, "podman") ? "podman info   (podman's own complaint)"
                                                                        : install, &err);
        return NULL;
    }
    if (podman_info_host(b->api, info, &err) < 0) {
        doctor_error(d, "podman", CHECK_FAIL, "podman info   (podman's own complaint)", &err);
        backend_stop(b, &cli_say);
        return NULL;
    }
    check_t c = {0};
    int r = host_check_podman_version(info->version, info->api_version, info->network_backend, &c);
    doctor_show(d, "podman", &c, r);
    return b;
}

static void check_podman_setup(doctor_t *d, const podman_host_info_t *info)
{
    check_t c = {0};
    _cleanup_free_ char *containers_conf = containers_file("containers.conf");
    _cleanup_free_ char *storage_conf = containers_file("storage.conf");
    doctor_show(d, "cgroups", &c, host_check_cgroup_runtime("/sys/fs/cgroup", info->cgroup_version,
                                                            info->oci_runtime, containers_conf, &c));
    doctor_show(d, "storage", &c, host_check_storage(info->graph_driver, storage_conf, &c));
    bool pasta = info->rootless_network_cmd != NULL && strcmp(info->rootless_network_cmd, "pasta") == 0;
    doctor_show(d, "rootless network", &c, host_check_rootless_network(
        info->rootless_network_cmd, pasta ? info->pasta_executable : info->slirp4netns_executable,
        pasta ? info->pasta_version : info->slirp4netns_version, &c));
}

/* One image: FAIL when a session needs it and it is missing or of another
 * release; WARN when only a version label disagrees in a development
 * build, or an agent's own image is of another version. */
static void check_image(doctor_t *d, backend_t *b, const char *name, const char *image, bool required,
                        const char *build)
{
    as_error_t *err = NULL;
    bool present = false;
    _cleanup_free_ char *version = NULL, *what = NULL;
    check_t c = {0};
    int r;
    if (asprintf(&what, "image %s", name) < 0)
        return;
    if (image_status(b->api, image, &present, &version, &err) < 0) {
        doctor_error(d, what, CHECK_FAIL, NULL, &err);
        return;
    }
    bool same = version != NULL && strcmp(version, AS_VERSION) == 0;
    if (!present && required)
        r = check_set(&c, CHECK_FAIL, build, "%s is missing: sessions cannot start", image);
    else if (!present)
        r = check_set(&c, CHECK_OK, NULL, "%s is not built (only --agent %s needs it: %s)", image, name, build);
    else if (same)
        r = check_set(&c, CHECK_OK, NULL, "%s, built for this version (%s)", image, AS_VERSION);
    else
        r = check_set(&c, AS_RELEASE_BUILD && required ? CHECK_FAIL : CHECK_WARN, build,
                      "%s was built for %s, not for this version (%s)", image,
                      version != NULL ? version : "an unknown version", AS_VERSION);
    doctor_show(d, what, &c, r);
}

/* How to build an image: `make images` from a checkout, the podman build
 * command of the installed context otherwise. */
static char *build_command(const char *kind, const char *agent, const char *image)
{
    char *cmd = NULL, context[512];
    snprintf(context, sizeof(context), "%s/images/%s", AS_DATADIR, kind);
    int n;
    if (access(context, R_OK) == 0 && agent == NULL)
        n = asprintf(&cmd, "podman build %s-t %s %s", strcmp(kind, "sandbox") == 0
                     ? "--build-arg NPM_REGISTRY=$(npm config get registry) " : "", image, context);
    else
        n = asprintf(&cmd, "make images%s%s   (in the source tree)", agent ? " AGENTS=" : "", agent ? agent : "");
    return n < 0 ? NULL : cmd;
}

static void check_images(doctor_t *d, backend_t *b)
{
    const char *router = cli_env_or(cli_env()->vars.router_image, DEFAULT_ROUTER_IMAGE), *sandbox = cli_env()->vars.image;
    _cleanup_free_ char *build = build_command("router", NULL, router), *chosen = doctor_settings_agent();
    check_image(d, b, "router", router, true, build);
    for (size_t i = 0; i < agent_pins_n; i++) {
        const agent_pin_t *a = &agent_pins[i];
        if (a->blocked != NULL)
            continue;
        bool is_default = strcmp(a->image, DEFAULT_IMAGE) == 0;
        /* a session needs the image of the agent it runs unless told another */
        bool required = chosen != NULL ? strcmp(a->name, chosen) == 0 : is_default;
        const char *image = required && sandbox != NULL ? sandbox : a->image;
        _cleanup_free_ char *cmd = build_command("sandbox", is_default ? NULL : a->name, image);
        check_image(d, b, a->name, image, required, cmd);
    }
}

static void check_egress(doctor_t *d, backend_t *b)
{
    const char *named = cli_env()->vars.egress_network;
    const char *net = cli_env_or(named, DEFAULT_EGRESS_NETWORK);
    as_error_t *err = NULL;
    bool exists = false, internal = false;
    check_t c = {0};
    _cleanup_free_ char *fix = NULL;
    int r;
    if (podman_network_internal(b->api, net, &exists, &internal, &err) < 0) {
        doctor_error(d, "egress network", CHECK_FAIL, NULL, &err);
        return;
    }
    if (!exists)
        r = check_set(&c, CHECK_OK, NULL, "%s does not exist yet: the first session creates it", net);
    else if (!internal)
        r = check_set(&c, CHECK_OK, NULL, "%s, a network with a route out", net);
    else if (asprintf(&fix, named != NULL ? "unset AGENT_SANDBOX_EGRESS_NETWORK"
                                                      : "podman network rm %s   (the next session makes it again)",
                      net) < 0)
        r = -ENOMEM;
    else
        r = check_set(&c, CHECK_WARN, fix, "%s is --internal: the router reaches nothing upstream, so no "
                      "allowed name works", net);
    doctor_show(d, "egress network", &c, r);
    char resolver[16];
    const char *env = cli_env()->vars.resolver;
    if (env != NULL)
        r = check_set(&c, CHECK_OK, NULL, "%s (AGENT_SANDBOX_RESOLVER)", env);
    else if (resolv_conf_host_resolver(resolver, &err) == 0)
        r = check_set(&c, CHECK_OK, NULL, "%s, from /etc/resolv.conf", resolver);
    else
        r = check_set(&c, CHECK_FAIL, "export AGENT_SANDBOX_RESOLVER=IP   (an IPv4 resolver the router can reach)",
                      "%s", err->msg);
    as_error_free(&err);
    doctor_show(d, "upstream resolver", &c, r);
}

int cmd_doctor(int argc, char **argv)
{
    if (argc > 1)
        return cli_bad_argument("doctor", argv[1], NULL, 0);
    doctor_t d = {0};
    if (geteuid() == 0) {
        check_t c = {0};
        doctor_show(&d, "user", &c, check_set(&c, CHECK_FAIL, NULL, "you are root; sessions run as the user "
                                              "who runs rootless podman: run doctor as that user"));
        return 1;
    }
    bool runtime_ok = false;
    check_runtime_dir(&d, &runtime_ok);
    check_host(&d);
    backend_t backend = {0};
    podman_host_info_t info = {0};
    backend_t *b = runtime_ok ? check_service(&d, &backend, &info) : NULL;
    check_t skipped = {0};
    if (!runtime_ok)
        doctor_show(&d, "podman", &skipped, check_set(&skipped, CHECK_FAIL, NULL, "not checked: without "
                                                      "a runtime directory it cannot start (above)"));
    if (b != NULL)
        check_podman_setup(&d, &info);
    doctor_check_limits(&d);
    if (b != NULL) {
        check_images(&d, b);
        check_egress(&d, b);
    }
    doctor_check_config(&d);
    if (b != NULL)
        doctor_check_homes(&d, b);
    check_t c = {0};
    _cleanup_(strv_freep) char **files = NULL;
    as_error_t *err = NULL;
    if (host_git_config_files(environ, &files, &err) < 0)
        doctor_error(&d, "git", CHECK_FAIL, NULL, &err);
    else
        doctor_show(&d, "git", &c, host_check_git_bare(files, environ, &c));
    podman_host_info_clear(&info);
    if (b != NULL)
        backend_stop(b, &cli_say);
    printf("%u OK, %u WARN, %u FAIL\n", d.count[CHECK_OK], d.count[CHECK_WARN], d.count[CHECK_FAIL]);
    return d.count[CHECK_FAIL] > 0 ? 1 : 0;
}
