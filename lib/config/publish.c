#include "publish.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "base/decimal.h"
#include "base/escape.h"
#include "base/util.h"

/* 1-65535 in plain decimal. */
static bool port_parse(const char *s, size_t len, uint16_t *ret)
{
    unsigned v;
    if (!decimal_parse(s, len, 65535, &v) || v == 0)
        return false;
    *ret = (uint16_t)v;
    return true;
}

int publish_parse(const char *spec, publish_t *ret, as_error_t **err)
{
    _cleanup_free_ char *shown = path_escaped(spec);
    const char *colon = strchr(spec, ':');
    publish_t p;
    bool ok = colon == NULL
                  ? port_parse(spec, strlen(spec), &p.port)
                  : port_parse(spec, (size_t)(colon - spec), &p.host_port) &&
                        port_parse(colon + 1, strlen(colon + 1), &p.port);
    if (!ok)
        return as_error_make(err, EINVAL, "\"%s\" is not [HOSTPORT:]PORT with ports from 1 to 65535",
                             shown ? shown : "");
    if (colon == NULL)
        p.host_port = p.port;
    if (p.port >= PUBLISH_RELAY_PORT_BASE && p.port < PUBLISH_RELAY_PORT_BASE + PUBLISH_MAX)
        return as_error_make(err, EINVAL, "port %u in the sandbox is one of the relay's own (%d-%d); "
                             "let the server listen on another", p.port, PUBLISH_RELAY_PORT_BASE,
                             PUBLISH_RELAY_PORT_BASE + PUBLISH_MAX - 1);
    *ret = p;
    return 0;
}

int publish_list_check(const publish_t *v, size_t n, as_error_t **err)
{
    if (n > PUBLISH_MAX)
        return as_error_make(err, E2BIG, "at most %d ports can be published, not %zu", PUBLISH_MAX, n);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < i; k++)
            if (v[k].host_port == v[i].host_port)
                return as_error_make(err, EINVAL, "host port %u is published twice (to %u and %u)",
                                     v[i].host_port, v[k].port, v[i].port);
    return 0;
}

int publish_host_port_check(const publish_t *p, as_error_t **err)
{
    uint16_t host_port = p->host_port;
    _cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return as_error_errno(err, errno, "checking host port %u: socket", host_port);
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
        return as_error_errno(err, errno, "checking host port %u: SO_REUSEADDR", host_port);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(host_port) };
    inet_pton(AF_INET, PUBLISH_HOST_IP, &a.sin_addr);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
        return 0;
    int e = errno;
    if (e == EADDRINUSE)
        return as_error_make(err, EADDRINUSE, "port %u on " PUBLISH_HOST_IP " is in use by another "
                             "program; choose another host port (--publish HOSTPORT:%u)", host_port,
                             p->port);
    if (e == EACCES)
        return as_error_make(err, EACCES, "port %u on " PUBLISH_HOST_IP " needs privileges this user "
                             "lacks (ports below net.ipv4.ip_unprivileged_port_start, usually 1024); "
                             "pick a higher HOSTPORT", host_port);
    return as_error_errno(err, e, "checking port %u on " PUBLISH_HOST_IP, host_port);
}
