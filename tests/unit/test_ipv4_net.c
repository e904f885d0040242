/* ipv4_net: strict parsing and formatting of IPv4 networks, overlaps, and
 * the one table of refused upstream ranges, checked against the table in
 * docs/allowlist.md so that the two cannot drift apart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ipv4_net.h"

static ipv4_net_t parsed(const char *s)
{
    ipv4_net_t net;
    if (!ipv4_net_parse(s, strlen(s), &net))
        fail_msg("`%s` did not parse", s);
    return net;
}

static void parse_and_format(void **state)
{
    (void)state;
    char buf[IPV4_NET_TEXT_MAX];
    static const char *const good[] = { "10.1.0.0/16", "0.0.0.0/0", "255.255.255.255/32",
                                        "192.168.5.7/32", "1.2.3.4/0", NULL };
    for (size_t i = 0; good[i] != NULL; i++) {
        ipv4_net_format(parsed(good[i]), buf, sizeof(buf));
        assert_string_equal(buf, good[i]);
    }
    ipv4_net_format(parsed("192.168.5.7"), buf, sizeof(buf));
    assert_string_equal(buf, "192.168.5.7/32");          /* a bare address is /32 */
    assert_int_equal(strlen("255.255.255.255/32") + 1, IPV4_NET_TEXT_MAX);

    static const char *const bad[] = { "", "10.1.0", "10.1.0.0.0", "010.1.0.0", "10.1.0.256",
                                       "0x0a.1.0.0", "10.1.0.0/", "10.1.0.0/33", "10.1.0.0/08",
                                       "10.1.0.0/16/1", "-1.0.0.0", "10..0.0", "127.1",
                                       "2130706433", " 10.0.0.0", NULL };
    ipv4_net_t net;
    for (size_t i = 0; bad[i] != NULL; i++)
        if (ipv4_net_parse(bad[i], strlen(bad[i]), &net))
            fail_msg("`%s` parsed", bad[i]);
    /* host bits are the caller's question */
    net = parsed("10.20.1.0/16");
    assert_int_equal(net.addr & ~ipv4_prefix_mask(net.prefix), 0x0100u);
    assert_int_equal(ipv4_prefix_mask(0), 0);
    assert_int_equal(ipv4_prefix_mask(32), 0xffffffffu);
}

static void overlaps(void **state)
{
    (void)state;
    assert_true(ipv4_nets_overlap(parsed("10.0.0.0/8"), parsed("10.20.0.0/16")));
    assert_true(ipv4_nets_overlap(parsed("10.20.0.0/16"), parsed("10.0.0.0/8")));
    assert_false(ipv4_nets_overlap(parsed("10.0.0.0/8"), parsed("11.0.0.0/8")));
    assert_true(ipv4_nets_overlap(parsed("0.0.0.0/0"), parsed("8.8.8.8")));
    assert_true(refused_ranges_overlap(parsed("198.51.100.10")));
    assert_true(refused_ranges_overlap(parsed("198.18.0.0/15")));
    assert_true(refused_ranges_overlap(parsed("224.0.0.0/4")));
    assert_true(refused_ranges_overlap(parsed("8.0.0.0/4")));      /* holds 10.0.0.0/8 */
    assert_false(refused_ranges_overlap(parsed("8.8.8.0/24")));
    assert_false(refused_ranges_overlap(parsed("198.20.0.0/16")));
}

/* In address order, without overlaps, host bits zero, each with a reason. */
static void refused_table_is_sound(void **state)
{
    (void)state;
    size_t n = 0;
    const refused_range_t *r = refused_ranges(&n);
    assert_true(n >= 14);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].net.addr & ~ipv4_prefix_mask(r[i].net.prefix), 0);
        assert_non_null(r[i].why);
        assert_true(strlen(r[i].why) > 0 && strchr(r[i].why, '|') == NULL);
        if (i > 0) {
            assert_true(r[i - 1].net.addr < r[i].net.addr);
            assert_false(ipv4_nets_overlap(r[i - 1].net, r[i].net));
        }
    }
}

static char *read_doc(const char *name)
{
    const char *slash = strrchr(__FILE__, '/');
    char *path = NULL;
    assert_true(asprintf(&path, "%.*s/../../docs/%s", slash != NULL ? (int)(slash - __FILE__) : 1,
                         slash != NULL ? __FILE__ : ".", name) > 0);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    free(path);
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t len = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    assert_true(len > 0);
    return text;
}

/* docs/allowlist.md lists, after "Refused by default", a table with one row
 * `| \`a.b.c.d/p\` | why |` per range: the same ranges, reasons and order. */
static void docs_list_the_refused_table(void **state)
{
    (void)state;
    char *doc = read_doc("allowlist.md");
    char *p = strstr(doc, "Refused by default");
    assert_non_null(p);
    p = strstr(p, "| --- | --- |\n");
    assert_non_null(p);
    p += strlen("| --- | --- |\n");

    size_t n = 0;
    const refused_range_t *r = refused_ranges(&n);
    size_t row = 0;
    for (char *line = p; line[0] == '|'; row++) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        *end = '\0';
        if (row >= n)
            fail_msg("docs/allowlist.md lists more refused ranges than lib/config/ipv4_net.c: %s", line);
        char want[160], net[IPV4_NET_TEXT_MAX];
        ipv4_net_format(r[row].net, net, sizeof(net));
        snprintf(want, sizeof(want), "| `%s` | %s |", net, r[row].why);
        if (strcmp(line, want) != 0)
            fail_msg("docs/allowlist.md row %zu:\n  doc:  %s\n  code: %s", row + 1, line, want);
        line = end + 1;
    }
    if (row != n)
        fail_msg("docs/allowlist.md lists %zu refused ranges, lib/config/ipv4_net.c %zu", row, n);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_and_format),
        cmocka_unit_test(overlaps),
        cmocka_unit_test(refused_table_is_sound),
        cmocka_unit_test(docs_list_the_refused_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
