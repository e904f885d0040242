/* egress_log: dnsmasq's and nginx's lines as events, the reader (merge,
 * growth, partial lines, the probe's name left out), the summary per name
 * (session_logs), and the counts per name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/name_counts.h"
#include "egress/egress_log.h"
#include "egress/router_protocol.h"
#include "egress/session_logs.h"

/* 2026-12-01 00:10:15 UTC */
#define NOW 1796083815L

static int dns(dns_pending_t *p, const char *line, egress_event_t *e)
{
    return egress_dns_line(p, line, NOW, e);
}

static void test_dns_lines(void **state)
{
    (void)state;
    dns_pending_t p = {0};
    egress_event_t e;
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: query[A] PyPI.org from 10.89.0.1", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: config PyPI.org is NXDOMAIN", &e), 1);
    assert_string_equal(e.kind, "dns");
    assert_string_equal(e.name, "PyPI.org");
    assert_string_equal(e.qtype, "A");
    assert_string_equal(e.answer, "NXDOMAIN");
    assert_true(e.denied);
    assert_int_equal(e.port, 53);
    assert_int_equal(e.time, NOW);
    char *allowable = egress_event_allowable(&e);
    assert_string_equal(allowable, "pypi.org");
    free(allowable);
    egress_event_clear(&e);

    /* an exact name from the hosts file, a wildcard's through the second
     * dnsmasq, NODATA: allowed; an A query's NODATA (a listed name's
     * parent): refused */
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: query[A] api.x.test from 10.89.0.1", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: /etc/agent-sandbox-router/hosts api.x.test is 127.0.0.2", &e), 1);
    assert_false(e.denied);
    assert_string_equal(e.answer, "127.0.0.2");
    egress_event_clear(&e);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: query[AAAA] a.w.test from 10.89.0.1", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: forwarded a.w.test to 127.0.0.1#5354", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: reply a.w.test is NODATA-IPv6", &e), 1);
    assert_false(e.denied);
    egress_event_clear(&e);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: query[A] x.test from 10.89.0.1", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: config x.test is NODATA-IPv4", &e), 1);
    assert_true(e.denied);
    egress_event_clear(&e);

    /* a name with spaces and markup; an unprintable one */
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: query[A] <a href=x> is .test from 10.89.0.1", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: config <a href=x> is .test is NXDOMAIN", &e), 1);
    assert_string_equal(e.name, "<a href=x> is .test");
    assert_null(egress_event_allowable(&e));
    egress_event_clear(&e);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: query[A] <name unprintable> from 10.89.0.1", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: config <name unprintable> is NXDOMAIN", &e), 1);
    assert_null(egress_event_allowable(&e));
    egress_event_clear(&e);

    /* a query without its answer line is dropped by the next one; an
     * answer for another name is not this query's; other lines are not events */
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: query[A] lost.test from 10.89.0.1", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: query[A] next.test from 10.89.0.1", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: config lost.test is NXDOMAIN", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:15 dnsmasq[7]: read /etc/agent-sandbox-router/hosts - 3 names", &e), 0);
    assert_int_equal(dns(&p, "not a log line", &e), 0);
    assert_int_equal(dns(&p, "Dec  1 00:10:16 dnsmasq[7]: config next.test is NXDOMAIN", &e), 1);
    assert_string_equal(e.name, "next.test");
    egress_event_clear(&e);
    /* a December line read on the 1st of January is last year's */
    assert_int_equal(egress_dns_line(&p, "Dec 31 23:59:59 dnsmasq[7]: query[A] y.test from 1.2.3.4",
                                     1798761600L, &e), 0);
    assert_int_equal(egress_dns_line(&p, "Dec 31 23:59:59 dnsmasq[7]: config y.test is NXDOMAIN",
                                     1798761600L, &e), 1);
    assert_int_equal(e.time, 1798761599L);
    egress_event_clear(&e);
    dns_pending_clear(&p);
}

