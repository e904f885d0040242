/* The allowed-hosts file's text made into a list: each line checked and
 * turned into entries and networks, every error of the file collected as
 * FILE:LINE, the warnings (duplicates, overlaps) sorted by line. The list
 * it builds, and every lookup and change of it, are allowlist.c's. */
#include "allowlist.h"

#include "base/config_lines.h"
#include "base/file_read.h"
#include "base/hostname.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/msg.h"
#include "base/strv.h"
#include "base/util.h"

#define SHOW_MAX 80   /* bytes of an offending entry quoted in a message */
#define SHOW(len) (int)((len) < SHOW_MAX ? (len) : SHOW_MAX)   /* for "%.*s" */
#define MORE(len) ((len) > SHOW_MAX ? "..." : "")

typedef struct warning {
    unsigned line;
    size_t seq;            /* emission order, for a stable sort */
    char *msg;
} warning_t;

typedef struct parser {
    const char *file;      /* NULL: one entry from the command line, no file or line */
    config_lines_t it;
    config_line_t cur;     /* the line being parsed */
    unsigned line;         /* its number */
    allowlist_t *al;
    warning_t *warnings;
    size_t n_warnings;
    /* Every error of the file, each "file:line: message", so that the user
     * fixes them in one go; the list is refused if there is any. */
    char **errors;
    size_t n_errors;       /* kept, at most MAX_ERRORS_SHOWN */
    size_t n_errors_more;  /* found past that */
    bool stop;             /* an error after which the rest cannot be judged */
} parser_t;

#define MAX_ERRORS_SHOWN 50

/* ---- small helpers ---------------------------------------------------- */

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool has_char(const char *s, size_t len, char c)
{
    return memchr(s, c, len) != NULL;
}

static bool has_str(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, needle, n) == 0)
            return true;
    return false;
}

