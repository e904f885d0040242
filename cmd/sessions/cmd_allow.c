/* `agent-sandbox allow NAME[:PORT]... [--session ID] [--save]` and
 * `agent-sandbox deny NAME... [--session ID]`: change what a running
 * session may reach, without restarting its agent (lib/egress/egress_live.h);
 * --save also adds the names to the allowlist file the session started
 * with (lib/config/allowlist_save.h). Only the user runs these: nothing of the
 * control path is inside the sandbox (docs/threat-model.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shared/cli.h"
#include "shared/backend.h"
#include "shared/cli_env.h"
#include "session/session_load.h"
#include "shared/session_list.h"
#include "base/escape.h"
#include "base/msg.h"
#include "base/util.h"
#include "config/allowlist.h"
#include "config/allowlist_save.h"
#include "egress/egress_live.h"
#include "session/session_find.h"

/* The synopsis for an error; `--help` prints the whole (cmd/main.c's table). */
#define ALLOW_SYNOPSIS "usage: agent-sandbox allow NAME[:PORT]... [--session ID] [--save] (see --help)"
#define DENY_SYNOPSIS "usage: agent-sandbox deny NAME... [--session ID] (see --help)"

typedef struct live_args {
    const char **names;
    size_t n;
    const char *session;
    bool save;
} live_args_t;

/* One option of allow or deny at argv[*i]: 0, or an exit code, reported. */
static int parse_option(int argc, char **argv, int *i, bool allow, live_args_t *a)
{
    const char *command = allow ? "allow" : "deny";
    static const char *const allow_known[] = { "--session", "--save" }, *const deny_known[] = { "--session" };
    const char *arg = argv[*i];
    if (allow && strcmp(arg, "--save") == 0) {
        a->save = true;
    } else if (strcmp(arg, "--session") == 0) {
        if (*i + 1 >= argc || argv[*i + 1][0] == '-')
            return cli_missing_value(command, "--session", "a session's ID");
        a->session = argv[++*i];
    } else if (strncmp(arg, "--session=", 10) == 0) {
        if (arg[10] == '\0')
            return cli_missing_value(command, "--session", "a session's ID");
        a->session = arg + 10;
    } else {
        return cli_bad_argument(command, arg, allow ? allow_known : deny_known,
                                allow ? ARRAY_SIZE(allow_known) : ARRAY_SIZE(deny_known));
    }
    return 0;
}

static int parse_args(int argc, char **argv, bool allow, live_args_t *ret)
{
    const char *usage = allow ? ALLOW_SYNOPSIS : DENY_SYNOPSIS;
    live_args_t a = { .names = calloc((size_t)argc, sizeof(char *)) };
    if (a.names == NULL)
        return EXIT_INTERNAL;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' || argv[i][1] != '-') {
            a.names[a.n++] = argv[i];
            continue;
        }
        int rc = parse_option(argc, argv, &i, allow, &a);
        if (rc != 0) {
            free(a.names);
            return rc;
        }
    }
    if (a.n == 0) {
        report("error: no name given\n%s", usage);
        free(a.names);
        return EXIT_USAGE;
    }
    *ret = a;
    return 0;
}

/* Every name through the allowlist's own checks, one by one; then
 * together, so that two ports of one host make one entry. */
