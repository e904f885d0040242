#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/msg.h"
#include "base/strv.h"
#include "base/util.h"

static const char probe_script[] =
#include "verify_probe.inc"
    ;

const char *verify_probe_script(void)
{
    return probe_script;
}

/* The probe output, split into records of tab-separated fields. */
typedef struct {
    char **fields;     /* fields[0] is the kind */
    size_t n;
} record_t;

typedef struct {
    record_t *recs;
    size_t n;
    char *buf;
} records_t;

static void records_free(records_t *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->recs[i].fields);
    free(r->recs);
    free(r->buf);
}

static int records_parse(const char *output, records_t *ret)
{
    records_t r = {0};
    if ((r.buf = strdup(output)) == NULL)
        return -ENOMEM;
    size_t cap = 0;
    for (char *line = r.buf, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        size_t nf = 1;
        for (char *c = line; *c; c++)
            nf += *c == '\t';
        char **fields = calloc(nf + 1, sizeof(char *));
        if (fields == NULL)
            goto oom;
        size_t k = 0;
        for (char *f = line, *t; f != NULL; f = t) {
            t = strchr(f, '\t');
            if (t != NULL)
                *t++ = '\0';
            fields[k++] = f;
        }
        if (r.n == cap) {
            cap = cap ? cap * 2 : 256;
            record_t *recs = realloc(r.recs, cap * sizeof(record_t));
            if (recs == NULL) {
                free(fields);
                goto oom;
            }
            r.recs = recs;
        }
        r.recs[r.n++] = (record_t){ fields, k };
    }
    *ret = r;
    return 0;
oom:
    records_free(&r);
    return -ENOMEM;
}

static const record_t *find_net(const records_t *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->recs[i].n >= 4 && strcmp(r->recs[i].fields[0], "NET") == 0 &&
            strcmp(r->recs[i].fields[1], id) == 0)
            return &r->recs[i];
    return NULL;
}

typedef struct {
    verify_result_t *results;
    size_t n, cap;
    bool oom;
} builder_t;

static void add(builder_t *b, const char *id, const char *property, verify_status_t status,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add(builder_t *b, const char *id, const char *property, verify_status_t status,
                const char *fmt, ...)
{
    if (b->oom)
        return;
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        verify_result_t *r = realloc(b->results, cap * sizeof(*r));
        if (r == NULL) {
            b->oom = true;
            return;
        }
        b->results = r;
        b->cap = cap;
    }
    char *evidence = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&evidence, fmt, ap) < 0) {
        b->oom = true;
        va_end(ap);
        return;
    }
    va_end(ap);
    /* evidence is one line of printable ASCII, whatever the probe saw */
    for (char *c = evidence; *c; c++)
        if (*c == '\n' || *c == '\t')
            *c = ' ';
        else if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            *c = '?';
    b->results[b->n++] = (verify_result_t){ id, property, status, evidence };
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* File systems that hold no host files; overlay is the image's root. */
static bool virtual_fs(const char *type)
{
    static const char *const v[] = { "proc", "sysfs", "tmpfs", "devpts", "mqueue", "cgroup",
                                     "cgroup2", "overlay", "shm", "devtmpfs", "fuse-overlayfs",
                                     "fuse.fuse-overlayfs", "nsfs", "bpf", NULL };
    return strv_contains((char *const *)v, type);
}