static void test_connection_lines(void **state)
{
    (void)state;
    egress_event_t e;
    assert_int_equal(egress_conn_line("{\"time\":\"2026-12-01T01:10:15+01:00\",\"proto\":\"tls\",\"name\":\"api.x.test\","
        "\"port\":443,\"upstream\":\"api.x.test:443\",\"verdict\":\"allow\",\"status\":200,\"sent\":5120,"
        "\"received\":517,\"upstream_addr\":\"203.0.113.9:443\",\"connect\":\"0.004\"}", &e), 1);
    assert_string_equal(e.kind, "tls");
    assert_int_equal(e.time, NOW);
    assert_int_equal(e.port, 443);
    assert_false(e.denied);
    assert_int_equal(e.failure, EGRESS_REACHED);
    assert_int_equal(e.sent, 5120);
    assert_int_equal(e.received, 517);
    assert_string_equal(e.upstream_addr, "203.0.113.9:443");
    egress_event_clear(&e);

    /* refused: the name as sent, escapes decoded (a quote, ESC, BEL) */
    assert_int_equal(egress_conn_line("{\"time\":\"2026-12-01T00:10:15+00:00\",\"proto\":\"tls\",\"name\":"
        "\"\\u001B]0;x\\u0007<a href=\\\"h\\\">\",\"port\":443,\"upstream\":\"\",\"verdict\":\"deny\","
        "\"status\":500,\"sent\":0,\"received\":0,\"upstream_addr\":\"\",\"connect\":\"\"}", &e), 1);
    assert_true(e.denied);
    assert_int_equal(e.failure, EGRESS_REACHED);
    assert_string_equal(e.name, "\033]0;x\a<a href=\"h\">");
    egress_event_clear(&e);

    /* allowed but not resolved upstream (nothing tried); the connection
     * failed (connect "-"); an origin's own 502 is an answer */
    const struct { const char *proto, *status, *addr, *connect; egress_failure_t want; } f[] = {
        { "tls", "500", "", "", EGRESS_UNRESOLVED },
        { "http", "502", "", "", EGRESS_UNRESOLVED },
        { "http", "502", "10.9.9.9:80", "-", EGRESS_UNREACHABLE },
        { "tls", "502", "10.9.9.9:443", "-", EGRESS_UNREACHABLE },
        { "http", "502", "10.9.9.9:80", "0.001", EGRESS_REACHED },
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        char line[512];
        snprintf(line, sizeof(line), "{\"time\":\"2026-12-01T00:10:15+00:00\",\"proto\":\"%s\","
                 "\"name\":\"b.test\",\"port\":80,\"upstream\":\"b.test\",\"verdict\":\"allow\","
                 "\"status\":%s,\"sent\":300,\"received\":80,\"upstream_addr\":\"%s\","
                 "\"connect\":\"%s\"}", f[i].proto, f[i].status, f[i].addr, f[i].connect);
        assert_int_equal(egress_conn_line(line, &e), 1);
        assert_int_equal(e.failure, f[i].want);
        egress_event_clear(&e);
    }
    /* a host:port forward: the port asked for is the upstream's */
    assert_int_equal(egress_conn_line("{\"time\":\"2026-12-01T00:10:15+00:00\",\"proto\":\"tcp\",\"name\":\"db.test\","
        "\"port\":10000,\"upstream\":\"db.test:5432\",\"verdict\":\"allow\",\"status\":200,\"sent\":1,"
        "\"received\":2,\"upstream_addr\":\"1.2.3.4:5432\",\"connect\":\"0.001\"}", &e), 1);
    assert_int_equal(e.port, 5432);
    egress_event_clear(&e);
    /* not an event */
    assert_int_equal(egress_conn_line("{\"proto\":\"tls\"}", &e), 0);
    assert_int_equal(egress_conn_line("garbage", &e), 0);
    assert_int_equal(egress_conn_line("{\"time\":\"2026-12-01T00:10:15+00:00\",\"proto\":\"udp\",\"name\":\"x\","
        "\"verdict\":\"deny\",\"upstream\":\"\",\"upstream_addr\":\"\"}", &e), 0);
}

/* A \u escape cut short at the line's end ("\u1", found by fuzzing) is
 * taken as it is, and nothing past the line is read: here the bytes after
 * its NUL would finish the escape and the line. */
static void test_short_escape_stays_in_the_line(void **state)
{
    (void)state;
    static const char buf[] = "{\"time\":\"2026-12-01T00:10:15+00:00\",\"proto\":\"tls\",\"verdict\":\"deny\","
                              "\"upstream\":\"\",\"upstream_addr\":\"\",\"name\":\"\\u1\0AB\"}";
    egress_event_t e;
    assert_int_equal(egress_conn_line(buf, &e), 1);
    assert_string_equal(e.name, "u1");
    egress_event_clear(&e);
    /* a blank is no hex digit: \u 1b is no escape (sscanf took it, and
     * stepped over the closing quote) */
    assert_int_equal(egress_conn_line("{\"time\":\"2026-12-01T00:10:15+00:00\",\"proto\":\"tls\","
        "\"verdict\":\"deny\",\"upstream\":\"\",\"upstream_addr\":\"\",\"name\":\"a\\u 1b\"}", &e), 1);
    assert_string_equal(e.name, "au 1b");
    egress_event_clear(&e);
}