static int parse_names(const live_args_t *a, const char *verb, allowlist_t **ret)
{
    as_error_t *err = NULL;
    msg_t m;
    if (msg_open(&m, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    for (size_t i = 0; i < a->n; i++) {
        _cleanup_(allowlist_freep) allowlist_t *one = NULL;
        if (allowlist_parse_entry(a->names[i], &one, &err) < 0) {
            _cleanup_free_ char *shown = path_escaped(a->names[i]);
            report("error: cannot %s `%s`: %s", verb, shown ? shown : "?", err->msg);
            as_error_free(&err);
            msg_discard(&m);
            return EXIT_USAGE;
        }
        allowlist_put_entry(m.f, &one->entries[0]);
    }
    _cleanup_free_ char *text = NULL;
    if (msg_close(&m, &text, &err) < 0 || allowlist_parse("", text, strlen(text), ret, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    return 0;
}

/* `allow --save` without --session: the session the rule picks; with
 * several running and none in this directory, none (the file is still
 * written, and no session is guessed at). */
static int save_default(const session_found_t *v, size_t n, size_t *ret_index)
{
    const char *dirs[n + 1];
    for (size_t i = 0; i < n; i++)
        dirs[i] = v[i].launch_dir;
    _cleanup_free_ char *cwd = cwd_resolved();
    if (n == 1 || (cwd != NULL && session_pick_by_dir(dirs, n, cwd, ret_index) == 0)) {
        if (n == 1)
            *ret_index = 0;
        return 0;
    }
    if (n > 1)
        report("note: %zu sessions are running, none started in this directory or above it: none of "
               "them is changed (name one with --session ID to change it too)", n);
    return -ENOENT;
}

/* The session to change: the one named, else the current directory's,
 * else the only one running (cmd/shared/session_list.h). *ret_path is NULL when
 * none runs and none was named (`allow --save`). */
static int pick_session(const char *command, const char *id, bool none_ok, char **ret_path,
                        char ret_id[SESSION_ID_LEN + 1])
{
    session_found_t *v = NULL;
    size_t n = 0, at = 0;
    as_error_t *err = NULL;
    if (session_find_live(&v, &n, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    sessions_found_keep_test_root(v, &n);
    int rc = 0, r = id != NULL ? session_found_pick(v, n, id, &at)
                   : none_ok ? save_default(v, n, &at) : session_found_default(command, v, n, &at);
    if (id != NULL && r < 0) {
        _cleanup_free_ char *shown = path_escaped(id);
        report("error: %s: %s session %s is running%s", command, r == -EEXIST ? "more than one" : "no",
               shown ? shown : "?", r == -EEXIST ? ": give more of its ID" : " (`agent-sandbox ps` lists them)");
        rc = EXIT_USAGE;
    } else if (r > 0) {
        rc = r;                          /* which session? (reported) */
    } else if (r == -ENOENT && !none_ok) {
        report("error: %s: no session is running", command);
        rc = EXIT_USAGE;
    } else if (r == 0) {
        if ((*ret_path = strdup(v[at].path)) == NULL)
            rc = EXIT_INTERNAL;
        snprintf(ret_id, SESSION_ID_LEN + 1, "%s", v[at].id);
    }
    session_found_free(v, n);
    return rc;
}

static int apply(egress_live_t *live, const allowlist_t *al, const char *id)
{
    as_error_t *err = NULL;
    if (egress_live_apply(live, al, &err) < 0) {
        report("error: session %s: %s; its allowlist is as it was", id, err->msg);
        as_error_free(&err);
        return EXIT_SETUP;
    }
    return 0;
}

/* The session's state, locked, and a copy of its list to change (the
 * networks borrowed: free it with free_copy). 0 or an exit code. */
static int open_change(const char *dir, egress_live_t **ret_live, allowlist_t **ret_next)
{
    as_error_t *err = NULL;
    _cleanup_(egress_live_closep) egress_live_t *live = NULL;
    _cleanup_(allowlist_freep) allowlist_t *next = NULL;
    if (egress_live_open(dir, &live, &err) < 0) {
        report_error(&err);
        return EXIT_SETUP;
    }
    const allowlist_t *have = egress_live_allowlist(live);
    int r = allowlist_parse("", "", 0, &next, &err);
    for (size_t i = 0; r == 0 && i < have->n_entries; i++)
        r = allowlist_append(next, &have->entries[i], &err);
    if (r < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    next->nets = have->nets;        /* borrowed: free_copy() gives them back */
    next->n_nets = have->n_nets;
    *ret_live = steal_pointer(&live);
    *ret_next = steal_pointer(&next);
    return 0;
}

static void free_copy(allowlist_t *next)
{
    if (next != NULL) {
        next->nets = NULL;
        next->n_nets = 0;
    }
    allowlist_free(next);
}

/* Adds what the session does not allow yet; a new port is refused (a
 * running session has no listener for it), or only noted with --save. */
static int allow_live(const char *dir, const char *id, const allowlist_t *want, bool save,
                      char **ret_source)
{
    egress_live_t *live = NULL;
    allowlist_t *next = NULL;
    as_error_t *err = NULL;
    int rc = open_change(dir, &live, &next);
    if (rc != 0)
        return rc;
    const char *source = egress_live_source(live);
    if (source != NULL && (*ret_source = strdup(source)) == NULL)
        rc = EXIT_INTERNAL;
    const allowlist_t *have = egress_live_allowlist(live);
    bool added[want->n_entries + 1];
    size_t n_added = 0;
    for (size_t i = 0; i < want->n_entries && rc == 0; i++) {
        const allowlist_entry_t *e = &want->entries[i];
        const allowlist_entry_t *cover = e->wildcard ? NULL : allowlist_covering(have, e->name);
        added[i] = false;
        if (allowlist_allows(have, e)) {
            report("%s%s is already allowed in session %s%s%s", e->wildcard ? "." : "", e->name, id,
                   cover != NULL ? " by ." : "", cover != NULL ? cover->name : "");
        } else if (e->n_ports > 0) {
            report("%s %s:%u: a running session cannot open a new port%s", save ? "note:" : "error:",
                   e->name, e->ports[0].port, save ? "; it is saved for the next sessions"
                   : "; add --save to allow it from the next session on");
            rc = save ? 0 : EXIT_USAGE;
        } else if (allowlist_append(next, e, &err) < 0) {
            report_error(&err);
            rc = EXIT_SETUP;
        } else {
            added[i] = true;
            n_added++;
        }
    }
    if (rc == 0 && n_added > 0 && (rc = apply(live, next, id)) == 0)
        for (size_t i = 0; i < want->n_entries; i++)
            if (added[i])
                report("allowed %s%s in session %s: the agent can reach it now",
                       want->entries[i].wildcard ? "." : "", want->entries[i].name, id);
    free_copy(next);
    egress_live_close(live);
    return rc;
}

/* --save: into the session's file, or (no session) the one new sessions read. */
static int save_names(const allowlist_t *want, const char *source)
{
    _cleanup_free_ char *path = NULL;
    if (source == NULL) {
        session_env_t vars = cli_env()->vars;
        int rc = exit_code_of(allowlist_config_path(&vars, &cli_say, &path));
        if (rc != 0)
            return rc;
        source = path;
    }
    char comment[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(comment, sizeof(comment), "added by agent-sandbox allow, %Y-%m-%d",
             localtime_r(&now, &tm));
    allowlist_save_result_t res;
    as_error_t *err = NULL;
    _cleanup_free_ char *shown = path_escaped(source);
    if (allowlist_save(source, want, comment, &res, &err) < 0) {
        as_error_prefix(&err, "saving to %s", shown ? shown : "the allowlist file");
        report_config_errors(&err);
        return EXIT_CONFIG;
    }
    if (res.added > 0)
        report("saved %zu %s to %s", res.added, plural(res.added, "name", "names"),
               shown ? shown : "the allowlist file");
    if (res.present > 0)
        report("%s allows %zu of them already", shown ? shown : "the allowlist file", res.present);
    return 0;
}

/* allow: live (when a session runs), then --save. */
static int allow_names(const live_args_t *a, const allowlist_t *want, const char *dir, const char *id)
{
    _cleanup_free_ char *source = NULL;
    int rc = dir != NULL ? allow_live(dir, id, want, a->save, &source) : 0;
    return rc == 0 && a->save ? save_names(want, source) : rc;
}

typedef int (*live_fn)(const live_args_t *a, const allowlist_t *names, const char *dir,
                       const char *id);
static int deny_names(const live_args_t *a, const allowlist_t *names, const char *dir,
                      const char *id);

/* The arguments, the names through the allowlist's checks, the session;
 * then `fn`. Only `allow --save` runs with no session. */
static int live_command(int argc, char **argv, bool allow, live_fn fn)
{
    live_args_t a;
    int rc = parse_args(argc, argv, allow, &a);
    if (rc != 0)
        return rc;
    _cleanup_(allowlist_freep) allowlist_t *names = NULL;
    _cleanup_free_ char *dir = NULL;
    char id[SESSION_ID_LEN + 1] = "";
    if ((rc = runtime_dir_settle()) == 0 &&
             (rc = parse_names(&a, allow ? "allow" : "deny", &names)) == 0 &&
             (rc = pick_session(allow ? "allow" : "deny", a.session, allow && a.save && a.session == NULL,
                                &dir, id)) == 0)
        rc = fn(&a, names, dir, id);
    free(a.names);
    return rc;
}

int cmd_allow(int argc, char **argv)
{
    return live_command(argc, argv, true, allow_names);
}

int cmd_deny(int argc, char **argv)
{
    return live_command(argc, argv, false, deny_names);
}

/* Takes the names off; a name only a wildcard allows, or one with ports of
 * its own (its address and listeners are the pod's until the end), stays,
 * and the error says why. */
static int deny_live(const char *dir, const char *id, const allowlist_t *names)
{
    egress_live_t *live = NULL;
    allowlist_t *next = NULL;
    int rc = open_change(dir, &live, &next);
    if (rc != 0)
        return rc;
    const allowlist_t *have = egress_live_allowlist(live);
    size_t removed = 0;
    for (size_t i = 0; i < names->n_entries && rc == 0; i++) {
        const allowlist_entry_t *e = &names->entries[i], *in = allowlist_find(have, e->name, e->wildcard);
        const allowlist_entry_t *cover = e->wildcard ? NULL : allowlist_covering(have, e->name);
        const char *dot = e->wildcard ? "." : "";
        if (e->n_ports > 0) {
            report("error: %s:%u: deny takes a name; its ports go with it", e->name, e->ports[0].port);
            rc = EXIT_USAGE;
        } else if (in != NULL && in->n_ports > 0) {
            report("error: %s has ports of its own in session %s; a running session keeps them "
                   "(and the name) until it ends", e->name, id);
            rc = EXIT_USAGE;
        } else if (in == NULL && cover != NULL) {
            report("error: %s is allowed in session %s by .%s; deny .%s to take the whole "
                   "domain off", e->name, id, cover->name, cover->name);
            rc = EXIT_USAGE;
        } else if (in == NULL) {
            report("%s%s is not allowed in session %s: nothing to take off", dot, e->name, id);
        } else {
            allowlist_remove(next, e->name, e->wildcard);
            removed++;
        }
    }
    if (rc == 0 && removed > 0 && (rc = apply(live, next, id)) == 0)
        for (size_t i = 0; i < names->n_entries; i++)
            if (allowlist_find(have, names->entries[i].name, names->entries[i].wildcard) != NULL)
                report("denied %s%s in session %s: new connections to it are refused; open ones "
                       "stay", names->entries[i].wildcard ? "." : "", names->entries[i].name, id);
    free_copy(next);
    egress_live_close(live);
    return rc;
}

static int deny_names(const live_args_t *a, const allowlist_t *names, const char *dir,
                      const char *id)
{
    (void)a;
    return deny_live(dir, id, names);
}
