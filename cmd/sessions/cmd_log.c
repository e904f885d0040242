/* `agent-sandbox log [ID] [--denied] [--follow] [--json]`: every DNS query
 * and connection of a session (lib/egress/egress_log.h), from a running
 * session's router or from the logs kept after it (lib/egress/session_logs.h).
 * Names are the agent's: escaped, in the JSON too. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "shared/session_list.h"
#include "base/escape.h"
#include "base/json.h"
#include "base/msg.h"
#include "base/util.h"
#include "base/user_dirs.h"
#include "egress/egress_log.h"
#include "session/session_find.h"

#define FOLLOW_INTERVAL_MS 250

typedef struct log_args {
    const char *id;
    bool denied, follow, json;
} log_args_t;

/* Which logs to read. */
typedef struct log_source {
    char id[SESSION_ID_LEN + 1];
    char *dir;               /* router-log/ of a running session, or the kept copy */
    char *launch_dir;        /* a running session's; NULL when not known */
    bool running;
} log_source_t;

static int parse_args(int argc, char **argv, log_args_t *ret)
{
    log_args_t a = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--denied") == 0)
            a.denied = true;
        else if (strcmp(argv[i], "--follow") == 0 || strcmp(argv[i], "-f") == 0)
            a.follow = true;
        else if (strcmp(argv[i], "--json") == 0)
            a.json = true;
        else if (argv[i][0] != '-' && a.id == NULL)
            a.id = argv[i];
        else {
            static const char *const known[] = { "--denied", "--follow", "-f", "--json" };
            return cli_bad_argument("log", argv[i], known, ARRAY_SIZE(known));
        }
    }
    *ret = a;
    return 0;
}

/* The kept session in <state>/logs whose id is `id` (or starts with it),
 * else the newest; 0, -ENOENT or -EEXIST. */
