/* The C side and the router image's scripts speak one protocol
 * (lib/egress/router_protocol.h, docs/router-protocol.md): each string the CLI
 * relies on is checked in the script that must carry it, read from the
 * source tree (AS_SOURCE_DIR, or the directory given as argv[1]), in the
 * script's code: its comments are dropped first, so a mention in a comment
 * does not count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egress/router_protocol.h"
#include "egress/router_render.h"
#include "egress/session_logs.h"

static const char *source_dir = AS_SOURCE_DIR;

/* A here-document's delimiter after `<<` or `<<-` (its quotes removed). */
static const char *heredoc_word(const char *p, char *word, size_t size, bool *ret_tabs)
{
    size_t n = 0;
    *ret_tabs = *p == '-';
    p += *ret_tabs;
    while (*p == ' ' || *p == '\t')
        p++;
    for (; *p != '\0' && strchr(" \t\n;&|<>()", *p) == NULL; p++)
        if (*p != '\'' && *p != '"' && *p != '\\' && n + 1 < size)
            word[n++] = *p;
    word[n] = '\0';
    return p;
}

/* Copies the lines of a here-document up to and with its delimiter line. */
static const char *copy_heredoc(const char *p, char **out, const char *word, bool tabs)
{
    while (*p != '\0') {
        const char *line = p, *end = strchr(p, '\n');
        size_t len = end != NULL ? (size_t)(end - p) + 1 : strlen(p);
        memcpy(*out, line, len);
        *out += len;
        p += len;
        while (tabs && *line == '\t')
            line++;
        size_t wl = strlen(word);
        if (strncmp(line, word, wl) == 0 && (line[wl] == '\n' || line[wl] == '\0'))
            break;
    }
    return p;
}

/* The shell code of `text`: each comment (a `#` that starts a word outside
 * quotes and here-documents, to the end of its line) dropped with the
 * blanks before it, as the shell drops it. */
static void shell_code(const char *text, char *out)
{
    const char *p = text, *start = out;
    char quote = 0, word[64] = "";
    bool ansi = false, tabs = false;
    while (*p != '\0') {
        char c = *p;
        bool escaped = c == '\\' && p[1] != '\0' && (quote != '\'' || ansi);
        if (escaped) {
            *out++ = *p++;
        } else if (quote != 0) {
            if (c == quote)
                quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
            ansi = c == '\'' && p > text && p[-1] == '$';
        } else if (c == '#' && (p == text || strchr(" \t\n;&|()<>", p[-1]) != NULL)) {
            while (out > start && (out[-1] == ' ' || out[-1] == '\t'))
                out--;
            p += strcspn(p, "\n");
            continue;
        } else if (c == '<' && p[1] == '<' && p[2] != '<' && (p == text || p[-1] != '<')) {
            heredoc_word(p + 2, word, sizeof(word), &tabs);
        } else if (c == '\n' && word[0] != '\0') {
            *out++ = *p++;
            p = copy_heredoc(p, &out, word, tabs);
            word[0] = '\0';
            continue;
        }
        *out++ = *p++;
    }
    *out = '\0';
}

static char *script(const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/router-image/bin/%s", source_dir, name);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        fail_msg("cannot read %s", path);
    static char text[65536], code[65536];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    shell_code(text, code);
    return code;
}

#define assert_carries(text, name, s) \
    do { if (strstr((text), (s)) == NULL) fail_msg("%s does not carry \"%s\"", (name), (s)); } while (0)