static int perr(parser_t *p, as_error_t **err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Every parse error goes through here: "file:line: message" (the bare
 * message for an entry from the command line) is added to the parser's
 * list, and -EINVAL makes the caller skip the rest of the line. *err is
 * filled only when memory runs out. */
static int perr(parser_t *p, as_error_t **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    int r;
    if (p->file != NULL) {
        as_error_t *line_err = NULL;
        r = config_line_verror(&p->it, &p->cur, &line_err, fmt, ap);
        if (r == -EINVAL)
            msg = steal_pointer(&line_err->msg);
        as_error_free(&line_err);
    } else {
        r = vasprintf(&msg, fmt, ap) < 0 ? -ENOMEM : -EINVAL;
    }
    va_end(ap);
    if (r == -EINVAL && msg == NULL)
        r = -ENOMEM;
    if (r == -ENOMEM)
        return as_error_make(err, ENOMEM, "out of memory");
    if (p->n_errors >= MAX_ERRORS_SHOWN) {
        p->n_errors_more++;
        free(msg);
        return -EINVAL;
    }
    char **v = reallocarray(p->errors, p->n_errors + 1, sizeof(*v));
    if (v == NULL) {
        free(msg);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    p->errors = v;
    p->errors[p->n_errors++] = msg;
    return -EINVAL;
}

/* All the errors found, one per line, as one error. */
static int errors_result(parser_t *p, as_error_t **err)
{
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    for (size_t i = 0; i < p->n_errors; i++)
        fprintf(m.f, "%s%s", i > 0 ? "\n" : "", p->errors[i]);
    if (p->n_errors_more > 0)
        fprintf(m.f, "\n... and %zu more %s", p->n_errors_more, plural(p->n_errors_more, "error", "errors"));
    return msg_fail(&m, EINVAL, err);
}

static void free_errors(parser_t *p)
{
    for (size_t i = 0; i < p->n_errors; i++)
        free(p->errors[i]);
    free(p->errors);
}

static int pwarn(parser_t *p, unsigned line, as_error_t **err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int pwarn(parser_t *p, unsigned line, as_error_t **err, const char *fmt, ...)
{
    _cleanup_free_ char *msg = NULL;
    char *full = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0 || (p->file != NULL ? asprintf(&full, "%s:%u: %s", p->file, line, msg)
                                  : asprintf(&full, "%s", msg)) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    warning_t *w = reallocarray(p->warnings, p->n_warnings + 1, sizeof(*w));
    if (w == NULL) {
        free(full);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    p->warnings = w;
    p->warnings[p->n_warnings] = (warning_t){ .line = line, .seq = p->n_warnings, .msg = full };
    p->n_warnings++;
    return 0;
}

/* ---- entries ---------------------------------------------------------- */

/* The name (with its port) joins the list, or a warning says it was there. */
static int add_entry(parser_t *p, char *name, bool wildcard, unsigned port, as_error_t **err)
{
    allowlist_t *al = p->al;
    const allowlist_entry_t *listed = allowlist_find(al, name, wildcard);
    allowlist_entry_t *e = listed != NULL ? &al->entries[listed - al->entries] : NULL;

    if (e != NULL) {
        if (port == 0)
            return pwarn(p, p->line, err, "%s%s is already listed on line %u",
                         wildcard ? "." : "", name, e->line);
        for (size_t i = 0; i < e->n_ports; i++)
            if (e->ports[i].port == port)
                return pwarn(p, p->line, err, "%s:%u is already listed on line %u",
                             name, port, e->ports[i].line);
    } else {
        if (al->n_entries >= ALLOWLIST_MAX_ENTRIES) {
            p->stop = true;
            return perr(p, err, "too many entries (the limit is %d)", ALLOWLIST_MAX_ENTRIES);
        }
        /* The name is canonical, not listed and under the limit, so only
         * memory can fail here. */
        const allowlist_entry_t fresh = { .name = name, .wildcard = wildcard };
        int r = allowlist_append(al, &fresh, err);
        if (r < 0)
            return r;
        e = &al->entries[al->n_entries - 1];
        e->line = p->line;
    }
    if (port == 0)
        return 0;

    allowlist_port_t *ports = reallocarray(e->ports, e->n_ports + 1, sizeof(*ports));
    if (ports == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    e->ports = ports;
    e->ports[e->n_ports++] = (allowlist_port_t){ .port = (uint16_t)port, .line = p->line,
                                                 .file = al->files != NULL ? al->files[0] : NULL };
    return 0;
}

/* Parses "digits" into 1..65535. */
static int parse_port(parser_t *p, const char *s, size_t len, unsigned *ret, as_error_t **err)
{
    if (len == 0)
        return perr(p, err, "missing port number after ':'");
    unsigned long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return perr(p, err, "port `%.*s` is not a number (expected 1-65535)",
                        SHOW(len), s);
        if (v <= 65535)
            v = v * 10 + (unsigned long)(s[i] - '0');
    }
    if (v == 0 || v > 65535)
        return perr(p, err, "port %.*s is out of range (expected 1-65535)",
                    SHOW(len), s);
    *ret = (unsigned)v;
    return 0;
}

/* What is plainly not a host name: a URL, a path, a glob, user info, IPv6. */
static int check_entry_shape(parser_t *p, const char *tok, size_t len, as_error_t **err)
{
    int show = SHOW(len);
    const char *more = MORE(len);
    if (len == 1 && tok[0] == '*')
        return perr(p, err, "`*` would allow every host; list the host names instead");
    if (has_str(tok, len, "://"))
        return perr(p, err, "`%.*s%s` is a URL; write only the host name (e.g. api.example.com)",
                    show, tok, more);
    if (has_char(tok, len, '/'))
        return perr(p, err, "`%.*s%s` contains a path or a '/'; write only the host name",
                    show, tok, more);
    if (has_char(tok, len, '*'))
        return perr(p, err, "`%.*s%s`: `*` is not supported; write .example.com to allow "
                    "example.com and all its subdomains", show, tok, more);
    if (has_char(tok, len, '@'))
        return perr(p, err, "`%.*s%s` contains '@'; write only the host name", show, tok, more);
    if (tok[0] == '[')
        return perr(p, err, "`%.*s%s` is an IPv6 address; only host names are allowed",
                    show, tok, more);
    const char *colon = memchr(tok, ':', len);
    if (colon != NULL && memchr(colon + 1, ':', len - (size_t)(colon - tok) - 1) != NULL)
        return perr(p, err, "`%.*s%s` looks like an IPv6 address; only host names are allowed",
                    show, tok, more);
    return 0;
}

/* An entry as written, and the host name in it. */
typedef struct entry {
    const char *tok;
    size_t len;
    const char *host;      /* without the wildcard's dot and the trailing dot */
    size_t hlen;
    bool wildcard;
} entry_t;

/* The message for a host name hostname_check() refused at w (wl bytes). */
static int name_error(parser_t *p, const entry_t *e, hostname_check_t check, size_t w, size_t wl,
                      as_error_t **err)
{
    const char *tok = e->tok, *host = e->host;
    size_t hlen = e->hlen;
    int show = SHOW(e->len);
    const char *more = MORE(e->len);
    switch (check) {
    case HOSTNAME_OK:
        return 0;
    case HOSTNAME_EMPTY:
        return perr(p, err, "empty host name in `%.*s%s`", show, tok, more);
    case HOSTNAME_BAD_CHAR: {
        unsigned char c = (unsigned char)host[w];
        if (c == '_')
            return perr(p, err, "invalid character '_' in host name `%.*s%s` "
                        "(RFC 1123 allows letters, digits, '-' and '.')", show, tok, more);
        if (isprint(c))
            return perr(p, err, "invalid character '%c' in host name `%.*s%s` "
                        "(allowed: letters, digits, '-' and '.')", c, show, tok, more);
        return perr(p, err, "invalid byte 0x%02x in host name", c);
    }
    case HOSTNAME_TOO_LONG:
        return perr(p, err, "host name `%.*s...` is %zu bytes long; the limit is %d",
                    40, host, hlen, ALLOWLIST_NAME_MAX);
    case HOSTNAME_EMPTY_LABEL:
        return perr(p, err, "empty label in `%.*s%s` (two dots in a row, or a stray dot)",
                    show, tok, more);
    case HOSTNAME_LONG_LABEL:
        return perr(p, err, "label `%.*s...` in `%.*s%s` is %zu bytes long; the limit is 63",
                    20, host + w, show, tok, more, wl);
    case HOSTNAME_HYPHEN:
        return perr(p, err, "label `%.*s` in `%.*s%s` starts or ends with '-'",
                    (int)wl, host + w, show, tok, more);
    case HOSTNAME_NUMERIC:
        return perr(p, err, "`%.*s%s` is an IP address (or has an all-numeric top-level label); "
                    "only host names are allowed", show, tok, more);
    case HOSTNAME_SINGLE_LABEL:
        if (e->wildcard)
            return perr(p, err, "`%.*s%s` would allow a whole top-level domain; "
                        "a wildcard needs at least two labels (.example.com)", show, tok, more);
        return perr(p, err, "`%.*s%s` is a single-label name; write the fully qualified name",
                    show, tok, more);
    }
    return perr(p, err, "invalid host name `%.*s%s`", show, tok, more);
}

/* "name", ".name" or "name:port". */
static int parse_entry(parser_t *p, const char *tok, size_t len, as_error_t **err)
{
    int r = check_entry_shape(p, tok, len, err);
    if (r < 0)
        return r;
    const char *colon = memchr(tok, ':', len);
    size_t hlen = colon != NULL ? (size_t)(colon - tok) : len;
    unsigned port = 0;
    if (colon != NULL && (r = parse_port(p, colon + 1, len - hlen - 1, &port, err)) < 0)
        return r;

    const char *host = tok;
    bool wildcard = false;
    if (hlen > 0 && host[0] == '.') {
        wildcard = true;
        host++;
        hlen--;
    }
    if (hlen > 0 && host[hlen - 1] == '.')
        hlen--;                          /* one trailing dot: the root, dropped */
    if (wildcard && port != 0)
        return perr(p, err, "`%.*s%s`: a port can only follow an exact host name, "
                    "not a wildcard", SHOW(len), tok, MORE(len));
    size_t w, wl;
    hostname_check_t check = hostname_check(host, hlen, &w, &wl);
    if (check != HOSTNAME_OK) {
        const entry_t e = { tok, len, host, hlen, wildcard };
        return name_error(p, &e, check, w, wl, err);
    }

    char name[ALLOWLIST_NAME_MAX + 1];
    for (size_t i = 0; i < hlen; i++)
        name[i] = lower(host[i]);
    name[hlen] = '\0';

    if (port == 80 || port == 443) {
        r = pwarn(p, p->line, err, "%s:%u: ports 80 and 443 are always allowed for a listed "
                  "name; the port is redundant", name, port);
        if (r < 0)
            return r;
        port = 0;
    }
    return add_entry(p, name, wildcard, port, err);
}

/* ---- allow-upstream-net ----------------------------------------------- */

static int parse_net(parser_t *p, const char *s, size_t len, as_error_t **err)
{
    int show = SHOW(len);
    if (has_char(s, len, ':'))
        return perr(p, err, "%s `%.*s`: IPv6 networks are not supported (the sandbox has no "
                    "IPv6 route)", ALLOWLIST_UPSTREAM_NET, show, s);
    ipv4_net_t net;
    if (!ipv4_net_parse(s, len, &net))
        return perr(p, err, "%s `%.*s`: expected an IPv4 network in CIDR form "
                    "(e.g. 10.1.0.0/16; decimal, no leading zeros)",
                    ALLOWLIST_UPSTREAM_NET, show, s);
    if ((net.addr & ~ipv4_prefix_mask(net.prefix)) != 0) {
        char fixed[IPV4_NET_TEXT_MAX];
        net.addr &= ipv4_prefix_mask(net.prefix);
        ipv4_net_format(net, fixed, sizeof(fixed));
        return perr(p, err, "%s `%.*s` has host bits set; did you mean %s?",
                    ALLOWLIST_UPSTREAM_NET, show, s, fixed);
    }

    allowlist_t *al = p->al;
    for (size_t i = 0; i < al->n_nets; i++)
        if (al->nets[i].net.addr == net.addr && al->nets[i].net.prefix == net.prefix)
            return pwarn(p, p->line, err, "%s %.*s is already listed on line %u",
                         ALLOWLIST_UPSTREAM_NET, show, s, al->nets[i].line);

    int r = 0;
    if (net.prefix == 0)
        r = pwarn(p, p->line, err, "%s %.*s turns off the refusal of private upstream "
                  "addresses entirely", ALLOWLIST_UPSTREAM_NET, show, s);
    else if (!refused_ranges_overlap(net))
        r = pwarn(p, p->line, err, "%s %.*s: this network is public; the router does not "
                  "refuse it in the first place", ALLOWLIST_UPSTREAM_NET, show, s);
    if (r < 0)
        return r;

    if (al->n_nets >= ALLOWLIST_MAX_NETS) {
        p->stop = true;
        return perr(p, err, "too many %s lines (the limit is %d)", ALLOWLIST_UPSTREAM_NET,
                    ALLOWLIST_MAX_NETS);
    }
    allowlist_net_t *v = reallocarray(al->nets, al->n_nets + 1, sizeof(*v));
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    al->nets = v;
    al->nets[al->n_nets++] = (allowlist_net_t){ .net = net, .line = p->line };
    return 0;
}

/* ---- lines ------------------------------------------------------------ */

static int parse_line(parser_t *p, as_error_t **err)
{
    const config_line_t *l = &p->cur;
    if (l->problem != NULL)
        return perr(p, err, "%s", l->problem);
    for (size_t i = 0; i < l->len; i++)
        if ((unsigned char)l->text[i] >= 0x80)
            return perr(p, err, "non-ASCII character; write internationalised names in "
                        "punycode (xn--..., as `idn2 NAME` prints them)");

    config_word_t w[3];
    size_t n = config_line_words(l, w, ARRAY_SIZE(w));
    for (size_t i = 0; i < n && i < ARRAY_SIZE(w); i++)
        if (has_char(w[i].text, w[i].len, '#'))
            return perr(p, err, "`%.*s`: a comment starts with a # at the start of a line or "
                        "after a blank; put a space before it",
                        SHOW(w[i].len), w[i].text);

    bool directive = w[0].len == strlen(ALLOWLIST_UPSTREAM_NET)
                     && memcmp(w[0].text, ALLOWLIST_UPSTREAM_NET, w[0].len) == 0;
    if (directive) {
        if (n != 2)
            return perr(p, err, "%s expects exactly one IPv4 network (e.g. 10.1.0.0/16)",
                        ALLOWLIST_UPSTREAM_NET);
        return parse_net(p, w[1].text, w[1].len, err);
    }
    if (n > 1)
        return perr(p, err, "whitespace inside an entry; write one host or host:port per line "
                    "(`%.*s ...`)", SHOW(w[0].len), w[0].text);
    return parse_entry(p, w[0].text, w[0].len, err);
}

/* The domain above `name` ("b.c" of "a.b.c"), or NULL. */
static const char *parent(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot != NULL ? dot + 1 : NULL;
}

/* Overlaps are only known once the whole file is read. A name is covered by
 * a wildcard of itself or above it; a wildcard only by one above it. */
static int find_overlaps(parser_t *p, as_error_t **err)
{
    const allowlist_t *al = p->al;
    for (size_t i = 0; i < al->n_entries; i++) {
        const allowlist_entry_t *e = &al->entries[i];
        if (!e->wildcard && e->n_ports > 0)
            continue;            /* its extra ports are not covered by any wildcard */
        const char *covered = e->wildcard ? parent(e->name) : e->name;
        const allowlist_entry_t *best = covered != NULL ? allowlist_covering(al, covered) : NULL;
        if (best == NULL)
            continue;
        int r = pwarn(p, e->line, err, "%s%s is already covered by .%s (line %u)",
                      e->wildcard ? "." : "", e->name, best->name, best->line);
        if (r < 0)
            return r;
    }
    return 0;
}

static void free_warnings(warning_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(w[i].msg);
    free(w);
}

/* Warnings in line order (overlaps are found last), those of one line in
 * the order they were found. Moves them into the list. */
static int warning_cmp(const void *a, const void *b)
{
    const warning_t *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int take_warnings(parser_t *p, allowlist_t *al, as_error_t **err)
{
    if (p->n_warnings > 1)
        qsort(p->warnings, p->n_warnings, sizeof(*p->warnings), warning_cmp);
    if (p->n_warnings == 0)
        return 0;
    al->warnings = calloc(p->n_warnings, sizeof(char *));
    if (al->warnings == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < p->n_warnings; i++)
        al->warnings[i] = steal_pointer(&p->warnings[i].msg);
    al->n_warnings = p->n_warnings;
    return 0;
}

/* Every line, then the overlaps; an error on a line skips that line and
 * parsing goes on, so that all of them are reported at once. */
static int parse_all(parser_t *p, const char *text, size_t len, as_error_t **err)
{
    config_lines_init(&p->it, p->file != NULL ? p->file : "", text, len);
    while (!p->stop && config_lines_next(&p->it, &p->cur)) {
        p->line = p->cur.number;
        int r = parse_line(p, err);
        if (r < 0 && r != -EINVAL)
            return r;
    }
    if (p->n_errors > 0)
        return errors_result(p, err);
    return find_overlaps(p, err);
}

int allowlist_parse(const char *filename, const char *text, size_t len,
                    allowlist_t **ret, as_error_t **err)
{
    if (filename == NULL)
        filename = "allowed-hosts";
    if (text == NULL && len > 0)
        return as_error_make(err, EINVAL, "%s: no text", filename);

    _cleanup_(allowlist_freep) allowlist_t *al = calloc(1, sizeof(*al));
    if (al == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    if (strv_push(&al->files, filename) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    parser_t p = { .file = filename, .al = al };
    int r = parse_all(&p, text, len, err);
    if (r == 0)
        r = take_warnings(&p, al, err);
    free_warnings(p.warnings, p.n_warnings);
    free_errors(&p);
    if (r < 0)
        return r;
    *ret = steal_pointer(&al);
    return 0;
}

int allowlist_parse_entry(const char *text, allowlist_t **ret, as_error_t **err)
{
    if (text == NULL || text[0] == '\0')
        return as_error_make(err, EINVAL, "an empty entry");
    if (strchr(text, '\n') != NULL)
        return as_error_make(err, EINVAL, "an entry is one line");
    _cleanup_(allowlist_freep) allowlist_t *al = calloc(1, sizeof(*al));
    if (al == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    parser_t p = { .file = NULL, .al = al };
    int r = parse_all(&p, text, strlen(text), err);
    if (r == 0)
        r = take_warnings(&p, al, err);
    if (r == 0 && al->n_nets > 0)
        r = as_error_make(err, EINVAL, "%s is a line of the file, not a host name; "
                          "edit the file to allow a network", ALLOWLIST_UPSTREAM_NET);
    if (r == 0 && al->n_entries != 1)
        r = as_error_make(err, EINVAL, "expected one host name, .domain or host:port");
    free_warnings(p.warnings, p.n_warnings);
    free_errors(&p);
    if (r < 0)
        return r;
    *ret = steal_pointer(&al);
    return 0;
}

/* ---- files ------------------------------------------------------------ */

int allowlist_read_file(const char *path, char **ret_text, size_t *ret_len, as_error_t **err)
{
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, ALLOWLIST_FILE_MAX, ret_text, ret_len, err);
    if (r < 0)
        return config_error_name(err, "cannot read ", path);
    return 0;
}

int allowlist_load(const char *path, allowlist_t **ret, as_error_t **err)
{
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    int r = allowlist_read_file(path, &text, &len, err);
    if (r < 0)
        return r;
    return allowlist_parse(path, text, len, ret, err);
}