static void judge_mounts(builder_t *b, const records_t *r, const verify_expect_t *x)
{
    static const char *const podman_files[] = { "/etc/hostname", "/run/.containerenv",
                                                "/run/podman-init", NULL };
    static const char *const devices[] = { "/null", "/zero", "/full", "/tty", "/random", "/urandom",
                                           "/fuse", "/net/tun", NULL };
    msg_t mb, ms;
    if (msg_open(&mb, NULL) < 0 || msg_open(&ms, NULL) < 0) {
        msg_discard(&mb);
        b->oom = true;
        return;
    }
    FILE *fb = mb.f, *fs = ms.f;
    size_t n_bad = 0, n_host = 0;
    for (size_t i = 0; i < r->n; i++) {
        const record_t *m = &r->recs[i];
        if (m->n < 6 || strcmp(m->fields[0], "MOUNT") != 0)
            continue;
        const char *root = m->fields[1], *point = m->fields[2], *opts = m->fields[3], *type = m->fields[4];
        bool ok;
        if (strcmp(type, "devtmpfs") == 0)
            ok = strv_contains((char *const *)devices, root);
        else if (virtual_fs(type))
            continue;
        else
            ok = under(point, x->workdir) || strv_contains((char *const *)podman_files, point) ||
                 strv_contains(x->extra_mountpoints, point);
        if (strcmp(type, "devtmpfs") != 0) {
            fprintf(fs, "%s%s (%.2s)", n_host++ ? ", " : "", point, opts);
        }
        if (!ok)
            fprintf(fb, "%s%s from %s:%s", n_bad++ ? ", " : "", point, type, root);
    }
    _cleanup_free_ char *bad = NULL, *seen = NULL;
    int rb = msg_close(&mb, &bad, NULL), rs = msg_close(&ms, &seen, NULL);
    if (rb < 0 || rs < 0) {
        b->oom = true;
        return;
    }
    if (n_bad > 0)
        add(b, "mounts", "only the launch directory is mounted from the host", VERIFY_FAIL,
            "unexpected host mounts: %s", bad);
    else
        add(b, "mounts", "only the launch directory is mounted from the host", VERIFY_PASS,
            "host mounts: %s", seen);
}

static void judge_privileges(builder_t *b, const records_t *r)
{
    char caps[256] = "";
    size_t len = 0;
    bool zero = true, nnp = false, found = false;
    for (size_t i = 0; i < r->n; i++) {
        const record_t *s = &r->recs[i];
        if (s->n < 3 || strcmp(s->fields[0], "STATUS") != 0)
            continue;
        found = true;
        if (strcmp(s->fields[1], "NoNewPrivs") == 0)
            nnp = strcmp(s->fields[2], "1") == 0;
        else if (strspn(s->fields[2], "0") != strlen(s->fields[2]))
            zero = false;
        len += (size_t)snprintf(caps + len, len < sizeof(caps) ? sizeof(caps) - len : 0, "%s%s=%s",
                                len ? " " : "", s->fields[1], s->fields[2]);
        if (len >= sizeof(caps))
            len = sizeof(caps) - 1;
    }
    add(b, "privileges", "no capabilities, and no new privileges", found && zero && nnp ? VERIFY_PASS : VERIFY_FAIL,
        "%s", found ? caps : "no status read");

    size_t n = 0;
    const char *first = NULL;
    for (size_t i = 0; i < r->n; i++)
        if (r->recs[i].n >= 2 && strcmp(r->recs[i].fields[0], "SETUID") == 0 && n++ == 0)
            first = r->recs[i].fields[1];
    add(b, "setuid", "no setuid or setgid programs", n == 0 ? VERIFY_PASS : VERIFY_FAIL,
        n == 0 ? "find / -xdev -perm /6000: none" : "%zu found, first %s", n, first);
}

static void judge_environment(builder_t *b, const records_t *r, const char *output,
                              const verify_expect_t *x)
{
    /* names podman, the image or the shell set inside whatever the host has */
    static const char *const generic[] = { "PATH", "HOME", "HOSTNAME", "TERM", "PWD", "OLDPWD",
                                           "SHLVL", "_", "container", NULL };
    const char *leak = NULL;
    for (size_t i = 0; leak == NULL && x->host_env != NULL && x->host_env[i] != NULL; i++) {
        const char *e = x->host_env[i];
        const char *eq = strchr(e, '=');
        if (eq == NULL || eq == e)
            continue;
        _cleanup_free_ char *name = strndup(e, (size_t)(eq - e));
        if (name == NULL || strv_contains((char *const *)generic, name) || strv_contains(x->passed_env, e))
            continue;
        for (size_t k = 0; k < r->n; k++)
            if (r->recs[k].n >= 2 && strcmp(r->recs[k].fields[0], "ENV") == 0 &&
                strcmp(r->recs[k].fields[1], e) == 0) {
                leak = e;
                break;
            }
    }
    bool secret_seen = x->secret != NULL && x->secret[0] != '\0' && strstr(output, x->secret) != NULL;
    if (secret_seen)
        add(b, "environment", "no host environment variable is visible unless passed", VERIFY_FAIL,
            "the CLI's secret value is visible inside");
    else if (leak != NULL)
        add(b, "environment", "no host environment variable is visible unless passed", VERIFY_FAIL,
            "%.*s is visible inside with the host's value", (int)strcspn(leak, "="), leak);
    else
        add(b, "environment", "no host environment variable is visible unless passed", VERIFY_PASS,
            "searched every process's environment for the host's variables and a secret");
}