static void entry_points_are_the_scripts(void **state)
{
    (void)state;
    const char *bins[] = { ROUTER_PROTO_ROUTER_BIN, ROUTER_PROTO_FORWARDER_BIN };
    for (size_t i = 0; i < 2; i++) {
        assert_true(strncmp(bins[i], "/usr/local/bin/", 15) == 0);
        script(bins[i] + 15);       /* fails when absent */
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/router-image/Containerfile", source_dir);
    FILE *f = fopen(path, "re");
    assert_non_null(f);
    char buf[8192];
    buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
    fclose(f);
    assert_carries(buf, "Containerfile", "COPY bin/ /usr/local/bin/");
    /* the njs function the checks of terminated names read the header
     * lines with: installed where nginx.conf imports it, exported by name */
    assert_carries(buf, "Containerfile", "COPY njs/ /usr/local/lib/agent-sandbox-router/");
    assert_true(strncmp(ROUTER_PROTO_HEADER_LINES_JS, "/usr/local/lib/agent-sandbox-router/", 36) == 0);
    snprintf(path, sizeof(path), "%s/router-image/njs/%s", source_dir, ROUTER_PROTO_HEADER_LINES_JS + 36);
    f = fopen(path, "re");
    if (f == NULL)
        fail_msg("cannot read %s", path);
    buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
    fclose(f);
    assert_carries(buf, "header-lines.js", "function " ROUTER_PROTO_HEADER_LINES_FN "(r) {");
    assert_carries(buf, "header-lines.js", "export default { " ROUTER_PROTO_HEADER_LINES_FN " };");
    assert_carries(buf, "header-lines.js", "r.rawHeadersIn");
}

static void forwarder_speaks_the_protocol(void **state)
{
    (void)state;
    const char *fw = script("agent-sandbox-forwarder");
    assert_carries(fw, "the forwarder", "echo \"" ROUTER_PROTO_READY_LINE "\"");
    assert_carries(fw, "the forwarder", "echo \"" ROUTER_PROTO_NOT_READY);
    assert_carries(fw, "the forwarder", "\"${1:-}\" = " ROUTER_PROTO_PROBE_FLAG);
    assert_carries(fw, "the forwarder", "\"$1\" != " ROUTER_PROTO_ARGS_END);
    assert_carries(fw, "the forwarder", "run=" FORWARDER_RUN_DIR "\n");
    assert_carries(fw, "the forwarder", "[[ $spec =~ ^$ipv4:[0-9]{1,5}=$ipv4:[0-9]{1,5}$ ]]");
    const char *probe = script("agent-sandbox-probe");
    assert_carries(probe, "the probe", "[ \"$l\" = " ROUTER_PROTO_SHARED_IP ":80 ]");
    assert_carries(probe, "the probe", "/dev/tcp/" ROUTER_PROTO_SHARED_IP "/80");
    /* the renderers' shared address is the protocol's */
    assert_string_equal(ROUTER_POD_SHARED_IP, ROUTER_PROTO_SHARED_IP);
}

static void router_reads_the_files_the_cli_writes(void **state)
{
    (void)state;
    const char *router = script("agent-sandbox-router");
    assert_carries(router, "the router", "conf=" ROUTER_CONF_DIR "\n");
    assert_carries(router, "the router", "\"$conf/" ROUTER_FILE_IPTABLES "\"");
    assert_carries(router, "the router", "\"$conf/" ROUTER_FILE_IP6TABLES "\"");
    const char *run = script("agent-sandbox-router-run");
    assert_carries(run, "the router's runner", "conf=" ROUTER_CONF_DIR " logs=" ROUTER_LOG_DIR
                   " pipes=" ROUTER_LOG_PIPES "\n");
    assert_carries(run, "the router's runner", "\"$conf/" ROUTER_FILE_DNSMASQ "\"");
    assert_carries(run, "the router's runner", "\"$conf/" ROUTER_FILE_NGINX "\"");
    assert_carries(run, "the router's runner",
                   "for log in " ROUTER_LOG_DNS " " ROUTER_LOG_EGRESS " " ROUTER_LOG_NGINX_ERROR "; do");
    /* the second dnsmasq is where the first one's servers file says */
    assert_carries(run, "the router's runner", "--listen-address=" ROUTER_WILDCARD_DNS_ADDR
                   " --port=" ROUTER_WILDCARD_DNS_PORT " ");
    assert_carries(run, "the router's runner", "--address=/#/" ROUTER_PROTO_SHARED_IP " ");
    /* live changes: the generation it reads, the answer it writes */
    assert_carries(run, "the router's runner", "\"$conf/" ROUTER_FILE_GENERATION "\"");
    assert_carries(run, "the router's runner", "\"$logs/" ROUTER_LOG_RELOAD "\"");
    assert_carries(run, "the router's runner", "answer 0 " ROUTER_RELOAD_OK "\n");
    assert_carries(run, "the router's runner", "answer \"$gen\" " ROUTER_RELOAD_OK "\n");
    assert_carries(run, "the router's runner", "answer \"$gen\" \"" ROUTER_RELOAD_FAILED);
    assert_carries(run, "the router's runner", "trap 'changes=1' HUP");
    /* whose events follow: the signals, the line in both logs, the answer */
    assert_int_equal(ROUTER_MARK_AGENT_SIGNAL, SIGUSR1);
    assert_int_equal(ROUTER_MARK_VERIFY_SIGNAL, SIGUSR2);
    assert_carries(run, "the router's runner", "trap 'mark=" ROUTER_MARK_AGENT "' USR1");
    assert_carries(run, "the router's runner", "trap 'mark=" ROUTER_MARK_VERIFY "' USR2");
    assert_carries(run, "the router's runner", "echo \"" ROUTER_MARK_LINE "$1\" >\"$pipes/" ROUTER_LOG_DNS "\"");
    assert_carries(run, "the router's runner", "echo \"" ROUTER_MARK_LINE "$1\" >\"$pipes/" ROUTER_LOG_EGRESS "\"");
    assert_carries(run, "the router's runner", "echo \"$marked\" >\"$logs/" ROUTER_LOG_STARTED "\"");
    /* the logs the CLI keeps are the ones the router writes */
    assert_int_equal(ROUTER_LOG_FILES, 3);
    assert_string_equal(router_log_files[0], ROUTER_LOG_DNS);
    assert_string_equal(router_log_files[1], ROUTER_LOG_EGRESS);
    assert_string_equal(router_log_files[2], ROUTER_LOG_NGINX_ERROR);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        source_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entry_points_are_the_scripts),
        cmocka_unit_test(forwarder_speaks_the_protocol),
        cmocka_unit_test(router_reads_the_files_the_cli_writes),
    };
    return cmocka_run_group_tests_name("router_protocol", tests, NULL, NULL);
}
