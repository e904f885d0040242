/* One round of bench/allowlist.sh: parses an allowed-hosts file of N
 * entries (ALLOWLIST_MAX_ENTRIES by default; a wildcard every 16 lines,
 * the line after it a name it covers, every 32nd a name with a port, 100
 * repeated lines at the end) and renders every router file of it, and
 * prints "PARSE_MS RENDER_MS". Built against a tree's libagentsandbox.a:
 *
 *   allowlist-time [N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/allowlist.h"
#include "egress/router_render.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static size_t put_entry(char *buf, size_t size, size_t i)
{
    int n;
    if (i % 16 == 0)
        n = snprintf(buf, size, ".w%zu.test\n", i);
    else if (i % 16 == 1)
        n = snprintf(buf, size, "a.w%zu.test\n", i - 1);
    else if (i % 32 == 2)
        n = snprintf(buf, size, "p%zu.example.net:%zu\n", i, 1000 + i);
    else
        n = snprintf(buf, size, "h%zu.w%zu.example.net\n", i, i - i % 16);
    return n > 0 ? (size_t)n : 0;
}

static void die(const char *what, as_error_t **err)
{
    fprintf(stderr, "allowlist-time: %s: %s\n", what, *err != NULL ? (*err)->msg : "?");
    exit(1);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : ALLOWLIST_MAX_ENTRIES;
    size_t size = 64 * (n + 100), len = 0;
    char *text = malloc(size);
    if (text == NULL)
        return 1;
    for (size_t i = 0; i < n; i++)
        len += put_entry(text + len, size - len, i);
    for (size_t k = 0; k < 100 && n > 0; k++)
        len += put_entry(text + len, size - len, (k * 41 + 7) % n);

    as_error_t *err = NULL;
    allowlist_t *al = NULL;
    double t0 = now_ms();
    if (allowlist_parse("bench", text, len, &al, &err) < 0)
        die("parsing", &err);
    double t1 = now_ms();

    const router_layout_t layout = {
        .router_ip = "10.89.3.2", .dns_port = 53, .http_port = 80, .https_port = 443,
        .forward_port_base = 20000, .resolver_ip = "10.89.4.1", .resolver_port = 53,
        .nginx_run_dir = "/run/nginx", .nginx_error_log = "/var/log/error.log",
        .nginx_access_log = "/var/log/egress.log", .dnsmasq_log = "-",
        .dnsmasq_hosts = "/etc/router/hosts", .dnsmasq_servers = "/etc/router/wildcards",
    };
    char *out[5] = { NULL };
    router_forward_t *fw = NULL;
    size_t n_fw = 0;
    double t2 = now_ms();
    if (router_render_nginx(al, &layout, &out[0], &err) < 0 ||
        router_render_dnsmasq(al, &layout, &out[1], &err) < 0 ||
        router_render_hosts(al, &out[2], &err) < 0 ||
        router_render_dns_hosts(al, &out[3], &err) < 0 ||
        router_render_dns_wildcards(al, &out[4], &err) < 0 ||
        router_forwards(al, &layout, &fw, &n_fw, &err) < 0)
        die("rendering", &err);
    double t3 = now_ms();
    printf("%.3f %.3f\n", t1 - t0, t3 - t2);
    for (size_t i = 0; i < 5; i++)
        free(out[i]);
    free(fw);
    allowlist_free(al);
    free(text);
    return 0;
}