static void judge_sockets(builder_t *b, const records_t *r, const verify_expect_t *x)
{
    const char *sock = NULL, *present = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const record_t *s = &r->recs[i];
        if (s->n >= 2 && strcmp(s->fields[0], "SOCKET") == 0 && !under(s->fields[1], x->workdir) && sock == NULL)
            sock = s->fields[1];
        if (s->n >= 2 && strcmp(s->fields[0], "PRESENT") == 0 && present == NULL)
            present = s->fields[1];
    }
    if (sock != NULL || present != NULL)
        add(b, "host-sockets", "no host sockets, agents, keys or runtime directory inside", VERIFY_FAIL,
            "%s%s%s%s", sock ? "socket " : "", sock ? sock : "", present ? " present: " : "",
            present ? present : "");
    else
        add(b, "host-sockets", "no host sockets, agents, keys or runtime directory inside", VERIFY_PASS,
            "no socket outside the launch directory; no /run/user, X11, D-Bus, podman socket, ~/.ssh, ~/.gnupg");
}

/* PASS when the probe command failed (the thing must not work). */
static void expect_failure(builder_t *b, const records_t *r, const char *id, const char *net_id,
                           const char *property)
{
    const record_t *n = find_net(r, net_id);
    if (n == NULL) {
        add(b, id, property, VERIFY_FAIL, "probe %s did not run", net_id);
        return;
    }
    bool failed = strcmp(n->fields[2], "0") != 0;
    add(b, id, property, failed ? VERIFY_PASS : VERIFY_FAIL, "%s: exit %s%s%s", net_id, n->fields[2],
        n->fields[3][0] ? ", " : "", n->fields[3]);
}

static void judge_network(builder_t *b, const records_t *r, const verify_expect_t *x)
{
    expect_failure(b, r, "dns", "dns-denied", "a name off the allowlist gets no answer");
    expect_failure(b, r, "direct-ip", "ip-egress", "direct IP egress fails");
    const record_t *g80 = find_net(r, "gateway-80"), *g53 = find_net(r, "gateway-53");
    bool gw_ok = g80 != NULL && strcmp(g80->fields[2], "0") != 0 &&
                 (g53 == NULL || strcmp(g53->fields[2], "0") != 0);
    add(b, "gateway", "the network gateway is unreachable", gw_ok ? VERIFY_PASS : VERIFY_FAIL,
        "tcp 80: %s; tcp 53: %s", g80 ? g80->fields[3] : "not probed",
        g53 ? g53->fields[3] : "not probed");
    expect_failure(b, r, "default-route", "default-route", "no route out of the pod");
    expect_failure(b, r, "ipv6", "ipv6-route", "no IPv6 route");
    expect_failure(b, r, "sni", "sni-spoof", "a TLS connection with a name off the allowlist is refused");
    const record_t *h = find_net(r, "host-spoof");
    bool refused = h != NULL && strstr(h->fields[3], "HTTP 403") != NULL &&
                   strstr(h->fields[3], "blocked by agent-sandbox") != NULL;
    add(b, "http-host", "an HTTP request for a host off the allowlist is refused",
        refused ? VERIFY_PASS : VERIFY_FAIL, "%s", h ? h->fields[3] : "probe did not run");

    if (x->first_allowed == NULL) {
        add(b, "allowed", "the allowlist's first entry is reachable", VERIFY_SKIP, "the allowlist is empty");
    } else {
        const record_t *f = find_net(r, "first-allowed");
        bool ok = f != NULL && strcmp(f->fields[2], "0") == 0 && strstr(f->fields[3], "HTTP 000") == NULL;
        if (ok)
            add(b, "allowed", "the allowlist's first entry is reachable", VERIFY_PASS,
                "https://%s/: %s", x->first_allowed, f->fields[3]);
        else
            add(b, "allowed", "the allowlist's first entry is reachable", VERIFY_SKIP,
                "https://%s/ is not reachable from this machine (exit %s: %s)", x->first_allowed,
                f ? f->fields[2] : "?", f ? f->fields[3] : "probe did not run");
    }
}

