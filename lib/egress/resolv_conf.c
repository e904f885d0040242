#include "resolv_conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_read.h"
#include "base/util.h"

/* Far more than any resolv.conf: glibc reads at most 3 nameservers, but
 * comments and search lists can make a file long. */
#define RESOLV_CONF_MAX (1024 * 1024)

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

int resolv_conf_file_ipv4(const char *path, char ret[16], as_error_t **err)
{
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    as_error_t *read_err = NULL;
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, RESOLV_CONF_MAX, &text, &len, &read_err);
    if (r < 0) {
        if (err == NULL) {
            as_error_free(&read_err);
            return r;
        }
        *err = read_err;
        return config_error_name(err, "", path);
    }
    return resolv_conf_first_ipv4(text, ret, err);
}

int resolv_conf_host_resolver(char ret[16], as_error_t **err)
{
    if (resolv_conf_file_ipv4("/etc/resolv.conf", ret, NULL) == 0 ||
        resolv_conf_file_ipv4("/run/systemd/resolve/resolv.conf", ret, NULL) == 0)
        return 0;
    return as_error_make(err, ENOENT,
                         "found no IPv4 resolver the router can use in /etc/resolv.conf "
                         "(nor in /run/systemd/resolve/resolv.conf); set AGENT_SANDBOX_RESOLVER "
                         "to the address of one");
}
