/* `agent-sandbox diff [ID] [--stat] [PATH...]`: a review's changes against
 * the host tree (docs/review.md). Text files as a unified diff (diff(1)
 * reads both sides through descriptors opened here without following a
 * link); binary files, modes, links, deletions and special files named in
 * a line each. A pager on a terminal ($PAGER, else less -FRX), plain in
 * a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "review.h"
#include "base/escape.h"
#include "base/spawn.h"
#include "base/util.h"
#include "review/review_changes.h"

typedef struct diff_args {
    const char *id;
    bool stat;
    char **paths;     /* argv's, NULL-terminated; none: everything */
} diff_args_t;

/* Opens dir/rel for reading without following a link at its end: a
 * regular file's descriptor, else -1 (the caller names the entry). */
static int open_regular(const char *dir, const char *rel)
{
    _cleanup_free_ char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, rel) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* diff -u of the host's and the review's file (-1: /dev/null), written
 * to out. */
static int unified(FILE *out, const review_change_t *c, int old_fd, int new_fd, const char *shown)
{
    char a[32] = "/dev/null", b[32] = "/dev/null";
    _cleanup_free_ char *la = NULL, *lb = NULL;
    if (old_fd >= 0)
        snprintf(a, sizeof(a), "/dev/fd/%d", old_fd);
    if (new_fd >= 0)
        snprintf(b, sizeof(b), "/dev/fd/%d", new_fd);
    if (asprintf(&la, "a/%s", shown) < 0 || asprintf(&lb, "b/%s", shown) < 0)
        return -ENOMEM;
    fflush(out);
    char *argv[] = { "diff", "-u", "--label", old_fd >= 0 ? la : "/dev/null", "--label",
                     new_fd >= 0 ? lb : "/dev/null", a, b, NULL };
    int r = spawn_and_wait(argv, NULL, &(spawn_io_t){ .stdout_fd = fileno(out) }, NULL);
    (void)c;
    /* diff: 0 same, 1 different, 2 trouble; a failed start or wait is trouble too */
    return r < 0 ? r : r <= 1 ? 0 : -EIO;
}

static void name_link(FILE *out, const review_change_t *c, const char *shown)
{
    _cleanup_free_ char *t = c->target ? path_escaped(c->target) : NULL;
    _cleanup_free_ char *h = c->host_target ? path_escaped(c->host_target) : NULL;
    if (c->type == REVIEW_SYMLINK && c->host_type == REVIEW_SYMLINK)
        fprintf(out, "symlink %s -> %s (was -> %s)\n", shown, t ? t : "?", h ? h : "?");
    else if (c->type == REVIEW_SYMLINK)
        fprintf(out, "symlink %s -> %s%s\n", shown, t ? t : "?",
                c->host_type != REVIEW_NONE ? " (was a file or directory)" : " (new)");
    else if (c->host_type == REVIEW_SYMLINK && c->type != REVIEW_NONE)
        fprintf(out, "symlink %s (-> %s) replaced by a %s\n", shown, h ? h : "?", review_type_name(c->type));
}

/* One change, as the full diff shows it. */
static int show_change(FILE *out, const review_info_t *r, const review_change_t *c)
{
    _cleanup_free_ char *shown = path_escaped(c->path);
    if (shown == NULL)
        return -ENOMEM;
    if (c->unexamined != NULL) {
        fprintf(out, "unexamined %s: %s (apply refuses it)\n", shown, c->unexamined);
        return 0;
    }
    if (c->kind == REVIEW_DELETED) {
        fprintf(out, "deleted %s %s\n", review_type_name(c->host_type), shown);
        return 0;
    }
    if (c->type == REVIEW_SYMLINK || c->host_type == REVIEW_SYMLINK)
        name_link(out, c, shown);
    if (c->type != REVIEW_FILE && c->type != REVIEW_DIR && c->type != REVIEW_SYMLINK)
        fprintf(out, "%s %s %s (apply refuses it)\n", c->kind == REVIEW_ADDED ? "new" : "now a",
                review_type_name(c->type), shown);
    if (c->kind == REVIEW_ADDED && c->type == REVIEW_DIR)
        fprintf(out, "new directory %s (mode %04o)\n", shown, (unsigned)c->mode);
    if (c->kind == REVIEW_MODIFIED && c->mode_changed)
        fprintf(out, "mode %s %04o -> %04o\n", shown, (unsigned)c->host_mode, (unsigned)c->mode);
    if (c->type != REVIEW_FILE || (c->kind == REVIEW_MODIFIED && !c->content_changed))
        return 0;
    if (c->kind == REVIEW_ADDED)
        fprintf(out, "new file %s (mode %04o)\n", shown, (unsigned)c->mode);
    _cleanup_close_ int new_fd = open_regular(r->upper, c->path);
    _cleanup_close_ int old_fd = c->host_type == REVIEW_FILE ? open_regular(r->root, c->path) : -1;
    if (new_fd < 0 || (c->host_type == REVIEW_FILE && old_fd < 0)) {
        fprintf(out, "changed %s (could not be read for its diff)\n", shown);
        return 0;
    }
    return unified(out, c, old_fd, new_fd, shown);
}

