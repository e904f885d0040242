/* allowlist: parsing, normalisation, errors with file:line, warnings, lookups,
 * reading files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hostname.h"
#include "config/allowlist.h"
#include "config/allowlist_merge.h"
#include "egress/router_render.h"

static allowlist_t *parse_ok(const char *text)
{
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    int r = allowlist_parse("hosts", text, strlen(text), &al, &err);
    if (r < 0)
        fail_msg("unexpected error: %s", err->msg);
    assert_int_equal(r, 0);
    assert_null(err);
    assert_non_null(al);
    return al;
}

/* Parses `text`, expects failure with a message that starts with
 * "hosts:<line>: " and contains `needle`. */
static void expect_error(const char *text, size_t len, unsigned line, const char *needle)
{
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    int r = allowlist_parse("hosts", text, len, &al, &err);
    if (r >= 0) {
        allowlist_free(al);
        fail_msg("no error for %.*s", (int)len, text);
    }
    assert_int_equal(r, -EINVAL);
    assert_null(al);
    assert_non_null(err);
    char prefix[32];
    snprintf(prefix, sizeof(prefix), "hosts:%u: ", line);
    if (strncmp(err->msg, prefix, strlen(prefix)) != 0 || strstr(err->msg, needle) == NULL)
        fail_msg("for %.*s: message `%s` lacks `%s` or `%s`", (int)len, text, err->msg, prefix,
                 needle);
    as_error_free(&err);
}

static void expect_entry_error(const char *entry, const char *needle)
{
    /* Two good lines and a comment first, so the line number is checked. */
    char *text = NULL;
    assert_true(asprintf(&text, "ok.example.com\n# comment\n%s\nlater.example.com\n", entry) > 0);
    expect_error(text, strlen(text), 3, needle);
    free(text);
}

/* ---- accepted syntax ---- */

static void test_empty_and_comments(void **state)
{
    (void)state;
    allowlist_t *al = parse_ok("");
    assert_int_equal(al->n_entries, 0);
    assert_int_equal(al->n_nets, 0);
    assert_int_equal(al->n_warnings, 0);
    allowlist_free(al);

    al = parse_ok("# only a comment\n\n   \n\t# indented comment\n# ünïcödé in a comment is fine\n");
    assert_int_equal(al->n_entries, 0);
    allowlist_free(al);

    as_error_t *err = NULL;
    assert_int_equal(allowlist_parse("hosts", NULL, 0, &al, &err), 0);
    assert_int_equal(al->n_entries, 0);
    allowlist_free(al);
}

static void test_entries_and_normalisation(void **state)
{
    (void)state;
    allowlist_t *al = parse_ok(
        "API.Anthropic.COM.      # upper case and a trailing dot\n"
        "\t.Example.com\r\n"
        "db.example.com:5432\t# comment after a tab\n"
        "  db.example.com:06543  \n"
        "xn--bcher-kva.example\n"
        "a-b.c-d.example\n");
    assert_int_equal(al->n_entries, 5);

    assert_string_equal(al->entries[0].name, "api.anthropic.com");
    assert_false(al->entries[0].wildcard);
    assert_int_equal(al->entries[0].n_ports, 0);
    assert_int_equal(al->entries[0].line, 1);

    assert_string_equal(al->entries[1].name, "example.com");
    assert_true(al->entries[1].wildcard);
    assert_int_equal(al->entries[1].line, 2);

    assert_string_equal(al->entries[2].name, "db.example.com");
    assert_false(al->entries[2].wildcard);
    assert_int_equal(al->entries[2].n_ports, 2);
    assert_int_equal(al->entries[2].ports[0].port, 5432);
    assert_int_equal(al->entries[2].ports[0].line, 3);
    assert_int_equal(al->entries[2].ports[1].port, 6543);
    assert_int_equal(al->entries[2].ports[1].line, 4);
    assert_int_equal(al->entries[2].line, 3);

    assert_string_equal(al->entries[3].name, "xn--bcher-kva.example");
    assert_string_equal(al->entries[4].name, "a-b.c-d.example");
    assert_int_equal(al->n_warnings, 0);

    allowlist_free(al);
}

/* The comment rule of every config file (lib/base/config_lines.h): a # starts a
 * comment at the start of a line or after a blank, nowhere else. */
