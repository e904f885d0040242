#include "egress_log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "router_protocol.h"
#include "base/hostname.h"
#include "base/util.h"
#include "config/allowlist.h"

#define LINE_MAX_BYTES 65536     /* a longer line is skipped, not parsed */

void egress_event_clear(egress_event_t *e)
{
    free(e->name);
    free(e->answer);
    free(e->upstream);
    free(e->upstream_addr);
    *e = (egress_event_t){0};
}

void dns_pending_clear(dns_pending_t *p)
{
    free(p->name);
    *p = (dns_pending_t){0};
}

char *egress_event_allowable(const egress_event_t *e)
{
    if (e->name == NULL)
        return NULL;
    char *n = strdup(e->name);
    if (n == NULL)
        return NULL;
    size_t len = strlen(n);
    if (len > 0 && n[len - 1] == '.')
        n[--len] = '\0';
    for (char *c = n; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    if (!hostname_is_canonical(n)) {
        free(n);
        return NULL;
    }
    return n;
}

/* ---- dnsmasq's lines ------------------------------------------------- */

/* "Dec  1 00:10:15" (UTC, no year: the year that puts it not after now). */
static const char *syslog_time(const char *line, time_t now, time_t *ret)
{
    struct tm tm = {0}, today;
    const char *rest = strptime(line, "%b %e %H:%M:%S", &tm);
    if (rest == NULL)
        return NULL;
    gmtime_r(&now, &today);
    tm.tm_year = today.tm_year;
    time_t t = timegm(&tm);
    if (t > now + 86400) {
        tm.tm_year--;
        t = timegm(&tm);
    }
    *ret = t;
    return rest;
}

/* The last occurrence of needle in s. */
static const char *last_of(const char *s, const char *needle)
{
    const char *found = NULL;
    for (const char *p = strstr(s, needle); p != NULL; p = strstr(p + 1, needle))
        found = p;
    return found;
}

static int dns_query(dns_pending_t *p, const char *msg, time_t t)
{
    const char *close = strchr(msg, ']'), *from = last_of(msg, " from ");
    size_t tlen = close != NULL ? (size_t)(close - msg - 6) : 0;
    if (close == NULL || close[1] != ' ' || from == NULL || from < close + 2 || tlen >= sizeof(p->qtype))
        return 0;
    dns_pending_clear(p);       /* one that got no answer line: not an event */
    if ((p->name = strndup(close + 2, (size_t)(from - close - 2))) == NULL)
        return -ENOMEM;
    memcpy(p->qtype, msg + 6, tlen);
    p->qtype[tlen] = '\0';
    p->time = t;
    p->active = true;
    return 0;
}

/* "SOURCE NAME is ANSWER" for the pending query: its event. */
static int dns_answer(dns_pending_t *p, const char *msg, egress_event_t *ret)
{
    const char *space = strchr(msg, ' '), *is = last_of(msg, " is ");
    if (!p->active || space == NULL || is == NULL || is <= space ||
        (size_t)(is - space - 1) != strlen(p->name) || strncmp(space + 1, p->name, strlen(p->name)) != 0)
        return 0;
    egress_event_t e = { .time = p->time, .kind = "dns", .port = 53 };
    memcpy(e.qtype, p->qtype, sizeof(e.qtype));
    e.name = steal_pointer(&p->name);
    if ((e.answer = strdup(is + 4)) == NULL) {
        egress_event_clear(&e);
        return -ENOMEM;
    }
    e.answer[strcspn(e.answer, "\n")] = '\0';
    /* a name off the list: NXDOMAIN; its parent (of a listed name): no A */
    e.denied = strcmp(e.answer, "NXDOMAIN") == 0 ||
               (strcmp(e.qtype, "A") == 0 && strncmp(e.answer, "NODATA", 6) == 0);
    dns_pending_clear(p);
    *ret = e;
    return 1;
}

int egress_dns_line(dns_pending_t *pending, const char *line, time_t now, egress_event_t *ret)
{
    time_t t;
    const char *rest = syslog_time(line, now, &t), *msg = rest != NULL ? strstr(rest, "]: ") : NULL;
    if (msg == NULL)
        return 0;
    msg += 3;
    if (strncmp(msg, "query[", 6) == 0)
        return dns_query(pending, msg, t);
    return dns_answer(pending, msg, ret);
}

/* ---- nginx's lines ----------------------------------------------------- */

/* The byte of a \u00XX escape at s ("\u" and exactly four hex digits, as
 * nginx writes them), or -1. Not sscanf's %4x: it takes fewer digits, a
 * sign and blanks, and the caller would then step past the string's end. */
static int escaped_byte(const char *s)
{
    if (s[0] != '\\' || s[1] != 'u')
        return -1;
    unsigned v = 0;
    for (size_t i = 2; i < 6; i++) {
        if (!isxdigit((unsigned char)s[i]))
            return -1;
        v = v * 16 + (unsigned)(isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10);
    }
    return v < 0x100 ? (int)v : -1;
}

/* A string of a line nginx wrote with escape=json, from after its opening
 * quote: \" \\ and \u00XX decoded, every other byte as it is. */
static char *json_string(const char **p)
{
    const char *s = *p;
    char *out = malloc(strlen(s) + 1), *o = out;
    if (out == NULL)
        return NULL;
    for (; *s != '\0' && *s != '"'; s++) {
        int v = escaped_byte(s);
        if (v >= 0) {
            *o++ = (char)v;
            s += 5;
        } else if (s[0] == '\\' && s[1] != '\0') {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'r' ? '\r' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
    *p = *s == '"' ? s + 1 : s;
    return out;
}

/* The value of `key` in a flat JSON object of such a line (strings
 * decoded, anything else as text); NULL when absent or out of memory. */
static char *json_field(const char *line, const char *key)
{
    const char *p = strchr(line, '{');
    while (p != NULL && *p != '\0' && *p != '}') {
        p = strchr(p, '"');
        if (p == NULL)
            return NULL;
        p++;
        _cleanup_free_ char *k = json_string(&p);
        if (k == NULL || *p != ':')
            return NULL;
        p++;
        char *v;
        if (*p == '"') {
            p++;
            v = json_string(&p);
        } else {
            size_t n = strcspn(p, ",}");
            v = strndup(p, n);
            p += n;
        }
        if (v == NULL || strcmp(k, key) == 0)
            return v;
        free(v);
        if (*p == ',')
            p++;
    }
    return NULL;
}

/* "2026-12-01T00:12:59+00:00" */
static bool iso_time(const char *s, time_t *ret)
{
    struct tm tm = {0};
    const char *rest = s != NULL ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    int oh = 0, om = 0;
    char sign = '+';
    if (rest == NULL)
        return false;
    if (*rest != 'Z' && sscanf(rest, "%c%2d:%2d", &sign, &oh, &om) != 3)
        return false;
    *ret = timegm(&tm) - (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    return true;
}

static long long number_of(const char *s)
{
    return s != NULL ? strtoll(s, NULL, 10) : 0;
}

static egress_failure_t failure_of(const egress_event_t *e, const char *connect)
{
    if (e->denied)
        return EGRESS_REACHED;
    if (connect != NULL && strchr(connect, '-') != NULL)
        return EGRESS_UNREACHABLE;          /* a connect that failed */
    if (e->status >= 500 && e->upstream_addr[0] == '\0')
        return EGRESS_UNRESOLVED;           /* no address to try */
    if (connect == NULL && e->status >= 500)
        return EGRESS_UNREACHABLE;
    return EGRESS_REACHED;
}

int egress_conn_line(const char *line, egress_event_t *ret)
{
    static const char *const kinds[] = { "tls", "http", "tcp" };
    _cleanup_free_ char *when = json_field(line, "time"), *proto = json_field(line, "proto"),
                        *verdict = json_field(line, "verdict"), *port = json_field(line, "port"),
                        *status = json_field(line, "status"), *sent = json_field(line, "sent"),
                        *received = json_field(line, "received"), *connect = json_field(line, "connect");
    egress_event_t e = {0};
    for (size_t i = 0; proto != NULL && i < ARRAY_SIZE(kinds); i++)
        if (strcmp(proto, kinds[i]) == 0)
            e.kind = kinds[i];
    if (e.kind == NULL || verdict == NULL || !iso_time(when, &e.time))
        return 0;
    e.name = json_field(line, "name");
    e.upstream = json_field(line, "upstream");
    e.upstream_addr = json_field(line, "upstream_addr");
    if (e.name == NULL || e.upstream == NULL || e.upstream_addr == NULL) {
        egress_event_clear(&e);
        return 0;
    }
    e.denied = strcmp(verdict, "allow") != 0;
    e.by_rule = strcmp(verdict, "refused") == 0;
    e.status = (long)number_of(status);
    e.sent = number_of(sent);
    e.received = number_of(received);
    /* a host:port forward: the port the agent asked for is the upstream's */
    const char *colon = strrchr(e.upstream, ':');
    e.port = (unsigned)(strcmp(e.kind, "tcp") == 0 && colon != NULL ? number_of(colon + 1)
                                                                   : number_of(port));
    e.failure = failure_of(&e, connect);
    *ret = e;
    return 1;
}

/* ---- whose events ------------------------------------------------------ */

bool egress_mark_line(const char *line, egress_by_t *ret)
{
    static const size_t n = sizeof(ROUTER_MARK_LINE) - 1;
    if (strncmp(line, ROUTER_MARK_LINE, n) != 0)
        return false;
    if (strcmp(line + n, ROUTER_MARK_AGENT) == 0)
        *ret = EGRESS_BY_AGENT;
    else if (strcmp(line + n, ROUTER_MARK_VERIFY) == 0)
        *ret = EGRESS_BY_VERIFY;
    else
        return false;
    return true;
}

const char *egress_by_name(egress_by_t by)
{
    return by == EGRESS_BY_AGENT ? "agent" : by == EGRESS_BY_VERIFY ? "verify" : "sandbox";
}

/* ---- the reader ------------------------------------------------------ */

typedef struct log_file {
    int fd;
    char *buf;
    size_t len, cap;
    bool skipping;           /* in a line over LINE_MAX_BYTES */
    bool marked;             /* past the router's first mark: `by` holds */
    egress_by_t by;          /* whose events the file's lines are now */
} log_file_t;

struct egress_log_reader {
    log_file_t files[2];     /* dns.log, egress.log */
    dns_pending_t pending;
};

void egress_log_close(egress_log_reader_t *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < 2; i++) {
        if (r->files[i].fd >= 0)
            close(r->files[i].fd);
        free(r->files[i].buf);
    }
    dns_pending_clear(&r->pending);
    free(r);
}

int egress_log_open(const char *dir, egress_log_reader_t **ret, as_error_t **err)
{
    static const char *const names[2] = { ROUTER_LOG_DNS, ROUTER_LOG_EGRESS };
    egress_log_reader_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < 2; i++) {
        _cleanup_free_ char *path = NULL;
        r->files[i].fd = -1;
        if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
            egress_log_close(r);
            return as_error_make(err, ENOMEM, "out of memory");
        }
        r->files[i].fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (r->files[i].fd < 0 && errno != ENOENT) {
            int e = errno;
            egress_log_close(r);
            return as_error_errno(err, e, "opening %s", path);
        }
    }
    *ret = r;
    return 0;
}

typedef struct batch {
    egress_event_t *v;
    size_t n, cap;
} batch_t;

static void batch_clear(batch_t *b)
{
    for (size_t i = 0; i < b->n; i++)
        egress_event_clear(&b->v[i]);
    free(b->v);
}

static int batch_add(batch_t *b, egress_event_t *e)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        egress_event_t *v = reallocarray(b->v, cap, sizeof(*v));
        if (v == NULL) {
            egress_event_clear(e);
            return -ENOMEM;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = *e;
    return 0;
}

/* Appends what the file has now; the complete lines become events. */
static int read_file(egress_log_reader_t *r, size_t which, time_t now, batch_t *out)
{
    log_file_t *f = &r->files[which];
    for (;;) {
        if (f->cap - f->len < 4096) {
            char *grown = realloc(f->buf, f->cap + 65536);
            if (grown == NULL)
                return -ENOMEM;
            f->buf = grown;
            f->cap += 65536;
        }
        ssize_t n = f->fd >= 0 ? read(f->fd, f->buf + f->len, f->cap - f->len - 1) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        f->len += (size_t)n;
        f->buf[f->len] = '\0';
        char *line = f->buf, *nl;
        while ((nl = memchr(line, '\n', f->len - (size_t)(line - f->buf))) != NULL) {
            *nl = '\0';
            egress_event_t e;
            /* only the first mark counts: the agent runs only after it */
            bool mark = !f->skipping && !f->marked && egress_mark_line(line, &f->by);
            int got = mark || f->skipping || memchr(line, '\0', (size_t)(nl - line)) != NULL ? 0
                      : which == 0 ? egress_dns_line(&r->pending, line, now, &e)
                                   : egress_conn_line(line, &e);
            f->marked |= mark;
            f->skipping = false;
            if (got > 0)
                e.by = f->by;
            if (got < 0 || (got > 0 && batch_add(out, &e) < 0))
                return -ENOMEM;
            line = nl + 1;
        }
        f->len -= (size_t)(line - f->buf);
        memmove(f->buf, line, f->len);
        if (f->len > LINE_MAX_BYTES) {
            f->len = 0;
            f->skipping = true;
        }
    }
    return 0;
}

int egress_log_read(egress_log_reader_t *r, egress_event_fn fn, void *ctx, as_error_t **err)
{
    batch_t b[2] = {0};
    time_t now = time(NULL);
    int rc = 0;
    for (size_t i = 0; i < 2 && rc == 0; i++)
        if (read_file(r, i, now, &b[i]) < 0)
            rc = as_error_make(err, ENOMEM, "out of memory");
    /* each log is in time order: merge them, queries first within a second */
    size_t i = 0, j = 0;
    while (rc >= 0 && (i < b[0].n || j < b[1].n)) {
        bool dns = j == b[1].n || (i < b[0].n && b[0].v[i].time <= b[1].v[j].time);
        rc = fn(dns ? &b[0].v[i++] : &b[1].v[j++], ctx);
    }
    batch_clear(&b[0]);
    batch_clear(&b[1]);
    return rc < 0 ? rc : 0;
}