/* One line a change, for --stat. */
static void stat_change(FILE *out, const review_change_t *c)
{
    _cleanup_free_ char *shown = path_escaped(c->path);
    char letter = c->kind == REVIEW_ADDED ? 'A' : c->kind == REVIEW_DELETED ? 'D' : 'M';
    fprintf(out, " %c %s", letter, shown != NULL ? shown : "?");
    if (c->unexamined != NULL)
        fputs("  (unexamined)", out);
    else if (c->kind == REVIEW_MODIFIED && c->type == REVIEW_FILE && c->content_changed)
        fprintf(out, "  (%lld -> %lld bytes)", (long long)c->host_size, (long long)c->size);
    else if (c->kind == REVIEW_ADDED && c->type == REVIEW_FILE)
        fprintf(out, "  (%lld bytes)", (long long)c->size);
    if (c->kind == REVIEW_MODIFIED && c->mode_changed)
        fprintf(out, "  (mode %04o -> %04o)", (unsigned)c->host_mode, (unsigned)c->mode);
    if (c->type != REVIEW_FILE && c->type != REVIEW_NONE)
        fprintf(out, "  (%s)", review_type_name(c->type));
    fputc('\n', out);
}

static bool wanted(const review_change_t *c, char *const *paths)
{
    if (paths == NULL || paths[0] == NULL)
        return true;
    for (size_t i = 0; paths[i] != NULL; i++)
        if (review_change_under(c, paths[i]))
            return true;
    return false;
}

/* The pager on a terminal: $PAGER (empty: none), else less -FRX. */
static FILE *pager_open(void)
{
    if (!isatty(STDOUT_FILENO))
        return NULL;
    const char *pager = cli_env()->pager;
    if (pager != NULL && pager[0] == '\0')
        return NULL;
    if (pager == NULL)
        setenv("LESS", "FRX", 0);
    signal(SIGPIPE, SIG_IGN);      /* the user may quit the pager early */
    return popen(pager != NULL ? pager : "less", "w");
}

/* The index of the first argument that is no option (--stat) before i. */
static int first_word(char **argv, int i)
{
    int k = 1;
    while (k < i && argv[k][0] == '-')
        k++;
    return k;
}

/* Whether a first word is an ID (or 4 of its digits at least) that names a
 * review: else it is a PATH (docs/review.md). */
static bool names_review(const char *word)
{
    size_t n = strlen(word);
    if (n < 4 || n > 12 || strspn(word, "0123456789abcdef") != n)
        return false;
    review_info_t r = { 0 };
    as_error_t *err = NULL;
    int k = review_store_load(word, &r, &err);
    review_info_clear(&r);
    as_error_free(&err);
    return k == 0 || k == -EINVAL;     /* ambiguous: said by the load that follows */
}

static int parse_args(int argc, char **argv, diff_args_t *ret)
{
    static const char *const known[] = { "--stat", "--" };
    *ret = (diff_args_t){ 0 };
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--stat") == 0)
            ret->stat = true;
        else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (argv[i][0] == '-')
            return cli_bad_argument("diff", argv[i], known, ARRAY_SIZE(known));
        else if (ret->id == NULL && i == first_word(argv, i) && names_review(argv[i]))
            ret->id = argv[i];
        else
            break;
    }
    ret->paths = argv + i;
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    diff_args_t a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    _cleanup_(review_info_clear) review_info_t r = { 0 };
    if ((rc = review_pick(a.id, &r)) != 0)
        return rc;
    as_error_t *err = NULL;
    _cleanup_(review_changes_freep) review_changes_t *c = NULL;
    if (review_changes_list(r.upper, r.root, &c, &err) < 0) {
        as_error_prefix(&err, "review %s", r.id);
        report_error(&err);
        return EXIT_CONFIG;
    }
    FILE *pager = a.stat ? NULL : pager_open();
    FILE *out = pager != NULL ? pager : stdout;
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        if (!wanted(&c->v[i], a.paths))
            continue;
        if (a.stat)
            stat_change(out, &c->v[i]);
        else if (show_change(out, &r, &c->v[i]) < 0)
            rc = EXIT_INTERNAL;
    }
    if (a.stat) {
        _cleanup_free_ char *line = review_summary_of(c, &err);
        fprintf(out, "%s\n", line != NULL ? line : "(no summary: out of memory)");
        as_error_free(&err);
    }
    if (pager != NULL)
        pclose(pager);
    if (rc != 0)
        report("error: diff(1) failed for review %s", r.id);
    return rc;
}