static void test_comment_rule(void **state)
{
    (void)state;
    allowlist_t *al = parse_ok("#a.example.com\n"
                               "   # b.example.com\n"
                               "c.example.com # d.example.com\n"
                               "e.example.com\t#f.example.com\r\n"
                               "allow-upstream-net 10.1.0.0/16 # the office\n");
    assert_int_equal(al->n_entries, 2);
    assert_string_equal(al->entries[0].name, "c.example.com");
    assert_string_equal(al->entries[1].name, "e.example.com");
    assert_int_equal(al->n_nets, 1);
    allowlist_free(al);
    expect_entry_error("g.example.com#x", "`g.example.com#x`: a comment starts with a # at the "
                       "start of a line or after a blank; put a space before it");
    expect_entry_error("g.example.com:8080#x", "put a space before it");
    expect_entry_error("allow-upstream-net 10.0.0.0/8#lan", "put a space before it");
}

static void test_no_final_newline_and_limits(void **state)
{
    (void)state;
    /* 63-byte labels and a 253-byte name are fine. */
    char name[300];
    memset(name, 'a', 63);
    name[63] = '.';
    memset(name + 64, 'b', 63);
    name[127] = '.';
    memset(name + 128, 'c', 63);
    name[191] = '.';
    memset(name + 192, 'd', 61);
    name[253] = '\0';
    assert_int_equal(strlen(name), 253);
    allowlist_t *al = parse_ok(name);
    assert_int_equal(al->n_entries, 1);
    assert_string_equal(al->entries[0].name, name);
    allowlist_free(al);

    /* The same with a trailing dot: 254 bytes in the file, 253 without the root. */
    name[253] = '.';
    name[254] = '\0';
    al = parse_ok(name);
    assert_int_equal(strlen(al->entries[0].name), 253);
    allowlist_free(al);

    al = parse_ok("a.example:1\nb.example:65535");
    assert_int_equal(al->entries[0].ports[0].port, 1);
    assert_int_equal(al->entries[1].ports[0].port, 65535);
    allowlist_free(al);
}

static void test_upstream_nets(void **state)
{
    (void)state;
    allowlist_t *al = parse_ok("allow-upstream-net 10.1.0.0/16\n"
                               "allow-upstream-net\t192.168.5.7   # one host\n"
                               "allow-upstream-net 169.254.169.254/32\n"
                               "allow-upstream-net 0.0.0.0/0\n");
    assert_int_equal(al->n_nets, 4);
    assert_int_equal(al->nets[0].net.addr, 0x0a010000u);
    assert_int_equal(al->nets[0].net.prefix, 16);
    assert_int_equal(al->nets[0].line, 1);
    assert_int_equal(al->nets[1].net.addr, 0xc0a80507u);
    assert_int_equal(al->nets[1].net.prefix, 32);
    char buf[IPV4_NET_TEXT_MAX];
    ipv4_net_format(al->nets[1].net, buf, sizeof(buf));
    assert_string_equal(buf, "192.168.5.7/32");
    ipv4_net_format(al->nets[3].net, buf, sizeof(buf));
    assert_string_equal(buf, "0.0.0.0/0");
    assert_int_equal(al->n_warnings, 1);
    assert_string_equal(al->warnings[0], "hosts:4: allow-upstream-net 0.0.0.0/0 turns off the "
                        "refusal of private upstream addresses entirely");
    allowlist_free(al);
}

/* Regression: a network the firewall refuses is never called public. The
 * parser had a list of 7 ranges and the firewall 14, so these three were
 * answered "this network is public; the router does not refuse it", and a
 * user who deleted the line lost the access it gave. */
