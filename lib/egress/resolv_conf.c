#include "resolv_conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

int resolv_conf_first_ipv4(const char *text, char ret[16], as_error_t **err)
{
    (void)err;
    const char *line = text;
    while (line != NULL && *line != '\0') {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        char buf[256];
        if (len < sizeof(buf)) {
            memcpy(buf, line, len);
            buf[len] = '\0';
            char word[32], addr[64];
            struct in_addr a;
            if (sscanf(buf, " %31s %63s", word, addr) == 2 && strcmp(word, "nameserver") == 0 &&
                inet_pton(AF_INET, addr, &a) == 1 && (ntohl(a.s_addr) >> 24) != 127 &&
                a.s_addr != 0) {
                inet_ntop(AF_INET, &a, ret, 16);
                return 0;
            }
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return -ENOENT;
}

static int from_file(const char *path, char ret[16])
{
    _cleanup_fclose_ FILE *f = fopen(path, "re");
    if (f == NULL)
        return -errno;
    char text[16384];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    return resolv_conf_first_ipv4(text, ret, NULL);
}

int resolv_conf_host_resolver(char ret[16], as_error_t **err)
{
    if (from_file("/etc/resolv.conf", ret) == 0 ||
        from_file("/run/systemd/resolve/resolv.conf", ret) == 0)
        return 0;
    return as_error_make(err, ENOENT,
                         "found no IPv4 resolver the router can use in /etc/resolv.conf "
                         "(nor in /run/systemd/resolve/resolv.conf); set AGENT_SANDBOX_RESOLVER "
                         "to the address of one");
}