static int find_kept(const char *id, log_source_t *ret, as_error_t **err)
{
    _cleanup_free_ char *state = NULL, *base = NULL;
    int r = user_state_dir(&state, err);
    if (r < 0)
        return r;
    if (asprintf(&base, "%s/logs", state) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    DIR *d = opendir(base);
    if (d == NULL)
        return -ENOENT;
    char best[SESSION_ID_LEN + 1] = "";
    struct timespec newest = {0};
    size_t hits = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (strlen(e->d_name) != SESSION_ID_LEN || fstatat(dirfd(d), e->d_name, &st, 0) < 0 ||
            !S_ISDIR(st.st_mode) || (id != NULL && strncmp(e->d_name, id, strlen(id)) != 0))
            continue;
        hits++;
        if (best[0] == '\0' || st.st_mtim.tv_sec > newest.tv_sec ||
            (st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec > newest.tv_nsec)) {
            snprintf(best, sizeof(best), "%s", e->d_name);
            newest = st.st_mtim;
        }
    }
    closedir(d);
    if (hits == 0)
        return -ENOENT;
    if (id != NULL && hits > 1)
        return -EEXIST;
    snprintf(ret->id, sizeof(ret->id), "%s", best);
    ret->running = false;
    if (asprintf(&ret->dir, "%s/%s", base, best) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

/* A running session first (named, else the current directory's, else
 * the only one), then a kept one (named, else the newest). */
static int find_source(const char *id, log_source_t *ret)
{
    as_error_t *err = NULL;
    session_found_t *v = NULL;
    size_t n = 0, at = 0;
    if (id != NULL && (strlen(id) < 4 || strlen(id) > SESSION_ID_LEN)) {
        report("error: a session ID is 4 to %d hexadecimal digits", SESSION_ID_LEN);
        return EXIT_USAGE;
    }
    if (session_find_live(&v, &n, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    sessions_found_keep_test_root(v, &n);
    int r = id != NULL ? session_found_pick(v, n, id, &at) : session_found_default("log", v, n, &at);
    if (r > 0) {
        session_found_free(v, n);
        return r;                        /* which session? (reported) */
    }
    if (r == 0) {
        snprintf(ret->id, sizeof(ret->id), "%s", v[at].id);
        ret->running = true;
        ret->launch_dir = v[at].launch_dir;
        v[at].launch_dir = NULL;
        r = asprintf(&ret->dir, "%s/router-log", v[at].path) < 0 ? -ENOMEM : 0;
    } else if (r == -ENOENT) {
        r = find_kept(id, ret, &err);
    }
    session_found_free(v, n);
    if (r == 0)
        return 0;
    if (err != NULL) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    _cleanup_free_ char *shown = id != NULL ? path_escaped(id) : NULL;
    if (r == -EEXIST)
        report("error: more than one session has an ID that starts with %s: give more of it", shown);
    else if (id != NULL)
        report("error: no session %s, running or with its logs kept", shown ? shown : "?");
    else
        report("error: no session is running and no session's logs are kept");
    return r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE;
}

typedef struct printer {
    const log_args_t *args;
    const log_source_t *src;
} printer_t;

/* The command that allows e's name: in the running session, or saved.
 * None for the sandbox's own checks: they are refused on purpose. */
static char *allow_command(const egress_event_t *e, const log_source_t *src)
{
    if (e->by != EGRESS_BY_AGENT)
        return NULL;
    _cleanup_free_ char *name = egress_event_allowable(e);
    char *cmd = NULL;
    if (name != NULL && asprintf(&cmd, "agent-sandbox allow %s %s%s", name,
                                 src->running ? "--session " : "--save",
                                 src->running ? src->id : "") < 0)
        return NULL;
    return cmd;
}

/* A field of the router's logs: what the agent's traffic put there (a
 * query's type and answer, an upstream's address) goes through the one
 * escaper, as the name does. */
static void put_field(FILE *f, const char *text)
{
    path_put_escaped(f, text, strlen(text));
}

static void put_verdict(FILE *f, const egress_event_t *e)
{
    if (e->by_rule)
        fputs("denied by the name's rules (held secrets, `rules`: docs/secrets.md)", f);
    else if (e->denied)
        fputs("denied", f);
    else if (e->failure == EGRESS_UNRESOLVED)
        fputs("allowed, but not resolved upstream", f);
    else if (e->failure == EGRESS_UNREACHABLE) {
        fputs("allowed, but the connection upstream failed", f);
        if (e->upstream_addr[0] != '\0') {
            fputs(" (", f);
            put_field(f, e->upstream_addr);
            fputc(')', f);
        }
    } else
        fputs("allowed", f);
}

static void print_text(const egress_event_t *e, const log_source_t *src)
{
    char when[32];
    struct tm tm;
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&e->time, &tm));
    printf("%s  %-4s  ", when, e->kind);
    put_field(stdout, e->name);
    if (e->name[0] == '\0')
        fputs("(no name)", stdout);
    if (strcmp(e->kind, "dns") == 0) {
        putchar(' ');
        put_field(stdout, e->qtype);
        fputs("  ", stdout);
    } else {
        printf(":%u  ", e->port);
    }
    put_verdict(stdout, e);
    if (strcmp(e->kind, "dns") == 0 && !e->denied) {
        fputs(": ", stdout);
        put_field(stdout, e->answer);
    }
    else if (strcmp(e->kind, "dns") != 0 && !e->denied && e->failure == EGRESS_REACHED)
        printf(", sent %lld B, received %lld B", e->sent, e->received);
    _cleanup_free_ char *cmd = e->denied && !e->by_rule ? allow_command(e, src) : NULL;
    if (cmd != NULL)
        printf("; allow with: %s", cmd);
    if (e->by == EGRESS_BY_SANDBOX)
        fputs("  [the sandbox's own check, before the agent started]", stdout);
    else if (e->by == EGRESS_BY_VERIFY)
        fputs("  [verify's probe]", stdout);
    putchar('\n');
}

static int print_json(const egress_event_t *e, const log_source_t *src)
{
    static const char *const failures[] = { NULL, "unresolved", "unreachable" };
    char when[32];
    struct tm tm;
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&e->time, &tm));
    _cleanup_free_ char *name = path_escaped(e->name);
    _cleanup_free_ char *cmd = e->denied && !e->by_rule ? allow_command(e, src) : NULL;
    _cleanup_(json_gen_freep) json_gen_t *g = json_gen_new();
    if (g == NULL || name == NULL)
        return -ENOMEM;
    json_obj_open(g);
    json_kv_str(g, "time", when);
    json_kv_str(g, "session", src->id);
    json_kv_str(g, "kind", e->kind);
    json_kv_str(g, "name", name);
    json_kv_int(g, "port", e->port);
    json_kv_str(g, "verdict", e->denied ? "deny" : "allow");
    if (e->by_rule)
        json_kv_bool(g, "rule", true);
    json_kv_str(g, "by", egress_by_name(e->by));
    if (failures[e->failure] != NULL)
        json_kv_str(g, "failure", failures[e->failure]);
    if (strcmp(e->kind, "dns") == 0) {
        json_kv_str(g, "type", e->qtype);
        json_kv_str(g, "answer", e->answer);
    } else {
        json_kv_str(g, "upstream", e->upstream);
        json_kv_str(g, "upstream_addr", e->upstream_addr);
        json_kv_int(g, "status", e->status);
        json_kv_int(g, "sent", e->sent);
        json_kv_int(g, "received", e->received);
    }
    if (cmd != NULL)
        json_kv_str(g, "allow", cmd);
    json_obj_close(g);
    _cleanup_free_ char *text = NULL;
    as_error_t *err = NULL;
    int r = json_gen_finish(g, &text, &err);
    if (r < 0) {
        report_error(&err);
        return r;
    }
    puts(text);
    return 0;
}