static void test_upstream_net_refused_is_not_public(void **state)
{
    (void)state;
    allowlist_t *al = parse_ok("allow-upstream-net 198.51.100.10\n"
                               "allow-upstream-net 198.18.0.0/15\n"
                               "allow-upstream-net 224.0.0.0/4\n"
                               "allow-upstream-net 192.0.2.0/25\n"
                               "allow-upstream-net 240.0.0.0/8\n"
                               "allow-upstream-net 8.8.8.0/24\n");
    assert_int_equal(al->n_nets, 6);
    assert_int_equal(al->n_warnings, 1);
    assert_string_equal(al->warnings[0], "hosts:6: allow-upstream-net 8.8.8.0/24: this network is "
                        "public; the router does not refuse it in the first place");
    allowlist_free(al);

    /* every range of the firewall's table, and one address in each */
    size_t n = 0;
    const refused_range_t *ranges = refused_ranges(&n);
    for (size_t i = 0; i < n; i++) {
        char net[IPV4_NET_TEXT_MAX], text[80];
        ipv4_net_format(ranges[i].net, net, sizeof(net));
        snprintf(text, sizeof(text), "allow-upstream-net %s\n", net);
        al = parse_ok(text);
        assert_int_equal(al->n_warnings, 0);
        allowlist_free(al);
        ipv4_net_t host = { ranges[i].net.addr | 1, 32 };
        ipv4_net_format(host, net, sizeof(net));
        snprintf(text, sizeof(text), "allow-upstream-net %s\n", net);
        al = parse_ok(text);
        assert_int_equal(al->n_warnings, 0);
        allowlist_free(al);
    }
}

/* ---- errors: every kind, with file:line ---- */

static void test_errors_wildcards_and_urls(void **state)
{
    (void)state;
    expect_entry_error("*", "`*` would allow every host");
    expect_entry_error("*.example.com", "write .example.com");
    expect_entry_error("api.*.example.com", "`*` is not supported");
    expect_entry_error("https://api.example.com", "is a URL");
    expect_entry_error("http://api.example.com:8080/v1", "is a URL");
    expect_entry_error("api.example.com/v1/messages", "contains a path");
    expect_entry_error("user@api.example.com", "contains '@'");
    expect_entry_error(".example.com:5432", "a port can only follow an exact host name");
}

static void test_errors_ip_literals(void **state)
{
    (void)state;
    const char *v4[] = { "127.0.0.1", "127.1", "2130706433", "0x7f000001", "0x7f.0.0.1",
                         "0177.0.0.1", "1.1.1.1", "10.0.0.1:5432", "169.254.169.254",
                         "example.123", ".10.in-addr.0x1", "1.2.3.0X4" };
    for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++)
        expect_entry_error(v4[i], "is an IP address");
    expect_entry_error("::1", "IPv6 address");
    expect_entry_error("2001:db8::1", "IPv6 address");
    expect_entry_error("[::1]", "is an IPv6 address");
    expect_entry_error("[2001:db8::1]:443", "is an IPv6 address");
    expect_entry_error("::ffff:127.0.0.1", "IPv6 address");
}

static void test_errors_ports(void **state)
{
    (void)state;
    expect_entry_error("db.example.com:0", "port 0 is out of range (expected 1-65535)");
    expect_entry_error("db.example.com:65536", "port 65536 is out of range");
    expect_entry_error("db.example.com:99999999999999999999", "is out of range");
    expect_entry_error("db.example.com:http", "port `http` is not a number");
    expect_entry_error("db.example.com:-1", "port `-1` is not a number");
    expect_entry_error("db.example.com:+80", "port `+80` is not a number");
    expect_entry_error("db.example.com:", "missing port number");
    expect_entry_error(":443", "empty host name");
}

static void test_errors_names(void **state)
{
    (void)state;
    char longname[300];
    memset(longname, 0, sizeof(longname));
    for (int i = 0; i < 4; i++) {
        memset(longname + i * 64, 'a', 63);
        longname[i * 64 + 63] = '.';
    }
    longname[255] = '\0';            /* four 63-byte labels: 255 bytes */
    assert_int_equal(strlen(longname), 255);
    expect_entry_error(longname, "bytes long; the limit is 253");

    char longlabel[80];
    memset(longlabel, 'a', 64);
    strcpy(longlabel + 64, ".example.com");
    expect_entry_error(longlabel, "is 64 bytes long; the limit is 63");

    expect_entry_error("api example.com", "whitespace inside an entry");
    expect_entry_error("api.example.com 443", "whitespace inside an entry");
    expect_entry_error("bücher.example", "non-ASCII character; write internationalised names "
                       "in punycode");
    expect_entry_error("a..example.com", "empty label");
    expect_entry_error("..example.com", "empty label");
    expect_entry_error("example.com..", "empty label");
    expect_entry_error(".", "empty host name");
    expect_entry_error("-api.example.com", "label `-api` in `-api.example.com` starts or ends with '-'");
    expect_entry_error("api-.example.com", "starts or ends with '-'");
    expect_entry_error("foo_bar.example.com", "invalid character '_'");
    expect_entry_error("foo!bar.example.com", "invalid character '!'");
    expect_entry_error("api.example.com;", "invalid character ';'");
    expect_entry_error("a\"b.example.com", "invalid character '\"'");
    expect_entry_error("a{b}.example.com", "invalid character '{'");
    expect_entry_error("localhost", "single-label name");
    expect_entry_error(".com", "would allow a whole top-level domain");
    expect_entry_error("a\x01.example.com", "a control character (0x01)");
    expect_entry_error("a\x7f.example.com", "a control character (0x7f)");
    expect_entry_error("a\vb.example.com", "a control character (0x0b)");
    expect_entry_error("bad:1:2", "IPv6 address");
}

