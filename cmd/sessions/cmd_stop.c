/* `agent-sandbox stop [--now] ID...|--all`: ends running sessions as SIGTERM
 * to their CLI does (the teardown of Ctrl-C: the agent gets the signal, as
 * SIGHUP with a TTY, then every resource goes, newest first), and waits
 * until each one is gone. The session's own CLI says who stopped it and
 * exits with its usual code (143). A session whose agent ignores the
 * signal gets a second one after STOP_GRACE_MS (at once with --now), which
 * its CLI turns into SIGKILL for the agent (137). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cli.h"
#include "shared/session_list.h"
#include "base/util.h"

#define STOP_GRACE_MS    10000L
#define STOP_TIMEOUT_MS  60000L
#define STOP_POLL_MS     100
#define STOP_PENDING_POLL_MS 5   /* --now: until the first signal was taken */

/* The entries `arg` names: its whole ID or a prefix of one alone. */
static const session_entry_t *find_session(session_entry_t **v, size_t n, const char *arg)
{
    const session_entry_t *found = NULL;
    size_t len = strlen(arg);
    for (size_t i = 0; len > 0 && i < n; i++) {
        if (strncmp(v[i]->id, arg, len) != 0)
            continue;
        if (found != NULL) {
            report("error: stop: %s names more than one session; give more of its ID", arg);
            return NULL;
        }
        found = v[i];
    }
    if (found == NULL)
        report("error: stop: no running session %s (`agent-sandbox ps` lists them)", arg);
    return found;
}

/* Signals each chosen session; those that cannot be are dropped from the
 * choice (ended meanwhile, or not ours to signal). */
static int signal_all(const session_entry_t **chosen, size_t n, bool again)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (chosen[i] == NULL)
            continue;
        as_error_t *err = NULL;
        if (session_entry_signal(chosen[i], SIGTERM, &err) < 0) {
            bool ended = err->code == ESRCH;     /* then the wait says so */
            if (!ended) {
                report_error(&err);
                rc = 1;
            }
            as_error_free(&err);
            if (!ended || !again)
                chosen[i] = NULL;
            continue;
        }
        if (!again) {
            _cleanup_free_ char *what = session_describe(chosen[i]);
            report("stopping %s", what != NULL ? what : chosen[i]->id);
        }
    }
    return rc;
}

/* Whether a chosen session has not yet taken the signal sent to it: a
 * second SIGTERM sent then would merge with the first (standard signals are
 * not queued), and the session would hear one. */
static bool any_pending(const session_entry_t **chosen, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (chosen[i] != NULL && session_entry_signal_pending(chosen[i], SIGTERM))
            return true;
    return false;
}

/* Waits until no chosen session runs, with a second signal to those still
 * running after the grace (with --now, as soon as each took the first). 0,
 * or 1 after naming those left running. */
static int wait_all(const session_entry_t **chosen, size_t n, long grace_ms)
{
    long start = monotonic_ms();
    bool again = false;
    for (;;) {
        size_t running = 0;
        for (size_t i = 0; i < n; i++) {
            if (chosen[i] != NULL && !session_entry_live(chosen[i])) {
                report("stopped session %s", chosen[i]->id);
                chosen[i] = NULL;
            }
            running += chosen[i] != NULL;
        }
        if (running == 0)
            return 0;
        long waited = monotonic_ms() - start;
        if (waited >= STOP_TIMEOUT_MS)
            break;
        if (!again && waited >= grace_ms && !any_pending(chosen, n)) {
            signal_all(chosen, n, true);
            again = true;
        }
        poll(NULL, 0, again || grace_ms > 0 ? STOP_POLL_MS : STOP_PENDING_POLL_MS);
    }
    for (size_t i = 0; i < n; i++)
        if (chosen[i] != NULL)
            report("error: session %s (PID %d) is still running after %ld s", chosen[i]->id,
                   (int)chosen[i]->pid, STOP_TIMEOUT_MS / 1000);
    return 1;
}

/* No ID: the session started in the current directory or above it, only
 * (cmd/shared/session_list.h); never a guess among others. 0 and *ret; -ENOENT
 * when none runs (said); EXIT_USAGE after naming those that run. */
static int session_here(session_entry_t **v, size_t n, const session_entry_t **ret)
{
    const char *ids[n + 1], *dirs[n + 1];
    for (size_t i = 0; i < n; i++) {          /* newest first */
        ids[i] = v[n - 1 - i]->id;
        dirs[i] = v[n - 1 - i]->launch_dir;
    }
    size_t at = 0;
    int r = session_default("stop", ids, dirs, n, false, &at);
    if (r == -ENOENT)
        report("no session is running");
    if (r != 0)
        return r;
    *ret = v[n - 1 - at];
    return 0;
}

int cmd_stop(int argc, char **argv)
{
    bool now = false;            /* the second signal, the kill, without the grace */
    int kept = 1;
    for (int i = 1; i < argc; i++) {     /* --now anywhere: the rest keep their order */
        if (strcmp(argv[i], "--now") == 0)
            now = true;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    bool all = argc == 2 && strcmp(argv[1], "--all") == 0, here = argc < 2;
    for (int i = 1; !all && i < argc; i++)
        if (argv[i][0] == '-') {
            static const char *const known[] = { "--all", "--now" };
            return cli_bad_argument("stop", argv[i], known, ARRAY_SIZE(known));
        }
    session_entry_t **v = NULL;
    size_t n = 0;
    int rc = sessions_load(&v, &n);
    if (rc != 0)
        return rc;
    size_t n_chosen = all ? n : here ? 1 : (size_t)argc - 1;
    const session_entry_t **chosen = calloc(n_chosen + 1, sizeof(*chosen));
    if (chosen == NULL) {
        session_entries_free(v, n);
        return EXIT_INTERNAL;
    }
    if (here && (rc = session_here(v, n, &chosen[0])) != 0) {
        free(chosen);
        session_entries_free(v, n);
        return rc < 0 ? 0 : rc;
    }
    for (size_t i = 0; !here && i < n_chosen; i++) {
        chosen[i] = all ? v[i] : find_session(v, n, argv[i + 1]);
        if (chosen[i] == NULL)
            rc = EXIT_USAGE;             /* names no running session, as for allow, deny, log */
        for (size_t j = 0; j < i && chosen[i] != NULL; j++)
            if (chosen[j] == chosen[i])
                chosen[i] = NULL;        /* named twice: signalled once */
    }
    if (all && n == 0)
        report("no session is running");
    /* the first failure decides: a usage error stays one (64), never 1 */
    if (signal_all(chosen, n_chosen, false) != 0 && rc == 0)
        rc = 1;
    if (wait_all(chosen, n_chosen, now ? 0 : STOP_GRACE_MS) != 0 && rc == 0)
        rc = 1;
    free(chosen);
    session_entries_free(v, n);
    return rc;
}
