#include "resource_limits.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "util.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

void limits_defaults(limits_t *ret)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    ret->memory_bytes = pages > 0 && size > 0 ? (long long)pages * size / 4 * 3 : 0;
    ret->pids = 4096;
    ret->cpu_millis = 0;
}

static bool is_none(const char *s)
{
    return strcmp(s, "none") == 0;
}

int limits_parse_memory(const char *s, const char *what, long long *ret, as_error_t **err)
{
    if (is_none(s)) {
        *ret = 0;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno != 0 || !isdigit((unsigned char)s[0]))
        goto bad;
    unsigned long long mult = 1;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'k': mult = 1ULL << 10; end++; break;
    case 'm': mult = 1ULL << 20; end++; break;
    case 'g': mult = 1ULL << 30; end++; break;
    case 't': mult = 1ULL << 40; end++; break;
    default: goto bad;
    }
    if (*end == 'i' || *end == 'I')
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || v == 0 || v > (1ULL << 50) / mult)
        goto bad;
    if (v * mult < (64ULL << 20))
        return as_error_make(err, EINVAL, "%s: %s is below the 64M a session needs", what, s);
    *ret = (long long)(v * mult);
    return 0;
bad:
    return as_error_make(err, EINVAL, "%s: \"%s\" is not a size such as 512M or 8G, or none", what, s);
}

int limits_parse_pids(const char *s, const char *what, long long *ret, as_error_t **err)
{
    if (is_none(s)) {
        *ret = 0;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || !isdigit((unsigned char)s[0]))
        return as_error_make(err, EINVAL, "%s: \"%s\" is not a number of processes, or none", what, s);
    if (v < 64 || v > 4194304)
        return as_error_make(err, EINVAL, "%s: %lld is outside 64 to 4194304", what, v);
    *ret = v;
    return 0;
}

int limits_parse_cpus(const char *s, const char *what, long long *ret, as_error_t **err)
{
    if (is_none(s)) {
        *ret = 0;
        return 0;
    }
    /* digits, optionally a dot and up to three more digits */
    long long whole = 0, frac = 0;
    const char *c = s;
    int digits = 0, fdigits = 0;
    for (; isdigit((unsigned char)*c) && digits < 6; c++, digits++)
        whole = whole * 10 + (*c - '0');
    if (*c == '.') {
        for (c++; isdigit((unsigned char)*c) && fdigits < 3; c++, fdigits++)
            frac = frac * 10 + (*c - '0');
        for (int k = fdigits; k < 3; k++)
            frac *= 10;
    }
    long long millis = whole * 1000 + frac;
    if (digits == 0 || *c != '\0' || millis < 10)
        return as_error_make(err, EINVAL, "%s: \"%s\" is not a number of CPUs such as 2 or 0.5, or none",
                             what, s);
    *ret = millis;
    return 0;
}

int limits_parse_file(const char *filename, const char *text, limits_t *lim, as_error_t **err)
{
    unsigned line_no = 0;
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        line_no++;
        char buf[256];
        if (len >= sizeof(buf))
            return as_error_make(err, EINVAL, "%s:%u: line too long", filename, line_no);
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = end ? end + 1 : NULL;
        char *hash = strchr(buf, '#');
        if (hash != NULL)
            *hash = '\0';
        char key[32], value[64], extra[8];
        int n = sscanf(buf, " %31s %63s %7s", key, value, extra);
        if (n <= 0)
            continue;
        if (n != 2)
            return as_error_make(err, EINVAL, "%s:%u: expected \"NAME VALUE\" (memory, pids or cpus)",
                                 filename, line_no);
        char what[300];
        snprintf(what, sizeof(what), "%s:%u: %s", filename, line_no, key);
        int r;
        if (strcmp(key, "memory") == 0)
            r = limits_parse_memory(value, what, &lim->memory_bytes, err);
        else if (strcmp(key, "pids") == 0)
            r = limits_parse_pids(value, what, &lim->pids, err);
        else if (strcmp(key, "cpus") == 0)
            r = limits_parse_cpus(value, what, &lim->cpu_millis, err);
        else
            r = as_error_make(err, EINVAL, "%s:%u: unknown limit \"%s\" (memory, pids or cpus)",
                              filename, line_no, key);
        if (r < 0)
            return r;
    }
    return 0;
}

static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
            return true;
    return false;
}

void cgroup_caps_detect(cgroup_caps_t *ret)
{
    *ret = (cgroup_caps_t){0};
    struct statfs fs;
    if (statfs("/sys/fs/cgroup", &fs) < 0 || fs.f_type != CGROUP2_SUPER_MAGIC)
        return;
    ret->v2 = true;
    /* what systemd delegates to the user's manager, as podman finds it */
    char path[128], buf[512] = "";
    unsigned uid = (unsigned)getuid();
    snprintf(path, sizeof(path), "/sys/fs/cgroup/user.slice/user-%u.slice/user@%u.service/cgroup.controllers",
             uid, uid);
    _cleanup_fclose_ FILE *f = fopen(path, "re");
    if (f == NULL || fgets(buf, sizeof(buf), f) == NULL)
        return;
    ret->memory = has_word(buf, "memory");
    ret->pids = has_word(buf, "pids");
    ret->cpu = has_word(buf, "cpu");
}

char *limits_unapplied(const limits_t *lim, const cgroup_caps_t *caps, const char *limits_file)
{
    char missing[64] = "";
    if (lim->memory_bytes > 0 && !caps->memory)
        strcat(missing, missing[0] ? " and memory" : "memory");
    if (lim->cpu_millis > 0 && !caps->cpu)
        strcat(missing, missing[0] ? " and CPU" : "CPU");
    if (missing[0] == '\0')
        return NULL;
    char *text = NULL;
    if (asprintf(&text, "the %s limit%s cannot be applied: %s; the process limit (%lld) applies as "
                 "RLIMIT_NPROC. Set `%s none` in %s to silence this.",
                 missing, strchr(missing, ' ') ? "s" : "",
                 caps->v2 ? "this host does not delegate the cgroup controller to your user"
                          : "rootless podman has no cgroup controllers on a cgroup v1 host",
                 lim->pids, lim->memory_bytes > 0 && !caps->memory ? "memory" : "cpus", limits_file) < 0)
        return NULL;
    return text;
}