static void test_errors_directive(void **state)
{
    (void)state;
    expect_entry_error("allow-upstream-net", "expects exactly one IPv4 network");
    expect_entry_error("allow-upstream-net 10.0.0.0/8 192.168.0.0/16", "expects exactly one");
    expect_entry_error("allow-upstream-net 10.0.0.1/8", "has host bits set; did you mean 10.0.0.0/8?");
    expect_entry_error("allow-upstream-net 10.0.0.0/33", "expected an IPv4 network in CIDR form");
    expect_entry_error("allow-upstream-net 10.0.0.0/", "expected an IPv4 network");
    expect_entry_error("allow-upstream-net 010.0.0.0/8", "no leading zeros");
    expect_entry_error("allow-upstream-net 10.0.0/8", "expected an IPv4 network");
    expect_entry_error("allow-upstream-net 256.0.0.0/8", "expected an IPv4 network");
    expect_entry_error("allow-upstream-net corp.example.com", "expected an IPv4 network");
    expect_entry_error("allow-upstream-net fd00::/8", "IPv6 networks are not supported");
}

static void test_errors_file_level(void **state)
{
    (void)state;
    static const char nul[] = "ok.example.com\nbad\0.example.com\n";
    expect_error(nul, sizeof(nul) - 1, 2, "NUL byte");
    static const char nul_in_comment[] = "ok.example.com\n\n# a \0 b\n";
    expect_error(nul_in_comment, sizeof(nul_in_comment) - 1, 3, "NUL byte");

    /* Every error is reported at once, each with its own line, in order;
     * the good lines between them change nothing. */
    const char *three = "ok.example.com\n*\nfine.example.com\n127.0.0.1\na_b.example\n";
    allowlist_t *bad = NULL;
    as_error_t *e3 = NULL;
    assert_int_equal(allowlist_parse("hosts", three, strlen(three), &bad, &e3), -EINVAL);
    assert_null(bad);
    const char *lines3[] = { "hosts:2: `*` would allow every host", "hosts:4: `127.0.0.1` is an IP",
                             "hosts:5: invalid character '_'" };
    const char *at = e3->msg;
    for (size_t i = 0; i < 3; i++) {
        if (strncmp(at, lines3[i], strlen(lines3[i])) != 0)
            fail_msg("error %zu: `%s` does not start `%s`", i, at, lines3[i]);
        const char *nl = strchr(at, '\n');
        assert_true(i < 2 ? nl != NULL : nl == NULL);
        at = nl != NULL ? nl + 1 : at;
    }
    as_error_free(&e3);

    /* A file full of errors: the first 50, then how many more. */
    char many[200 * 8], *m = many;
    for (int i = 0; i < 200; i++)
        m += sprintf(m, "a_%03d\n", i);
    assert_int_equal(allowlist_parse("hosts", many, (size_t)(m - many), &bad, &e3), -EINVAL);
    size_t n_lines = 1;
    for (const char *c = e3->msg; *c != '\0'; c++)
        n_lines += *c == '\n';
    assert_int_equal(n_lines, 51);
    assert_non_null(strstr(e3->msg, "hosts:50: "));
    assert_null(strstr(e3->msg, "hosts:51: "));
    assert_non_null(strstr(e3->msg, "\n... and 150 more errors"));
    as_error_free(&e3);

    /* Too many entries. */
    size_t cap = (size_t)(ALLOWLIST_MAX_ENTRIES + 1) * 16;
    char *big = malloc(cap), *p = big;
    for (int i = 0; i <= ALLOWLIST_MAX_ENTRIES; i++)
        p += sprintf(p, "h%d.example\n", i);
    expect_error(big, (size_t)(p - big), ALLOWLIST_MAX_ENTRIES + 1, "too many entries");
    free(big);

    /* A different file name shows up in messages. */
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_parse("/etc/agent-sandbox/allowed-hosts", "\n\n*", 3, &al, &err),
                     -EINVAL);
    assert_non_null(strstr(err->msg, "/etc/agent-sandbox/allowed-hosts:3: "));
    as_error_free(&err);
}