static int print_event(const egress_event_t *e, void *ctx)
{
    const printer_t *p = ctx;
    /* --denied: what the agent was refused (the sandbox's own checks are
     * refused on purpose, and marked in the whole log) */
    if (p->args->denied && (!e->denied || e->by != EGRESS_BY_AGENT))
        return 0;
    if (p->args->json)
        return print_json(e, p->src);
    print_text(e, p->src);
    return 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Everything so far; with --follow, then what comes while the session runs. */
static int print_log(const log_args_t *a, const log_source_t *src)
{
    as_error_t *err = NULL;
    egress_log_reader_t *r = NULL;
    printer_t p = { a, src };
    _cleanup_free_ char *base = NULL;
    int rc = egress_log_open(src->dir, &r, &err);
    if (rc == 0 && a->follow && src->running)
        rc = session_base_dir(&base, &err);
    bool more = true;
    while (rc == 0 && more) {
        /* the last read after the session ended: nothing is lost */
        more = base != NULL && session_dir_live(base, src->id);
        if ((rc = egress_log_read(r, print_event, &p, &err)) == 0 && more) {
            fflush(stdout);
            sleep_ms(FOLLOW_INTERVAL_MS);
        }
    }
    egress_log_close(r);
    if (rc < 0 && err != NULL)
        report_error(&err);
    return rc < 0 ? EXIT_INTERNAL : 0;
}

/* Whose log this is, on stderr: stdout stays the log alone (--json: JSON
 * lines and nothing else). */
static void put_header(const log_source_t *src)
{
    msg_t m;
    as_error_t *err = NULL;
    _cleanup_free_ char *text = NULL;
    if (msg_open(&m, &err) < 0) {
        as_error_free(&err);
        return;
    }
    fprintf(m.f, "log of session %s", src->id);
    if (src->launch_dir != NULL) {
        fputs(", in ", m.f);
        session_put_dir(m.f, src->launch_dir);
    }
    fputs(src->running ? ", running" : ", ended (its logs kept in ", m.f);
    if (!src->running) {
        session_put_dir(m.f, src->dir);
        fputc(')', m.f);
    }
    if (msg_close(&m, &text, &err) < 0) {
        as_error_free(&err);
        return;
    }
    report("%s", text);
}

int cmd_log(int argc, char **argv)
{
    log_args_t a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    log_source_t src = {0};
    if ((rc = runtime_dir_settle()) == 0 && (rc = find_source(a.id, &src)) == 0) {
        put_header(&src);
        rc = print_log(&a, &src);
    }
    free(src.dir);
    free(src.launch_dir);
    return rc;
}
