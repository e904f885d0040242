/* `agent-sandbox reviews` and `discard [ID]`, the review a command means,
 * and cleanup's rule for old reviews (docs/review.md). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "review.h"
#include "base/escape.h"
#include "base/util.h"
#include "session/labels.h"
#include "session/session_find.h"

#define NS_PER_S 1000000000LL

int review_pick(const char *arg, review_info_t *ret)
{
    as_error_t *err = NULL;
    int r;
    if (arg != NULL) {
        r = review_store_load(arg, ret, &err);
    } else {
        char cwd[PATH_MAX];
        _cleanup_free_ char *resolved = getcwd(cwd, sizeof(cwd)) ? realpath(cwd, NULL) : NULL;
        if (resolved == NULL) {
            report("error: the current directory: %s", strerror(errno));
            return EXIT_USAGE;
        }
        r = review_store_latest_for_root(resolved, ret, &err);
    }
    if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE;
    }
    return 0;
}


/* Whether the review's session still runs (its CLI holds the lock). */
static bool review_running(const review_info_t *r)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *base = NULL;
    if (r->ended_ns != 0)
        return false;
    if (session_base_dir(&base, &err) < 0) {
        as_error_free(&err);
        return false;
    }
    return session_dir_live(base, r->id);
}

static void age_text(char buf[32], int64_t since_ns)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long s = now.tv_sec - since_ns / NS_PER_S;
    if (s < 0)
        s = 0;
    if (s < 120)
        snprintf(buf, 32, "%llds", s);
    else if (s < 7200)
        snprintf(buf, 32, "%lldm", s / 60);
    else if (s < 172800)
        snprintf(buf, 32, "%lldh", s / 3600);
    else
        snprintf(buf, 32, "%lldd", s / 86400);
}

static void size_text(char buf[32], uint64_t bytes)
{
    if (bytes < 1024 * 1024)
        snprintf(buf, 32, "%" PRIu64 "K", (bytes + 1023) / 1024);
    else if (bytes < 1024ULL * 1024 * 1024)
        snprintf(buf, 32, "%.1fM", (double)bytes / (1024.0 * 1024));
    else
        snprintf(buf, 32, "%.1fG", (double)bytes / (1024.0 * 1024 * 1024));
}

int cmd_reviews(int argc, char **argv)
{
    static const char *const known[] = { "--help" };
    if (argc > 1)
        return cli_bad_argument("reviews", argv[1], known, ARRAY_SIZE(known));
    as_error_t *err = NULL;
    review_info_t *v = NULL;
    size_t n = 0;
    if (review_store_list(&v, &n, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    if (n > 0)
        printf("%-12s  %-5s  %-7s  %-7s  %s\n", "ID", "AGE", "SIZE", "STATE", "DIRECTORY");
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bytes = 0;
        if (review_store_usage(&v[i], &bytes, &err) < 0) {
            report_error(&err);
            rc = EXIT_CONFIG;
        }
        _cleanup_free_ char *root = path_escaped(v[i].root);
        char age[32], size[32];
        age_text(age, v[i].started_ns);
        size_text(size, bytes);
        printf("%-12s  %-5s  %-7s  %-7s  %s\n", v[i].id, age, size, review_running(&v[i]) ? "running" : v[i].ended_ns != 0 ? "ended" : "killed",
               root != NULL ? root : "?");
    }
    review_list_free(v, n);
    return rc;
}

int cmd_discard(int argc, char **argv)
{
    static const char *const known[] = { "--help" };
    if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
        return cli_bad_argument("discard", argv[argc > 2 ? 2 : 1], known, ARRAY_SIZE(known));
    _cleanup_(review_info_clear) review_info_t r = { 0 };
    int rc = review_pick(argc == 2 ? argv[1] : NULL, &r);
    if (rc != 0)
        return rc;
    if (review_running(&r)) {
        report("error: review %s belongs to a running session: stop it first (agent-sandbox stop %s)",
               r.id, r.id);
        return EXIT_USAGE;
    }
    if ((rc = exit_code_of(review_remove(&r, &cli_say))) != 0)
        return rc;
    _cleanup_free_ char *root = path_escaped(r.root);
    report("discarded review %s of %s", r.id, root != NULL ? root : "?");
    return 0;
}

int review_cleanup(FILE *out)
{
    as_error_t *err = NULL;
    review_info_t *v = NULL;
    size_t n = 0;
    if (review_store_list(&v, &n, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t limit = (int64_t)now.tv_sec * NS_PER_S - (int64_t)REVIEW_KEEP_DAYS * 86400 * NS_PER_S;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t last = v[i].ended_ns != 0 ? v[i].ended_ns : v[i].started_ns;
        if (last >= limit || review_running(&v[i]))
            continue;
        if (review_remove(&v[i], &cli_say) != SESSION_OK) {
            rc = EXIT_CONFIG;
            continue;
        }
        _cleanup_free_ char *root = path_escaped(v[i].root);
        fprintf(out, "removed review %s of %s (older than %d days)\n", v[i].id, root ? root : "?",
                REVIEW_KEEP_DAYS);
    }
    review_list_free(v, n);
    return rc;
}
