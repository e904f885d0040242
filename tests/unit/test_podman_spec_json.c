/* podman_spec_json: the bodies of the create calls, against golden files
 * in tests/unit/golden/ (UPDATE_GOLDEN=1 rewrites them; review the diff).
 * A body is compared laid out one member a line, for a readable diff; the
 * layout only adds blanks outside strings to the builder's compact text,
 * so any change of that text changes the laid-out one, and fails. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_file.h"
#include "podman/podman_spec_json.h"

/* A newline and the indentation of `depth`. */
static void new_line(FILE *out, int depth)
{
    fprintf(out, "\n%*s", 2 * depth, "");
}

/* The compact JSON text laid out: a line for each member and element,
 * indented by its depth, a blank after each colon; empty objects and
 * arrays stay as they are. */
static char *laid_out(const char *json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char *p = json; *p != '\0'; p++) {
        char c = *p;
        if (in_string) {
            fputc(c, out);
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        bool opens = c == '{' || c == '[', closes = c == '}' || c == ']';
        if (opens && (p[1] == '}' || p[1] == ']')) {
            fputc(c, out);
            fputc(*++p, out);
            continue;
        }
        if (closes)
            new_line(out, --depth);
        fputc(c, out);
        if (c == '"')
            in_string = true;
        else if (c == ':')
            fputc(' ', out);
        else if (opens)
            new_line(out, ++depth);
        else if (c == ',')
            new_line(out, depth);
    }
    fputc('\n', out);
    assert_int_equal(fclose(out), 0);
    return text;
}

static void assert_body(const char *golden, int built, char *body, as_error_t *err)
{
    if (built < 0)
        fail_msg("building %s: %s", golden, err != NULL ? err->msg : "no error");
    char *text = laid_out(body);
    assert_golden_file(golden, text);
    free(text);
    free(body);
}

/* ---- fixtures: an agent's container, a session's pod, network and volume ---- */

static char *const agent_command[] = { "claude", "--continue", NULL };
/* An entry without '=' is left out; a value may hold '=' and quotes. */
static char *const agent_env[] = {
    "HOME=/home/agent", "TERM=xterm-256color", "NOT_AN_ASSIGNMENT", "OPTS=a=b \"quoted\"", NULL,
};
static char *const cap_drop_all[] = { "all", NULL };
static char *const bind_rw[] = { "rw", "rbind", "rprivate", NULL };
static char *const bind_ro[] = { "ro", "rbind", "rprivate", NULL };
static char *const tmp_opts[] = { "rw", "nosuid", "nodev", "mode=1777", "size=1g", NULL };
static char *const overlay_opts[] = { "upperdir=/state/review/upper", "workdir=/state/review/work", NULL };
static char *const home_opts[] = { "rw", "U", NULL };

static const podman_mount_t agent_mounts[] = {
    { .source = "/home/u/proj", .destination = "/home/u/proj", .type = "overlay", .options = overlay_opts },
    { .destination = "/tmp", .type = "tmpfs", .options = tmp_opts },
    { .source = "/run/user/1000/agent-sandbox/s/hosts", .destination = "/etc/hosts", .type = "bind",
      .options = bind_ro },
    { .source = "/home/u/.config/git", .destination = "/home/agent/.config/git", .type = "bind",
      .options = bind_ro },
    { .source = "/home/u/shared", .destination = "/home/u/shared", .type = "bind", .options = bind_rw },
    { .destination = "/run/empty", .type = "tmpfs" },
};
static const podman_named_volume_t agent_volumes[] = {
    { .name = "agent-sandbox-home-proj", .destination = "/home/agent", .options = home_opts },
    { .name = "agent-sandbox-login", .destination = "/home/agent/.login" },
};
static const podman_label_t agent_sysctls[] = { { "net.ipv4.ping_group_range", "0 0" } };
static const podman_network_attach_t agent_networks[] = {
    { .network = "agent-sandbox-0123456789ab", .static_ip = "10.89.3.10" },
    { .network = "agent-sandbox-egress" },
};
static const podman_label_t session_labels[] = {
    { "agent-sandbox.session", "0123456789ab" }, { "agent-sandbox.pid", "4242" },
};