/* ---- warnings ---- */

static void test_warnings(void **state)
{
    (void)state;
    allowlist_t *al = parse_ok(
        "api.example.com\n"              /* 1: covered by .example.com (line 6) */
        "api.example.com.\n"             /* 2: duplicate of line 1 */
        "db.example.com:5432\n"          /* 3: has a port: not covered */
        "db.example.com:5432\n"          /* 4: same host:port twice */
        "db.example.com\n"               /* 5: already listed (line 3) */
        ".example.com\n"                 /* 6 */
        ".eu.example.com\n"              /* 7: nested in .example.com */
        "web.example.org:443\n"          /* 8: :443 redundant */
        ".EXAMPLE.com\n"                 /* 9: duplicate of line 6 */
        "allow-upstream-net 10.0.0.0/8\n"        /* 10 */
        "allow-upstream-net 10.0.0.0/8\n"        /* 11: duplicate */
        "allow-upstream-net 8.8.8.0/24\n"        /* 12: public */
        "example.com\n");                /* 13: covered by .example.com */
    const char *want[] = {
        "hosts:1: api.example.com is already covered by .example.com (line 6)",
        "hosts:2: api.example.com is already listed on line 1",
        "hosts:4: db.example.com:5432 is already listed on line 3",
        "hosts:5: db.example.com is already listed on line 3",
        "hosts:7: .eu.example.com is already covered by .example.com (line 6)",
        "hosts:8: web.example.org:443: ports 80 and 443 are always allowed for a listed name; "
            "the port is redundant",
        "hosts:9: .example.com is already listed on line 6",
        "hosts:11: allow-upstream-net 10.0.0.0/8 is already listed on line 10",
        "hosts:12: allow-upstream-net 8.8.8.0/24: this network is public; the router does not "
            "refuse it in the first place",
        "hosts:13: example.com is already covered by .example.com (line 6)",
    };
    for (size_t i = 0; i < al->n_warnings; i++)
        print_message("warning: %s\n", al->warnings[i]);
    assert_int_equal(al->n_warnings, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < al->n_warnings; i++)
        assert_string_equal(al->warnings[i], want[i]);

    /* Duplicates are merged, not stored twice. */
    assert_int_equal(al->n_entries, 6);
    const allowlist_entry_t *db = &al->entries[1];
    assert_string_equal(db->name, "db.example.com");
    assert_false(db->wildcard);
    assert_int_equal(db->n_ports, 1);
    const allowlist_entry_t *web = &al->entries[4];
    assert_string_equal(web->name, "web.example.org");
    assert_int_equal(web->n_ports, 0);
    assert_int_equal(al->n_nets, 2);
    allowlist_free(al);
}

/* ---- a full list: every duplicate and overlap found, none falsely ---- */

#define BIG_DUPLICATES 100

/* Entry i (0-based, on line i + 1) of the big list: a wildcard every 16
 * lines, the line after it a name it covers, every 32nd a name with a port,
 * else a name nothing covers. */
static void big_entry(size_t i, char *buf, size_t size)
{
    if (i % 16 == 0)
        snprintf(buf, size, ".w%zu.test", i);
    else if (i % 16 == 1)
        snprintf(buf, size, "a.w%zu.test", i - 1);
    else if (i % 32 == 2)
        snprintf(buf, size, "p%zu.example.net:%zu", i, 1000 + i);
    else
        snprintf(buf, size, "h%zu.w%zu.example.net", i, i - i % 16);
}

/* Line `line` of the duplicates after the 4,096 entries repeats this one. */
static size_t big_repeated(size_t k)
{
    return (k * 41 + 7) % ALLOWLIST_MAX_ENTRIES;
}