static void judge_files(builder_t *b, const records_t *r)
{
    const record_t *wh = find_net(r, "write-hosts"), *wr = find_net(r, "write-resolv");
    bool ro = wh && wr && strcmp(wh->fields[2], "0") != 0 && strcmp(wr->fields[2], "0") != 0;
    add(b, "name-files", "/etc/hosts and /etc/resolv.conf cannot be changed", ro ? VERIFY_PASS : VERIFY_FAIL,
        "/etc/hosts: %s; /etc/resolv.conf: %s", wh ? wh->fields[3] : "?", wr ? wr->fields[3] : "?");

    const record_t *kc = find_net(r, "kcore-size"), *ke = find_net(r, "keys-read"),
                   *fw = find_net(r, "firmware-list");
    bool kcore = kc && (strcmp(kc->fields[2], "0") != 0 || strcmp(kc->fields[3], "0") == 0);
    bool keys = ke && (strcmp(ke->fields[2], "0") != 0 || ke->fields[3][0] == '\0');
    bool firmware = fw && (strcmp(fw->fields[2], "0") != 0 || fw->fields[3][0] == '\0');
    bool proc_sys_ro = false;
    for (size_t i = 0; i < r->n; i++) {
        const record_t *m = &r->recs[i];
        if (m->n >= 6 && strcmp(m->fields[0], "MOUNT") == 0 && strcmp(m->fields[2], "/proc/sys") == 0)
            proc_sys_ro = strncmp(m->fields[3], "ro", 2) == 0;
    }
    add(b, "kernel", "/proc/kcore, /proc/keys and /sys/firmware are masked; /proc/sys is read-only",
        kcore && keys && firmware && proc_sys_ro ? VERIFY_PASS : VERIFY_FAIL,
        "kcore %s, keys %s, firmware %s, /proc/sys %s", kcore ? "masked" : "READABLE",
        keys ? "masked" : "READABLE", firmware ? "empty" : "LISTED", proc_sys_ro ? "ro" : "WRITABLE");
}

static bool env_has(const records_t *r, const char *entry, bool name_only)
{
    size_t n = name_only ? strlen(entry) : 0;
    for (size_t i = 0; i < r->n; i++) {
        const record_t *e = &r->recs[i];
        if (e->n < 2 || strcmp(e->fields[0], "ENV") != 0)
            continue;
        if (name_only ? strncmp(e->fields[1], entry, n) == 0 && e->fields[1][n] == '='
                      : strcmp(e->fields[1], entry) == 0)
            return true;
    }
    return false;
}

static void judge_agent(builder_t *b, const records_t *r, const verify_expect_t *x)
{
    if (x->agent == NULL)
        return;
    static const char property[] = "the agent's profile holds: its program is in the image, its "
                                   "telemetry switches are set, no credential variable is";
    const char *path = NULL, *unset = NULL, *cred = NULL;
    size_t n_off = 0, n_cred = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->recs[i].n >= 3 && strcmp(r->recs[i].fields[0], "AGENT") == 0 && r->recs[i].fields[2][0] != '\0')
            path = r->recs[i].fields[2];
    for (; x->agent_telemetry_off != NULL && x->agent_telemetry_off[n_off] != NULL; n_off++)
        if (unset == NULL && !env_has(r, x->agent_telemetry_off[n_off], false))
            unset = x->agent_telemetry_off[n_off];
    /* a held variable is named (--secret): inside it is the stand-in */
    for (; x->agent_credentials != NULL && x->agent_credentials[n_cred] != NULL; n_cred++)
        if (cred == NULL && !strv_contains(x->held_vars, x->agent_credentials[n_cred]) &&
            env_has(r, x->agent_credentials[n_cred], true))
            cred = x->agent_credentials[n_cred];
    if (path == NULL)
        add(b, "agent", property, VERIFY_FAIL, "%s: no such program in the image", x->agent);
    else if (unset != NULL)
        add(b, "agent", property, VERIFY_FAIL, "%s: %s is not set inside", x->agent, unset);
    else if (cred != NULL)
        add(b, "agent", property, VERIFY_FAIL, "%s: the credential variable %s is set inside without "
            "being named", x->agent, cred);
    else
        add(b, "agent", property, VERIFY_PASS, "%s at %s; %zu telemetry %s set; none of its %zu "
            "credential %s set", x->agent, path, n_off, plural(n_off, "switch", "switches"), n_cred,
            plural(n_cred, "variable", "variables"));
}