static void container_agent(void **state)
{
    (void)state;
    const podman_container_spec_t spec = {
        .name = "agent-sandbox-0123456789ab-agent",
        .image = "localhost/agent-sandbox:dev",
        .command = agent_command,
        .env = agent_env,
        .work_dir = "/home/u/proj",
        .user = "1000:1000",
        .passwd_entry = "agent:x:1000:1000::/home/agent:/bin/bash",
        .stdin_open = true,
        .terminal = true,
        .read_only = true,
        .no_new_privileges = true,
        .init = true,
        .cap_drop = cap_drop_all,
        .mounts = agent_mounts,
        .n_mounts = sizeof(agent_mounts) / sizeof(agent_mounts[0]),
        .volumes = agent_volumes,
        .n_volumes = sizeof(agent_volumes) / sizeof(agent_volumes[0]),
        .sysctls = agent_sysctls,
        .n_sysctls = 1,
        .pids_limit = 4096,
        .memory_limit = 8LL << 30,
        .cpu_quota_us = 200000,
        .nproc_rlimit = 4096,
        .networks = agent_networks,
        .n_networks = sizeof(agent_networks) / sizeof(agent_networks[0]),
        .userns_keep_id = true,
        .labels = session_labels,
        .n_labels = sizeof(session_labels) / sizeof(session_labels[0]),
    };
    char *body = NULL;
    as_error_t *err = NULL;
    int built = podman_container_spec_json(&spec, &body, &err);
    assert_body("agent.container.json", built, body, err);
}

/* A member of a pod with nothing optional set: no env, mounts, limits. */
static void container_minimal(void **state)
{
    (void)state;
    static char *const command[] = { "true", NULL };
    const podman_container_spec_t spec = {
        .name = "agent-sandbox-0123456789ab-forwarder",
        .image = "localhost/agent-sandbox-router:dev",
        .pod = "agent-sandbox-0123456789ab",
        .command = command,
        .no_network = true,
    };
    char *body = NULL;
    as_error_t *err = NULL;
    int built = podman_container_spec_json(&spec, &body, &err);
    assert_body("minimal.container.json", built, body, err);
}

static void pod_session(void **state)
{
    (void)state;
    static char *const dns[] = { "10.89.4.1", NULL };
    static const podman_label_t sysctls[] = { { "net.ipv4.ip_unprivileged_port_start", "0" } };
    static const podman_port_t ports[] = {
        { .host_ip = "127.0.0.1", .host_port = 8080, .container_port = 3000 },
        { .host_ip = "127.0.0.1", .host_port = 5173, .container_port = 5173 },
    };
    const podman_pod_spec_t spec = {
        .name = "agent-sandbox-0123456789ab",
        .hostname = "sandbox",
        .network = "agent-sandbox-0123456789ab",
        .userns_keep_id = true,
        .no_manage_hosts = true,
        .dns_servers = dns,
        .sysctls = sysctls,
        .n_sysctls = 1,
        .ports = ports,
        .n_ports = 2,
        .labels = session_labels,
        .n_labels = sizeof(session_labels) / sizeof(session_labels[0]),
    };
    char *body = NULL;
    as_error_t *err = NULL;
    int built = podman_pod_spec_json(&spec, &body, &err);
    assert_body("session.pod.json", built, body, err);
}

static void network_internal(void **state)
{
    (void)state;
    const podman_network_spec_t spec = {
        .name = "agent-sandbox-0123456789ab",
        .internal = true,
        .dns_enabled = false,
        .labels = session_labels,
        .n_labels = sizeof(session_labels) / sizeof(session_labels[0]),
    };
    char *body = NULL;
    as_error_t *err = NULL;
    int built = podman_network_spec_json(&spec, &body, &err);
    assert_body("internal.network.json", built, body, err);
}

static void volume_home(void **state)
{
    (void)state;
    static const podman_label_t labels[] = {
        { "agent-sandbox.home", "1" }, { "agent-sandbox.home-for", "/home/u/proj" },
    };
    static const podman_label_t options[] = { { "o", "uid=0,gid=0" } };
    const podman_volume_spec_t spec = {
        .name = "agent-sandbox-home-proj", .labels = labels, .n_labels = 2, .options = options, .n_options = 1,
    };
    char *body = NULL;
    as_error_t *err = NULL;
    int built = podman_volume_spec_json(&spec, &body, &err);
    assert_body("home.volume.json", built, body, err);
}

/* Bytes that are not UTF-8 fail the build of the body; nothing is returned. */
static void invalid_utf8_is_refused(void **state)
{
    (void)state;
    static const podman_label_t labels[] = { { "agent-sandbox.session", "\xff\xfe" } };
    const podman_network_spec_t spec = { .name = "n", .labels = labels, .n_labels = 1 };
    char *body = NULL;
    as_error_t *err = NULL;
    assert_true(podman_network_spec_json(&spec, &body, &err) < 0);
    assert_null(body);
    assert_non_null(err);
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(container_agent),
        cmocka_unit_test(container_minimal),
        cmocka_unit_test(pod_session),
        cmocka_unit_test(network_internal),
        cmocka_unit_test(volume_home),
        cmocka_unit_test(invalid_utf8_is_refused),
    };
    return cmocka_run_group_tests_name("podman_spec_json", tests, NULL, NULL);
}
