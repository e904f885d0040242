/* libFuzzer target for the parsers of the router's log lines
 * (lib/egress/egress_log.c): dnsmasq's syslog lines, nginx's JSON lines
 * and the router's mark, all written by a router whose traffic the agent
 * drives (names, Host headers and server names are the agent's bytes).
 * The input is cut into lines as the log reader cuts them (a line with a
 * NUL skipped), each handed over in a buffer of exactly its length; every
 * line goes to each parser. An event is well-formed: its kind and strings
 * are there, its verdict agrees with its answer, a name it offers to allow
 * is canonical; and nothing leaks. */
#include <string.h>

#include "fuzz.h"
#include "base/hostname.h"
#include "egress/egress_log.h"
#include "egress/router_protocol.h"

/* 2026-12-01 00:10:15 UTC */
#define NOW 1796083815L

static void check_common(const egress_event_t *e)
{
    CHECK(e->kind != NULL && e->name != NULL);
    CHECK(e->failure == EGRESS_REACHED || e->failure == EGRESS_UNRESOLVED ||
          e->failure == EGRESS_UNREACHABLE);
    CHECK(!e->denied || e->failure == EGRESS_REACHED);
    char *allowable = egress_event_allowable(e);
    if (allowable != NULL) {
        CHECK(hostname_is_canonical(allowable));
        free(allowable);
    }
}

static void check_dns(const egress_event_t *e, const char *line)
{
    check_common(e);
    CHECK(strcmp(e->kind, "dns") == 0 && e->port == 53);
    CHECK(strnlen(e->qtype, sizeof(e->qtype)) < sizeof(e->qtype));
    CHECK(e->answer != NULL && strchr(e->answer, '\n') == NULL);
    CHECK(strstr(line, e->answer) != NULL);
    CHECK(e->denied == (strcmp(e->answer, "NXDOMAIN") == 0 ||
                        (strcmp(e->qtype, "A") == 0 && strncmp(e->answer, "NODATA", 6) == 0)));
    /* the year is the one that puts the query not after a day from now */
    CHECK(e->time <= NOW + 86400 && e->time > NOW - 367L * 86400);
}

static void check_conn(const egress_event_t *e)
{
    check_common(e);
    CHECK(strcmp(e->kind, "tls") == 0 || strcmp(e->kind, "http") == 0 || strcmp(e->kind, "tcp") == 0);
    CHECK(e->upstream != NULL && e->upstream_addr != NULL && e->answer == NULL);
    CHECK(!e->by_rule || e->denied);
}

static void one_line(dns_pending_t *pending, const char *line)
{
    egress_event_t e = {0};
    int r = egress_dns_line(pending, line, NOW, &e);
    CHECK(r == 0 || r == 1);
    CHECK(!pending->active || pending->name != NULL);
    if (r == 1) {
        check_dns(&e, line);
        egress_event_clear(&e);
    }
    r = egress_conn_line(line, &e);
    CHECK(r == 0 || r == 1);
    if (r == 1) {
        check_conn(&e);
        egress_event_clear(&e);
    }
    egress_by_t by;
    if (egress_mark_line(line, &by)) {
        CHECK(strncmp(line, ROUTER_MARK_LINE, strlen(ROUTER_MARK_LINE)) == 0);
        CHECK(by == EGRESS_BY_AGENT || by == EGRESS_BY_VERIFY);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dns_pending_t pending = {0};
    const char *text = (const char *)data, *end = text + size;
    while (text < end) {
        const char *nl = memchr(text, '\n', (size_t)(end - text));
        size_t n = nl != NULL ? (size_t)(nl - text) : (size_t)(end - text);
        if (memchr(text, '\0', n) == NULL) {
            char *line = malloc(n + 1);
            CHECK(line != NULL);
            memcpy(line, text, n);
            line[n] = '\0';
            one_line(&pending, line);
            free(line);
        }
        text += n + 1;
    }
    dns_pending_clear(&pending);
    return 0;
}