/* Held secrets: the probe reports HELD<TAB>VAR<TAB>STAND-IN,
 * PLANTED<TAB>VAR<TAB>PATH, FOUND<TAB>PATH:MATCH for every string of a
 * held shape, and HELDDONE. Whether MATCH was found at PATH: */
static bool found_at(const records_t *r, const char *path, const char *match)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < r->n; i++) {
        const record_t *f = &r->recs[i];
        if (f->n >= 2 && strcmp(f->fields[0], "FOUND") == 0 && strncmp(f->fields[1], path, n) == 0 &&
            f->fields[1][n] == ':' && strcmp(f->fields[1] + n + 1, match) == 0)
            return true;
    }
    return false;
}

/* The nth KIND record of var's third field, or NULL. */
static const char *held_field(const records_t *r, const char *kind, const char *var, size_t nth)
{
    for (size_t i = 0; i < r->n; i++) {
        const record_t *h = &r->recs[i];
        if (h->n >= 3 && strcmp(h->fields[0], kind) == 0 && strcmp(h->fields[1], var) == 0 && nth-- == 0)
            return h->fields[2];
    }
    return NULL;
}

/* Whether the stand-in was found in a process's environment; how many
 * strings of the held shapes were found in all. */
static bool standin_in_environ(const records_t *r, const char *standin, size_t *n_found)
{
    bool seen = false;
    *n_found = 0;
    for (size_t i = 0; i < r->n; i++) {
        const record_t *f = &r->recs[i];
        if (f->n < 2 || strcmp(f->fields[0], "FOUND") != 0)
            continue;
        ++*n_found;
        const char *colon = strrchr(f->fields[1], ':');
        if (colon != NULL && strcmp(colon + 1, standin) == 0 && strncmp(f->fields[1], "/proc/", 6) == 0 &&
            (size_t)(colon - f->fields[1]) > 8 && strncmp(colon - 8, "/environ", 8) == 0)
            seen = true;
    }
    return seen;
}

/* One held variable: NULL when it holds, else why not (static text or
 * *why, which the caller frees). Never the value itself. */
static const char *held_problem(const records_t *r, const char *output, const char *var,
                                const char *value, char **why)
{
    const char *standin = held_field(r, "HELD", var, 0);
    if (value == NULL || value[0] == '\0')
        return "the CLI has no value to look for";
    if (strstr(output, value) != NULL) {
        for (size_t i = 0; i < r->n; i++) {
            const char *p = r->recs[i].n >= 2 && strcmp(r->recs[i].fields[0], "FOUND") == 0 ? r->recs[i].fields[1] : NULL;
            const char *colon = p != NULL ? strrchr(p, ':') : NULL;
            if (colon != NULL && strcmp(colon + 1, value) == 0)
                return asprintf(why, "its value is readable in %.*s", (int)(colon - p), p) < 0 ? "its value is readable inside" : *why;
        }
        return "its value is readable inside";
    }
    if (standin == NULL || standin[0] == '\0')
        return "it is not set inside: the search had no stand-in to go by";
    size_t n_found;
    if (!standin_in_environ(r, standin, &n_found))
        return "the search did not find the stand-in in the processes' environments: it proved nothing";
    const char *plant;
    size_t k = 0;
    for (; (plant = held_field(r, "PLANTED", var, k)) != NULL; k++)
        if (!found_at(r, plant, standin))
            return asprintf(why, "the search did not find the stand-in planted in %s: it proved "
                            "nothing", plant) < 0 ? "the search missed a planted stand-in" : *why;
    if (k < 2)
        return "the stand-in could not be planted in the home and /tmp: the search proved nothing there";
    return NULL;
}

