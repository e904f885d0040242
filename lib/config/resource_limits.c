#include "resource_limits.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/config_lines.h"
#include "base/util.h"

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

/* One "NAME VALUE" line onto *lim. */
static int parse_limit_line(const config_lines_t *it, const config_line_t *line, void *ctx,
                            as_error_t **err)
{
    limits_t *lim = ctx;
    if (line->problem != NULL)
        return config_line_error(it, line, err, "%s", line->problem);
    config_word_t w[2];
    if (config_line_words(line, w, 2) != 2)
        return config_line_error(it, line, err, "expected \"NAME VALUE\" (memory, pids or cpus)");
    const struct {
        const char *name;
        int (*parse)(const char *s, const char *what, long long *ret, as_error_t **err);
        long long *slot;
    } limits[] = {
        { "memory", limits_parse_memory, &lim->memory_bytes },
        { "pids", limits_parse_pids, &lim->pids },
        { "cpus", limits_parse_cpus, &lim->cpu_millis },
    };
    for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
        if (w[0].len != strlen(limits[i].name) || memcmp(w[0].text, limits[i].name, w[0].len) != 0)
            continue;
        _cleanup_free_ char *value = strndup(w[1].text, w[1].len);
        _cleanup_free_ char *what = NULL;
        if (value == NULL || asprintf(&what, "%s:%u: %s", it->file, line->number, limits[i].name) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        return limits[i].parse(value, what, limits[i].slot, err);
    }
    return config_line_error(it, line, err, "unknown limit \"%.*s\" (memory, pids or cpus)",
                             (int)(w[0].len < 64 ? w[0].len : 64), w[0].text);
}

int limits_parse_file(const char *filename, const char *text, size_t len, limits_t *lim,
                      as_error_t **err)
{
    return config_lines_each(filename, text, len, parse_limit_line, lim, err);
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