/* ---- the reader, the summary ---- */

static char dir[] = "/tmp/test_egress_log.XXXXXX";

static void append(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

typedef struct seen {
    char names[16][64];
    size_t n;
} seen_t;

static int collect(const egress_event_t *e, void *ctx)
{
    seen_t *s = ctx;
    if (s->n < 16)
        snprintf(s->names[s->n++], 64, "%s %s%s%s%s%s", e->kind, e->name, e->denied ? " denied" : "",
                 e->by_rule ? " by rule" : "", e->by != EGRESS_BY_AGENT ? " by " : "", e->by != EGRESS_BY_AGENT ? egress_by_name(e->by) : "");
    return 0;
}

#define CONN(t, name, verdict, status, addr, connect) \
    "{\"time\":\"2026-12-01T00:10:" t "+00:00\",\"proto\":\"tls\",\"name\":\"" name "\",\"port\":443," \
    "\"upstream\":\"\",\"verdict\":\"" verdict "\",\"status\":" status ",\"sent\":0,\"received\":0," \
    "\"upstream_addr\":\"" addr "\",\"connect\":\"" connect "\"}\n"

/* The summary of test_reader_and_summary's logs. */
static void check_summary(void)
{
    as_error_t *err = NULL;
    /* the summary: per name, lower case, an A query or a connection each;
     * the agent's only (the probe's name once: the agent's query) */
    append("egress.log.dropped", "7\n");
    egress_summary_t sum;
    assert_int_equal(egress_log_summary(dir, &sum, &err), 0);
    assert_int_equal(sum.dropped, 7);
    assert_int_equal(sum.allowed, 3);
    assert_int_equal(sum.n_blocked, 4);
    assert_string_equal(sum.blocked[0].name, "a.test");
    assert_int_equal(sum.blocked[0].count, 2);     /* its A query and a connection; not the AAAA */
    assert_string_equal(sum.blocked[1].name, "b.test");
    assert_string_equal(sum.blocked[2].name, "d.test");
    assert_string_equal(sum.blocked[3].name, "denied-probe.agent-sandbox.invalid");
    assert_int_equal(sum.blocked[3].count, 1);
    assert_int_equal(sum.denied, 8);
    /* an allowed name's rules refused these: a list of their own, not blocked */
    assert_int_equal(sum.n_refused, 1);
    assert_string_equal(sum.refused[0].name, "held.test");
    assert_int_equal(sum.refused[0].count, 2);
    assert_int_equal(sum.n_unresolved, 1);
    assert_string_equal(sum.unresolved[0].name, "c.test");
    assert_int_equal(sum.n_unreachable, 1);
    assert_string_equal(sum.unreachable[0].name, "e.test");
    assert_int_equal(sum.unreachable[0].count, 2);
    egress_summary_clear(&sum);
}

static void test_reader_and_summary(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    /* the readiness probe's, then the router's mark, then the agent's: the
     * probe's name among them, and a second mark that changes nothing */
    append("dns.log", "Dec  1 00:10:14 dnsmasq[7]: query[A] denied-probe.agent-sandbox.invalid from 1.1.1.1\n"
                      "Dec  1 00:10:14 dnsmasq[7]: config denied-probe.agent-sandbox.invalid is NXDOMAIN\n"
                      ROUTER_MARK_LINE ROUTER_MARK_AGENT "\n"
                      "Dec  1 00:10:15 dnsmasq[7]: query[A] a.test from 1.1.1.1\n"
                      "Dec  1 00:10:15 dnsmasq[7]: config a.test is NXDOMAIN\n"
                      ROUTER_MARK_LINE ROUTER_MARK_VERIFY "\n"
                      "Dec  1 00:10:17 dnsmasq[7]: query[A] denied-probe.agent-sandbox.invalid from 1.1.1.1\n"
                      "Dec  1 00:10:17 dnsmasq[7]: config denied-probe.agent-sandbox.invalid is NXDOMAIN\n");
    append("egress.log", CONN("14", "denied-probe.agent-sandbox.invalid", "deny", "403", "", "")
                         ROUTER_MARK_LINE ROUTER_MARK_AGENT "\n"
                         CONN("15", "b.test", "deny", "500", "", "")
                         CONN("16", "c.test", "allow", "500", "", ""));
    egress_log_reader_t *r = NULL;
    as_error_t *err = NULL;
    seen_t s = {0};
    assert_int_equal(egress_log_open(dir, &r, &err), 0);
    assert_int_equal(egress_log_read(r, collect, &s, &err), 0);
    /* in time order, the query first within its second; the probe's are
     * the sandbox's own, the same name later the agent's */
    assert_int_equal(s.n, 6);
    assert_string_equal(s.names[0], "dns denied-probe.agent-sandbox.invalid denied by sandbox");
    assert_string_equal(s.names[1], "tls denied-probe.agent-sandbox.invalid denied by sandbox");
    assert_string_equal(s.names[2], "dns a.test denied");
    assert_string_equal(s.names[3], "tls b.test denied");
    assert_string_equal(s.names[4], "tls c.test");
    assert_string_equal(s.names[5], "dns denied-probe.agent-sandbox.invalid denied");
    /* read again: only what came since, a partial line held back */
    append("dns.log", "Dec  1 00:10:18 dnsmasq[7]: query[AAAA] A.TEST. from 1.1.1.1\n"
                      "Dec  1 00:10:18 dnsmasq[7]: config A.TEST. is NXDOMAIN\nDec  1 00:10:19 dns");
    s.n = 0;
    assert_int_equal(egress_log_read(r, collect, &s, &err), 0);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.names[0], "dns A.TEST. denied");
    append("dns.log", "masq[7]: query[A] d.test from 1.1.1.1\nDec  1 00:10:19 dnsmasq[7]: config d.test is NXDOMAIN\n");
    append("egress.log", CONN("19", "", "deny", "400", "", "")
                         CONN("20", "a.test", "deny", "500", "", "")
                         CONN("21", "e.test", "allow", "502", "9.9.9.9:443", "-")
                         CONN("22", "e.test", "allow", "502", "9.9.9.9:443", "-")
                         CONN("23", "held.test", "refused", "403", "", "")
                         CONN("24", "held.test", "refused", "403", "", ""));
    s.n = 0;
    assert_int_equal(egress_log_read(r, collect, &s, &err), 0);
    assert_int_equal(s.n, 7);
    assert_string_equal(s.names[5], "tls held.test denied by rule");
    assert_string_equal(s.names[0], "dns d.test denied");
    egress_log_close(r);

    check_summary();

    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Whose events: verify's session marks them verify's; a log without a mark
 * (the agent never started) holds only the sandbox's own. Neither counts
 * in the summary. */
static void test_whose_events(void **state)
{
    (void)state;
    egress_by_t by = EGRESS_BY_SANDBOX;
    assert_true(egress_mark_line(ROUTER_MARK_LINE ROUTER_MARK_VERIFY, &by));
    assert_int_equal(by, EGRESS_BY_VERIFY);
    assert_false(egress_mark_line(ROUTER_MARK_LINE "agentx", &by));
    assert_false(egress_mark_line("x" ROUTER_MARK_LINE ROUTER_MARK_AGENT, &by));
    assert_false(egress_mark_line("Dec  1 00:10:15 dnsmasq[7]: query[A] " ROUTER_MARK_LINE ROUTER_MARK_AGENT, &by));
    assert_int_equal(by, EGRESS_BY_VERIFY);
    const char *const marks[] = { ROUTER_MARK_LINE ROUTER_MARK_VERIFY "\n", "" };
    const char *const whose[] = { " by verify", " by sandbox" };
    for (size_t i = 0; i < 2; i++) {
        strcpy(dir, "/tmp/test_egress_log.XXXXXX");
        assert_non_null(mkdtemp(dir));
        append("dns.log", marks[i]);
        append("dns.log", "Dec  1 00:10:15 dnsmasq[7]: query[A] spoof.invalid from 1.1.1.1\n"
                          "Dec  1 00:10:15 dnsmasq[7]: config spoof.invalid is NXDOMAIN\n");
        append("egress.log", marks[i]);
        append("egress.log", CONN("16", "spoof.invalid", "deny", "403", "", ""));
        egress_log_reader_t *r = NULL;
        as_error_t *err = NULL;
        seen_t s = {0};
        char want[64];
        assert_int_equal(egress_log_open(dir, &r, &err), 0);
        assert_int_equal(egress_log_read(r, collect, &s, &err), 0);
        egress_log_close(r);
        assert_int_equal(s.n, 2);
        snprintf(want, sizeof(want), "dns spoof.invalid denied%s", whose[i]);
        assert_string_equal(s.names[0], want);
        snprintf(want, sizeof(want), "tls spoof.invalid denied%s", whose[i]);
        assert_string_equal(s.names[1], want);
        egress_summary_t sum;
        assert_int_equal(egress_log_summary(dir, &sum, &err), 0);
        assert_int_equal(sum.denied, 0);
        assert_int_equal(sum.n_blocked, 0);
        egress_summary_clear(&sum);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
    }
}

/* session_logs_keep: the logs, their counts and the list in effect go to
 * the state directory; older sessions go by number, size and age. */
static void test_keep_and_prune(void **state)
{
    (void)state;
    char top[] = "/tmp/test_keep.XXXXXX", cmd[512], path[256];
    assert_non_null(mkdtemp(top));
    snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p s/router-log s/egress state/agent-sandbox/logs && "
             "echo q >s/router-log/dns.log && echo 3 >s/router-log/dns.log.dropped && "
             "echo c >s/router-log/egress.log && echo pypi.org >s/egress/allowed-hosts && "
             "for i in $(seq 1 25); do mkdir state/agent-sandbox/logs/$(printf %%012d $i); "
             "touch -d \"$((60 - i)) days ago\" state/agent-sandbox/logs/$(printf %%012d $i); done", top);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof(path), "%s/state", top);
    setenv("XDG_STATE_HOME", path, 1);
    snprintf(path, sizeof(path), "%s/s", top);
    char *dest = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_logs_keep(path, "0123456789ab", &dest, &err), 0);
    /* only the new one: the others are 35 to 59 days old, past the age bound */
    snprintf(cmd, sizeof(cmd), "cd %s/state/agent-sandbox/logs && test \"$(ls | paste -sd ' ')\" = "
             "\"0123456789ab\" && cat 0123456789ab/dns.log.dropped 0123456789ab/allowed-hosts "
             "0123456789ab/egress.log | paste -sd ' ' | grep -qx '3 pypi.org c'", top);
    assert_int_equal(system(cmd), 0);
    /* by number: 20 at most, the newest kept */
    snprintf(cmd, sizeof(cmd), "cd %s/state/agent-sandbox/logs && for i in $(seq 1 25); do "
             "mkdir x$(printf %%011d $i); touch -d \"$i minutes ago\" x$(printf %%011d $i); done", top);
    assert_int_equal(system(cmd), 0);
    free(dest);
    assert_int_equal(session_logs_keep(path, "0123456789ab", &dest, &err), 0);
    snprintf(cmd, sizeof(cmd), "cd %s/state/agent-sandbox/logs && test $(ls | wc -l) = 20 && "
             "test -d 0123456789ab && test -d x00000000019 && ! test -d x00000000020", top);
    assert_int_equal(system(cmd), 0);
    free(dest);
    unsetenv("XDG_STATE_HOME");
    snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
    assert_int_equal(system(cmd), 0);
}

