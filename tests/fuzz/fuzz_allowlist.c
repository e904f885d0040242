/* libFuzzer target for the allowlist parser and, on every list it accepts,
 * the renderers: whatever the bytes, parsing either fails with a
 * "file:line: " message or yields only canonical names that every renderer
 * accepts. Built and run by `make fuzz` (mk/fuzz.mk). */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "config/allowlist.h"
#include "egress/router_render.h"

static const router_layout_t layout = {
    .router_ip = "10.89.3.2",
    .resolver_ip = "10.89.4.1",
    .nginx_run_dir = "/run/nginx",
    .nginx_error_log = "/log/error.log",
    .nginx_access_log = "/log/access.log",
    .dnsmasq_log = "-",
    .dnsmasq_hosts = "/etc/agent-sandbox-router/hosts",
    .dnsmasq_servers = "/etc/agent-sandbox-router/wildcards",
    .session_id = "0123456789ab",
};

/* Nothing but the characters a rendered config is made of. */
static void check_text(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++)
        CHECK(*c == '\n' || *c == '\t' || (*c >= 0x20 && *c < 0x7f));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    int r = allowlist_parse("fuzz", (const char *)data, size, &al, &err);
    if (r < 0) {
        CHECK(al == NULL);
        CHECK(err != NULL && err->msg != NULL);
        CHECK(strncmp(err->msg, "fuzz:", 5) == 0 || r == -ENOMEM);
        as_error_free(&err);
        return 0;
    }
    CHECK(err == NULL && al != NULL);

    for (size_t i = 0; i < al->n_entries; i++) {
        const allowlist_entry_t *e = &al->entries[i];
        CHECK(hostname_is_canonical(e->name));
        for (size_t k = 0; k < i; k++)       /* one entry per (name, form) */
            CHECK(al->entries[k].wildcard != e->wildcard || strcmp(al->entries[k].name, e->name) != 0);
        CHECK(!e->wildcard || e->n_ports == 0);
        for (size_t j = 0; j < e->n_ports; j++)
            CHECK(e->ports[j].port != 0 && e->ports[j].port != 80 && e->ports[j].port != 443);
    }
    for (size_t i = 0; i < al->n_nets; i++) {
        CHECK(al->nets[i].net.prefix <= 32);
        CHECK((al->nets[i].net.addr & ~ipv4_prefix_mask(al->nets[i].net.prefix)) == 0);
    }
    for (size_t i = 0; i < al->n_warnings; i++)
        CHECK(strncmp(al->warnings[i], "fuzz:", 5) == 0);

    char *text = NULL;
    r = router_render_dnsmasq(al, &layout, &text, &err);
    CHECK(r == 0 || r == -E2BIG);
    if (r == 0) {
        check_text(text);
        free(text);
    } else {
        as_error_free(&err);
    }
    r = router_render_nginx(al, &layout, &text, &err);
    CHECK(r == 0 || r == -E2BIG);
    if (r == 0) {
        check_text(text);
        free(text);
    } else {
        as_error_free(&err);
    }
    CHECK(router_render_hosts(al, "sandbox", &text, &err) == 0);
    check_text(text);
    free(text);
    CHECK(router_render_dns_hosts(al, &text, &err) == 0);
    check_text(text);
    free(text);
    CHECK(router_render_dns_wildcards(al, &text, &err) == 0);
    check_text(text);
    free(text);
    CHECK(allowlist_format(al, &text, &err) == 0);
    check_text(text);
    free(text);

    allowlist_free(al);
    return 0;
}
