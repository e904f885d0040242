/* `agent-sandbox ps [--json | -q]`: the running sessions, from the registry
 * in their directories (lib/session/session_registry.h), with the connections the
 * router denied so far, from its log in the session directory. Needs no
 * podman. Everything a session's text holds is escaped, in JSON too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cli.h"
#include "shared/session_list.h"
#include "base/escape.h"
#include "base/json.h"
#include "base/util.h"
#include "egress/session_logs.h"

/* Denied connections so far, or -1 when the log cannot be read. */
static long long denied_so_far(const session_entry_t *e)
{
    _cleanup_free_ char *log_dir = NULL;
    if (asprintf(&log_dir, "%s/router-log", e->dir) < 0)
        return -1;
    egress_summary_t sum = {0};
    as_error_t *err = NULL;
    if (egress_log_summary(log_dir, &sum, &err) < 0) {
        as_error_free(&err);
        return -1;
    }
    long long denied = (long long)sum.denied;
    egress_summary_clear(&sum);
    return denied;
}

static void print_table(session_entry_t **v, size_t n)
{
    printf("%-12s  %8s  %8s  %7s  %6s  %s  %s\n", "ID", "PID", "AGE", "ALLOWED", "DENIED", "DIRECTORY",
           "COMMAND");
    for (size_t i = 0; i < n; i++) {
        const session_entry_t *e = v[i];
        char age[32] = "";
        FILE *a = fmemopen(age, sizeof(age), "w");
        if (a != NULL) {
            session_put_age(a, session_age(e));
            fclose(a);
        }
        long long denied = denied_so_far(e);
        char denied_text[24] = "?";
        if (denied >= 0)
            snprintf(denied_text, sizeof(denied_text), "%lld", denied);
        printf("%-12s  %8d  %8s  %7lld  %6s  ", e->id, (int)e->pid, age, e->allowlist_entries, denied_text);
        session_put_dir(stdout, e->launch_dir);
        fputs("  ", stdout);
        session_put_command(stdout, e->command);
        fputc('\n', stdout);
    }
}

/* JSON strings escaped as the table's: valid UTF-8, safe on a terminal. */
static void kv_escaped(json_gen_t *g, const char *key, const char *value)
{
    _cleanup_free_ char *s = value != NULL ? path_escaped(value) : NULL;
    json_kv_str(g, key, s);
}

static void gen_entry(json_gen_t *g, const session_entry_t *e)
{
    json_obj_open(g);
    json_kv_str(g, "id", e->id);
    json_kv_int(g, "pid", e->pid);
    kv_escaped(g, "launch_dir", e->launch_dir);
    json_kv_int(g, "started", e->started);
    json_kv_int(g, "age_seconds", session_age(e));
    json_key(g, "command");
    json_arr_open(g);
    for (size_t i = 0; e->command != NULL && e->command[i] != NULL; i++) {
        _cleanup_free_ char *s = path_escaped(e->command[i]);
        json_str(g, s);
    }
    json_arr_close(g);
    kv_escaped(g, "agent", e->agent);
    kv_escaped(g, "image", e->image);
    json_key(g, "allowlist");
    json_obj_open(g);
    kv_escaped(g, "path", e->allowlist_path);
    json_kv_int(g, "entries", e->allowlist_entries);
    json_obj_close(g);
    long long denied = denied_so_far(e);
    json_key(g, "denied");
    if (denied >= 0)
        json_int(g, denied);
    else
        json_str(g, NULL);
    json_obj_close(g);
}

static int print_json(session_entry_t **v, size_t n)
{
    _cleanup_(json_gen_freep) json_gen_t *g = json_gen_new();
    if (g == NULL)
        return EXIT_INTERNAL;
    json_arr_open(g);
    for (size_t i = 0; i < n; i++)
        gen_entry(g, v[i]);
    json_arr_close(g);
    as_error_t *err = NULL;
    _cleanup_free_ char *text = NULL;
    int r = json_gen_finish(g, &text, &err);
    if (r < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    printf("%s\n", text);
    return 0;
}

int cmd_ps(int argc, char **argv)
{
    bool json = false, quiet = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
            quiet = true;
        } else {
            static const char *const known[] = { "--json", "--quiet", "-q" };
            return cli_bad_argument("ps", argv[i], known, ARRAY_SIZE(known));
        }
    }
    if (json && quiet) {
        report("error: ps: --json and -q do not go together");
        return EXIT_USAGE;
    }
    session_entry_t **v = NULL;
    size_t n = 0;
    int rc = sessions_load(&v, &n);
    if (rc != 0)
        return rc;
    if (json)
        rc = print_json(v, n);
    else if (quiet)
        for (size_t i = 0; i < n; i++)
            printf("%s\n", v[i]->id);
    else
        print_table(v, n);
    session_entries_free(v, n);
    return rc;
}