static void test_full_list(void **state)
{
    (void)state;
    size_t size = 64 * (ALLOWLIST_MAX_ENTRIES + BIG_DUPLICATES), len = 0;
    char *text = malloc(size), entry[64];
    assert_non_null(text);
    for (size_t i = 0; i < ALLOWLIST_MAX_ENTRIES; i++) {
        big_entry(i, entry, sizeof(entry));
        len += (size_t)snprintf(text + len, size - len, "%s\n", entry);
    }
    for (size_t k = 0; k < BIG_DUPLICATES; k++) {
        big_entry(big_repeated(k), entry, sizeof(entry));
        len += (size_t)snprintf(text + len, size - len, "%s\n", entry);
    }
    allowlist_t *al = parse_ok(text);
    free(text);
    assert_int_equal(al->n_entries, ALLOWLIST_MAX_ENTRIES);

    /* the warnings, in line order: each covered name, then each repetition */
    size_t w = 0;
    char want[256];
    for (size_t i = 0; i < ALLOWLIST_MAX_ENTRIES; i++) {
        if (i % 16 != 1)
            continue;
        snprintf(want, sizeof(want), "hosts:%zu: a.w%zu.test is already covered by .w%zu.test (line %zu)",
                 i + 1, i - 1, i - 1, i);
        assert_true(w < al->n_warnings);
        assert_string_equal(al->warnings[w++], want);
    }
    for (size_t k = 0; k < BIG_DUPLICATES; k++) {
        size_t j = big_repeated(k);
        big_entry(j, entry, sizeof(entry));
        snprintf(want, sizeof(want), "hosts:%zu: %s is already listed on line %zu",
                 ALLOWLIST_MAX_ENTRIES + k + 1, entry, j + 1);
        assert_true(w < al->n_warnings);
        assert_string_equal(al->warnings[w++], want);
    }
    assert_int_equal(al->n_warnings, w);

    /* every entry found where it is, and what covers it */
    for (size_t i = 0; i < ALLOWLIST_MAX_ENTRIES; i++) {
        const allowlist_entry_t *e = &al->entries[i];
        assert_int_equal(e->line, i + 1);
        assert_ptr_equal(allowlist_find(al, e->name, e->wildcard), e);
        assert_null(allowlist_find(al, e->name, !e->wildcard));
        const allowlist_entry_t *cover = allowlist_covering(al, e->name);
        if (i % 16 <= 1)
            assert_ptr_equal(cover, &al->entries[i - i % 16]);
        else
            assert_null(cover);
    }

    /* a merge adds nothing twice; the renderer finds no duplicate */
    allowlist_t *copy = parse_ok("");
    as_error_t *err = NULL;
    assert_int_equal(allowlist_merge(copy, al, &err), 0);
    assert_int_equal(allowlist_merge(copy, al, &err), 0);
    assert_int_equal(copy->n_entries, ALLOWLIST_MAX_ENTRIES);
    char *hosts = NULL;
    assert_int_equal(router_render_hosts(copy, NULL, &hosts, &err), 0);
    assert_non_null(strstr(hosts, "\n127.0.0.2\th4095.w4080.example.net\n"));
    free(hosts);
    /* ... and names the one a list made by hand has twice */
    free(copy->entries[3000].name);
    copy->entries[3000].name = strdup(copy->entries[2999].name);
    assert_int_equal(router_render_hosts(copy, NULL, &hosts, &err), -EINVAL);
    assert_string_equal(err->msg, "allowlist: h2999.w2992.example.net is listed twice");
    as_error_free(&err);
    allowlist_free(copy);
    allowlist_free(al);
}

/* ---- one entry from the command line; changes; the list as text ---- */