static void judge_held(builder_t *b, const records_t *r, const char *output, const verify_expect_t *x)
{
    static const char property[] = "no held secret's value is readable in the sandbox";
    if (x->held_vars == NULL || x->held_vars[0] == NULL) {
        add(b, "held-secrets", property, VERIFY_SKIP, "no --secret given: nothing is held");
        return;
    }
    bool done = false;
    for (size_t i = 0; i < r->n; i++)
        done = done || strcmp(r->recs[i].fields[0], "HELDDONE") == 0;
    size_t n = 0, n_found = 0;
    for (; x->held_vars[n] != NULL; n++) {
        _cleanup_free_ char *why = NULL;
        const char *problem = held_problem(r, output, x->held_vars[n], x->held_values[n], &why);
        if (problem != NULL) {
            add(b, "held-secrets", property, VERIFY_FAIL, "%s: %s", x->held_vars[n], problem);
            return;
        }
    }
    if (!done) {
        add(b, "held-secrets", property, VERIFY_FAIL, "the search did not run to its end");
        return;
    }
    standin_in_environ(r, "", &n_found);
    add(b, "held-secrets", property, VERIFY_PASS, "%zu held; each stand-in found where planted (home, "
        "/tmp) and in the processes' environments, the value nowhere: %zu %s of the held shapes in "
        "every process's environment and command line and every file under / but /proc, /sys, /dev",
        n, n_found, plural(n_found, "string", "strings"));
}

int verify_evaluate(const char *output, const verify_expect_t *x, verify_report_t **ret,
                    as_error_t **err)
{
    records_t r;
    if (records_parse(output, &r) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    bool done = r.n > 0 && strcmp(r.recs[r.n - 1].fields[0], "DONE") == 0;
    builder_t b = {0};
    if (!done)
        add(&b, "probe", "the probe ran to its end", VERIFY_FAIL, "its output stopped early");
    judge_mounts(&b, &r, x);
    judge_privileges(&b, &r);
    judge_environment(&b, &r, output, x);
    judge_sockets(&b, &r, x);
    judge_network(&b, &r, x);
    judge_files(&b, &r);
    judge_agent(&b, &r, x);
    judge_held(&b, &r, output, x);
    records_free(&r);

    verify_report_t *rep = calloc(1, sizeof(*rep));
    if (b.oom || rep == NULL) {
        free(rep);
        for (size_t i = 0; i < b.n; i++)
            free(b.results[i].evidence);
        free(b.results);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    rep->results = b.results;
    rep->n = b.n;
    rep->passed = true;
    for (size_t i = 0; i < b.n; i++)
        if (b.results[i].status == VERIFY_FAIL)
            rep->passed = false;
    *ret = rep;
    return 0;
}

void verify_report_free(verify_report_t *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->results[i].evidence);
    free(r->results);
    free(r);
}

static const char *status_word(verify_status_t s)
{
    return s == VERIFY_PASS ? "PASS" : s == VERIFY_FAIL ? "FAIL" : "SKIP";
}

int verify_render_table(const verify_report_t *r, char **ret, as_error_t **err)
{
    msg_t m;
    if (msg_open(&m, err) < 0)
        return as_error_prefix(err, "rendering the verify table");
    FILE *f = m.f;
    size_t pass = 0, fail = 0, skip = 0;
    for (size_t i = 0; i < r->n; i++) {
        const verify_result_t *v = &r->results[i];
        fprintf(f, "%s  %-60s  %s\n", status_word(v->status), v->property, v->evidence);
        pass += v->status == VERIFY_PASS;
        fail += v->status == VERIFY_FAIL;
        skip += v->status == VERIFY_SKIP;
    }
    fprintf(f, "%zu passed, %zu failed, %zu skipped: the confinement %s\n", pass, fail, skip,
            fail == 0 ? "holds" : "does NOT hold");
    return msg_close(&m, ret, err);
}

int verify_render_json(const verify_report_t *r, char **ret, as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_bool(g, "passed", r->passed);
    json_key(g, "probes");
    json_arr_open(g);
    for (size_t i = 0; i < r->n; i++) {
        json_obj_open(g);
        json_kv_str(g, "id", r->results[i].id);
        json_kv_str(g, "property", r->results[i].property);
        json_kv_str(g, "result", status_word(r->results[i].status));
        json_kv_str(g, "evidence", r->results[i].evidence);
        json_obj_close(g);
    }
    json_arr_close(g);
    json_obj_close(g);
    int rc = json_gen_finish(g, ret, err);
    json_gen_free(g);
    return rc;
}