static void test_name_counts(void **state)
{
    (void)state;
    name_counts_t *m = name_counts_new();
    bool first = false;
    char name[32];
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 1000; i++) {
            snprintf(name, sizeof(name), "n%d.test", i);
            assert_int_equal(name_counts_add(m, name, (size_t)(i % 7 == 0 ? 2 : 1), &first, NULL), 0);
            assert_int_equal(first, round == 0);
        }
    assert_int_equal(name_counts_len(m), 1000);
    name_count_t *v = NULL;
    assert_int_equal(name_counts_sorted(m, &v, NULL), 0);
    assert_int_equal(v[0].count, 6);
    assert_string_equal(v[0].name, "n0.test");     /* ties by name */
    assert_string_equal(v[1].name, "n105.test");
    assert_int_equal(v[999].count, 3);
    free(v);
    name_counts_free(m);
    name_counts_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dns_lines),
        cmocka_unit_test(test_connection_lines),
        cmocka_unit_test(test_short_escape_stays_in_the_line),
        cmocka_unit_test(test_reader_and_summary),
        cmocka_unit_test(test_whose_events),
        cmocka_unit_test(test_keep_and_prune),
        cmocka_unit_test(test_name_counts),
    };
    return cmocka_run_group_tests_name("egress_log", tests, NULL, NULL);
}