static void test_parse_entry(void **state)
{
    (void)state;
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_parse_entry("PyPI.org.", &al, &err), 0);
    assert_int_equal(al->n_entries, 1);
    assert_string_equal(al->entries[0].name, "pypi.org");
    assert_false(al->entries[0].wildcard);
    allowlist_free(al);
    assert_int_equal(allowlist_parse_entry(".example.com", &al, &err), 0);
    assert_true(al->entries[0].wildcard);
    allowlist_free(al);
    assert_int_equal(allowlist_parse_entry("db.example.com:5432", &al, &err), 0);
    assert_int_equal(al->entries[0].n_ports, 1);
    assert_int_equal(al->entries[0].ports[0].port, 5432);
    allowlist_free(al);
    /* the file's warning, without a file or line */
    assert_int_equal(allowlist_parse_entry("web.example.com:443", &al, &err), 0);
    assert_int_equal(al->entries[0].n_ports, 0);
    assert_int_equal(al->n_warnings, 1);
    assert_string_equal(al->warnings[0], "web.example.com:443: ports 80 and 443 are always allowed "
                        "for a listed name; the port is redundant");
    allowlist_free(al);

    /* the file's checks, and their messages without a file or line */
    const struct { const char *in, *msg; } bad[] = {
        { "*.example.com", "`*.example.com`: `*` is not supported; write .example.com" },
        { "1.1.1.1", "`1.1.1.1` is an IP address" },
        { "https://x.example", "`https://x.example` is a URL" },
        { "localhost", "`localhost` is a single-label name" },
        { "x.example:0", "port 0 is out of range" },
        { ".example.com:22", "`.example.com:22`: a port can only follow an exact host name" },
        { "a b.example", "whitespace inside an entry" },
        { "ev\033il.example", "a control character (0x1b)" },
        { "allow-upstream-net 10.0.0.0/8", "allow-upstream-net is a line of the file" },
        { "# x", "expected one host name" },
        { "", "an empty entry" },
        { "a.example\nb.example", "an entry is one line" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        al = NULL;
        assert_int_equal(allowlist_parse_entry(bad[i].in, &al, &err), -EINVAL);
        assert_null(al);
        if (strncmp(err->msg, bad[i].msg, strlen(bad[i].msg)) != 0)
            fail_msg("for `%s`: `%s` does not start `%s`", bad[i].in, err->msg, bad[i].msg);
        as_error_free(&err);
    }
}

static void test_changes_and_format(void **state)
{
    (void)state;
    const char *text = "# a comment\napi.example.com\n.wild.example\ndb.example.com:5433\n"
                       "db.example.com:5432\nallow-upstream-net 10.1.0.0/16\n";
    allowlist_t *al = parse_ok(text);
    char *out = NULL;
    as_error_t *err = NULL;
    assert_int_equal(allowlist_format(al, &out, &err), 0);
    assert_string_equal(out, "api.example.com\n.wild.example\ndb.example.com:5433\n"
                             "db.example.com:5432\nallow-upstream-net 10.1.0.0/16\n");
    /* it parses back to the same list */
    allowlist_t *back = parse_ok(out);
    char *again = NULL;
    assert_int_equal(allowlist_format(back, &again, &err), 0);
    assert_string_equal(again, out);
    free(again);
    free(out);
    allowlist_free(back);

    assert_non_null(allowlist_find(al, "wild.example", true));
    assert_null(allowlist_find(al, "wild.example", false));
    assert_string_equal(allowlist_covering(al, "x.y.wild.example")->name, "wild.example");
    assert_string_equal(allowlist_covering(al, "wild.example")->name, "wild.example");
    assert_null(allowlist_covering(al, "evilwild.example"));
    assert_null(allowlist_covering(al, "api.example.com"));

    allowlist_t *one = NULL;
    assert_int_equal(allowlist_parse_entry("pypi.org", &one, &err), 0);
    assert_int_equal(allowlist_append(al, &one->entries[0], &err), 0);
    assert_int_equal(allowlist_append(al, &one->entries[0], &err), -EEXIST);
    as_error_free(&err);
    allowlist_free(one);
    assert_int_equal(al->n_entries, 4);
    assert_string_equal(al->entries[3].name, "pypi.org");

    assert_true(allowlist_remove(al, "api.example.com", false));
    assert_false(allowlist_remove(al, "api.example.com", false));
    assert_false(allowlist_remove(al, "wild.example", false));
    assert_int_equal(allowlist_format(al, &out, &err), 0);
    assert_string_equal(out, ".wild.example\ndb.example.com:5433\ndb.example.com:5432\npypi.org\n"
                             "allow-upstream-net 10.1.0.0/16\n");
    free(out);
    allowlist_free(al);
}

static void test_name_is_canonical(void **state)
{
    (void)state;
    assert_true(hostname_is_canonical("api.anthropic.com"));
    assert_false(hostname_is_canonical("API.anthropic.com"));
    assert_false(hostname_is_canonical("api.anthropic.com."));
    assert_false(hostname_is_canonical(".anthropic.com"));
    assert_false(hostname_is_canonical("anthropic"));
    assert_false(hostname_is_canonical("1.2.3.4"));
    assert_false(hostname_is_canonical("a.com\n"));
    assert_false(hostname_is_canonical("a.com;"));
    assert_false(hostname_is_canonical(""));
    assert_false(hostname_is_canonical(NULL));
}

/* ---- files ---- */

static char tmpdir[64];

static int setup_tmpdir(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/test_allowlist.XXXXXX");
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int teardown_tmpdir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void test_files(void **state)
{
    (void)state;
    char path[128];
    as_error_t *err = NULL;
    allowlist_t *al = NULL;

    snprintf(path, sizeof(path), "%s/allowed-hosts", tmpdir);
    write_file(path, "api.example.com\n.example.org\n", 29);
    assert_int_equal(allowlist_load(path, &al, &err), 0);
    assert_int_equal(al->n_entries, 2);
    allowlist_free(al);
    al = NULL;

    char *text = NULL;
    size_t len = 0;
    assert_int_equal(allowlist_read_file(path, &text, &len, &err), 0);
    assert_int_equal(len, 29);
    assert_int_equal(text[len], '\0');
    free(text);

    /* A parse error names this file and the line. */
    write_file(path, "api.example.com\nhttps://x.example.org/\n", 39);
    assert_int_equal(allowlist_load(path, &al, &err), -EINVAL);
    assert_null(al);
    char want[160];
    snprintf(want, sizeof(want), "%s:2: ", path);
    assert_memory_equal(err->msg, want, strlen(want));
    as_error_free(&err);

    /* Missing, unreadable and odd files name the path. */
    snprintf(path, sizeof(path), "%s/missing", tmpdir);
    assert_int_equal(allowlist_load(path, &al, &err), -ENOENT);
    assert_non_null(strstr(err->msg, path));
    assert_non_null(strstr(err->msg, "No such file"));
    as_error_free(&err);

    assert_int_equal(allowlist_read_file(tmpdir, &text, &len, &err), -EISDIR);
    assert_non_null(strstr(err->msg, "Is a directory"));
    as_error_free(&err);

    if (geteuid() != 0) {      /* root reads anything */
        snprintf(path, sizeof(path), "%s/unreadable", tmpdir);
        write_file(path, "a.example\n", 10);
        assert_int_equal(chmod(path, 0), 0);
        assert_int_equal(allowlist_load(path, &al, &err), -EACCES);
        assert_non_null(strstr(err->msg, path));
        as_error_free(&err);
    }

    snprintf(path, sizeof(path), "%s/big", tmpdir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, ALLOWLIST_FILE_MAX + 1), 0);
    close(fd);
    assert_int_equal(allowlist_load(path, &al, &err), -EFBIG);
    assert_non_null(strstr(err->msg, "is larger than the limit of 1048576 bytes"));
    as_error_free(&err);

    allowlist_free(NULL);       /* destructors accept NULL */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_comments),
        cmocka_unit_test(test_entries_and_normalisation),
        cmocka_unit_test(test_comment_rule),
        cmocka_unit_test(test_no_final_newline_and_limits),
        cmocka_unit_test(test_upstream_nets),
        cmocka_unit_test(test_upstream_net_refused_is_not_public),
        cmocka_unit_test(test_errors_wildcards_and_urls),
        cmocka_unit_test(test_errors_ip_literals),
        cmocka_unit_test(test_errors_ports),
        cmocka_unit_test(test_errors_names),
        cmocka_unit_test(test_errors_directive),
        cmocka_unit_test(test_errors_file_level),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_full_list),
        cmocka_unit_test(test_parse_entry),
        cmocka_unit_test(test_changes_and_format),
        cmocka_unit_test(test_name_is_canonical),
        cmocka_unit_test_setup_teardown(test_files, setup_tmpdir, teardown_tmpdir),
    };
    return cmocka_run_group_tests_name("allowlist", tests, NULL, NULL);
}
