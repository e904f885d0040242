/* The pure parts of the end-of-session git check: git's config syntax, the
 * whitelist, the shape of a git directory, .git and commondir files; and the
 * link resolver, checked against the kernel's own answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "config/git_config.h"
#include "workspace/git_repo.h"
#include "workspace/link_resolve.h"

/* ---- git config -------------------------------------------------------- */

typedef struct keys {
    char buf[4096];
} keys_t;

static int collect(void *ctx, const char *key, const char *value)
{
    keys_t *k = ctx;
    size_t l = strlen(k->buf);
    snprintf(k->buf + l, sizeof(k->buf) - l, "%s=%s|", key, value ? value : "(true)");
    return 0;
}

static const char *parse_ok(keys_t *k, const char *text)
{
    k->buf[0] = '\0';
    unsigned line = 0;
    int r = git_config_parse(text, strlen(text), collect, k, &line);
    if (r != 0)
        fail_msg("parse failed (%d) at line %u:\n%s", r, line, text);
    return k->buf;
}

static void config_syntax(void **state)
{
    (void)state;
    keys_t k;
    assert_string_equal(parse_ok(&k, "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"),
                        "core.repositoryformatversion=0|core.bare=false|");
    /* case: section and name lowercased, the subsection kept */
    assert_string_equal(parse_ok(&k, "[Remote \"Origin\"]\n\tURL = x\n"), "remote.Origin.url=x|");
    /* the old dotted form lowercases the subsection too */
    assert_string_equal(parse_ok(&k, "[remote.Origin]\nurl=x\n"), "remote.origin.url=x|");
    /* bare key, comments, quotes, escapes, continuation, trailing blanks */
    assert_string_equal(parse_ok(&k, "; c\n# c\n[a] k\n[a]\nv = \"x ; y\" # c\nw = a\\\nb  \nq = \"\\t\\\"\\\\\"\n"),
                        "a.k=(true)|a.v=x ; y|a.w=ab|a.q=\t\"\\|");
    /* a key on the header's line; escaped quote in a subsection */
    assert_string_equal(parse_ok(&k, "[core] fsmonitor = evil\n[x \"a\\\"b\"]\ny\n"),
                        "core.fsmonitor=evil|x.a\"b.y=(true)|");
    assert_string_equal(parse_ok(&k, "\xef\xbb\xbf[a]\nb=c"), "a.b=c|");
}

static void config_refusals(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "k = v\n",                    /* before any section */
        "[core\n",                    /* unterminated header */
        "[]\n",
        "[a \"b\n\"]\n",              /* newline in a subsection */
        "[a b]\n",                    /* subsection without quotes */
        "[a]\nv = \"open\n",          /* unterminated quote */
        "[a]\nv = \\q\n",             /* unknown escape */
        "[a]\n1v = x\n",              /* name not starting with a letter */
        "[a]\nv x\n",
        "[a_b]\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        keys_t k = { "" };
        if (git_config_parse(bad[i], strlen(bad[i]), collect, &k, NULL) != -EBADMSG)
            fail_msg("accepted: %s", bad[i]);
    }
    keys_t k = { "" };
    unsigned line = 0;
    assert_int_equal(git_config_parse("[a]\nb=c\0[core]\nfsmonitor=x\n", 27, collect, &k, &line), -EBADMSG);
    static const char unterminated[] = "[a]\nb=c\n[a]\nv=\"x\n";
    assert_int_equal(git_config_parse(unterminated, strlen(unterminated), collect, &k, &line), -EBADMSG);
    assert_int_equal(line, 4);
}

static void config_whitelist(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
        "remote.origin.url", "remote.origin.fetch", "branch.main.remote", "branch.main.merge",
        "submodule.lib.url", "submodule.lib.active", "extensions.objectformat", "user.email",
        "remote.a.b.c.url",           /* a subsection may hold dots */
    };
    static const char *const refused[] = {
        "core.fsmonitor", "core.hookspath", "core.sshcommand", "core.pager", "core.editor",
        "core.askpass", "core.gitproxy", "alias.st", "filter.x.clean", "filter.x.smudge",
        "filter.x.process", "diff.x.textconv", "diff.x.command", "diff.external", "credential.helper",
        "include.path", "includeif.gitdir:/x.path", "remote.origin.uploadpack",
        "remote.origin.receivepack", "remote.origin.vcs", "submodule.lib.update", "sequence.editor",
        "gpg.program", "protocol.ext.allow", "uploadpack.packobjectshook", "core.worktree.x",
        "remote.url", "core.x.bare", "merge.x.driver", "pager.log", "interactive.difffilter",
        "receive.procreceiverefs", "fsmonitor", "",
    };
    for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
        if (!git_config_key_allowed(ok[i]))
            fail_msg("refused %s", ok[i]);
    for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
        if (git_config_key_allowed(refused[i]))
            fail_msg("allowed %s", refused[i]);
}

/* Threat 56: the keys by which a read command reaches the network, a class
 * (a partial clone's, any remote's name); a plain clone's keys are none. */
static void config_keys_that_fetch(void **state)
{
    (void)state;
    static const char *const fetch[] = {
        "extensions.partialclone", "remote.origin.promisor", "remote.beacon.partialclonefilter",
        "remote.a.b.c.promisor", "core.partialclonefilter",
    };
    static const char *const quiet[] = {
        "remote.origin.url", "remote.origin.fetch", "extensions.objectformat", "core.bare", "promisor",
        "remote.promisor", "branch.promisor.remote", "submodule.x.url",
    };
    for (size_t i = 0; i < ARRAY_SIZE(fetch); i++)
        if (!git_config_key_fetches(fetch[i]))
            fail_msg("not taken for a fetching key: %s", fetch[i]);
    for (size_t i = 0; i < ARRAY_SIZE(quiet); i++)
        if (git_config_key_fetches(quiet[i]))
            fail_msg("taken for a fetching key: %s", quiet[i]);
}

/* ---- repository shape, .git and commondir files ----------------------- */

static unsigned flags_of(const char *const *names, size_t n)
{
    unsigned f = 0;
    for (size_t i = 0; i < n; i++)
        f |= git_dir_entry_flag(names[i]);
    return f;
}

static void repository_shapes(void **state)
{
    (void)state;
    const char *bare[] = { "HEAD", "objects", "refs", "config" };
    const char *worktree[] = { "HEAD", "commondir", "gitdir", "index" };
    const char *no_head[] = { "objects", "refs", "config" };
    const char *no_refs[] = { "HEAD", "objects", "config" };
    const char *plain[] = { "src", "README", "head" };
    assert_true(git_dir_shaped(flags_of(bare, ARRAY_SIZE(bare))));
    assert_true(git_dir_shaped(flags_of(worktree, ARRAY_SIZE(worktree))));
    assert_false(git_dir_shaped(flags_of(no_head, ARRAY_SIZE(no_head))));
    assert_false(git_dir_shaped(flags_of(no_refs, ARRAY_SIZE(no_refs))));
    assert_false(git_dir_shaped(flags_of(plain, ARRAY_SIZE(plain))));

    char *p = NULL;
    assert_int_equal(git_gitfile_parse("gitdir: ../x/.git\r\n", 19, &p), 0);
    assert_string_equal(p, "../x/.git");
    free(p);
    assert_int_equal(git_gitfile_parse("gitdir:../x", 11, &p), -EBADMSG);
    assert_int_equal(git_gitfile_parse("gitdir: \n", 9, &p), -EBADMSG);
    assert_int_equal(git_gitfile_parse("x", 1, &p), -EBADMSG);
    assert_int_equal(git_commondir_parse("../..\n", 6, &p), 0);
    assert_string_equal(p, "../..");
    free(p);
    /* as git reads them: cut at a NUL (the attack's "gitdir: PATH\0\n"),
     * CR and LF dropped from the end of the whole text first, nothing else */
    assert_int_equal(git_gitfile_parse("gitdir: /out\0\n", 14, &p), 0);
    assert_string_equal(p, "/out");
    free(p);
    assert_int_equal(git_gitfile_parse("gitdir: /out\n\0", 14, &p), 0);
    assert_string_equal(p, "/out\n");
    free(p);
    assert_int_equal(git_gitfile_parse("gitdir: /out \t\n", 15, &p), 0);
    assert_string_equal(p, "/out \t");
    free(p);
    assert_int_equal(git_gitfile_parse("gitdir: \0x", 10, &p), 0);
    assert_string_equal(p, "");
    free(p);
    assert_int_equal(git_gitfile_parse("gitdir\0 /x", 10, &p), -EBADMSG);
    assert_int_equal(git_commondir_parse("../x\0junk\r\n", 12, &p), 0);
    assert_string_equal(p, "../x");
    free(p);
    assert_int_equal(git_commondir_parse("\n", 1, &p), 0);
    assert_string_equal(p, "");
    free(p);
    assert_true(git_hook_name_live("pre-commit"));
    assert_true(git_hook_name_live("post-index-change"));
    assert_true(git_hook_name_live("x.sample.sh"));
    assert_false(git_hook_name_live("pre-commit.sample"));
    assert_false(git_hook_name_live(".."));
}

/* ---- link resolution against the kernel ------------------------------- */

static char base[PATH_MAX];

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(p);
}

static int setup_tree(void **state)
{
    (void)state;
    char cwd[PATH_MAX - 32];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(base, sizeof(base), "%s/test-links-XXXXXX", cwd);
    assert_non_null(mkdtemp(base));
    return 0;
}

static int teardown_tree(void **state)
{
    (void)state;
    nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static void mk(const char *rel, const char *link)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/%s", base, rel);
    if (link != NULL)
        assert_int_equal(symlink(link, p), 0);
    else if (p[strlen(p) - 1] == '/')
        assert_int_equal(mkdir(p, 0755), 0);
    else
        close(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

/* The kernel's answer: where open(O_PATH) lands, or -errno. */
static int kernel_resolve(const char *path, char *out, size_t cap)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    char proc[64];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    ssize_t l = readlink(proc, out, cap - 1);
    close(fd);
    if (l < 0)
        return -errno;
    out[l] = '\0';
    return 0;
}

static void agrees_with_kernel(const char *rel, size_t expect_hops)
{
    char path[PATH_MAX * 2], kernel[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", base, rel);
    int k = kernel_resolve(path, kernel, sizeof(kernel));
    link_chain_t chain = { 0 };
    char *ours = NULL;
    link_end_t end;
    as_error_t *err = NULL;
    int r = link_resolve(path, &chain, &ours, &end, &err);
    if (k == 0) {
        if (r != 0 || end != LINK_FOUND || strcmp(ours, kernel) != 0)
            fail_msg("%s: kernel %s, ours %s (%d, end %d)", rel, kernel, ours ? ours : "-", r, (int)end);
    } else if (k == -ENOENT) {
        assert_int_equal(r, 0);
        assert_true(end == LINK_MISSING || end == LINK_MISSING_LAST);
    } else if (k == -ENOTDIR) {
        assert_int_equal(r, 0);
        assert_int_equal(end, LINK_NOTDIR);
    } else {
        assert_int_equal(r, k);
        as_error_free(&err);
    }
    assert_int_equal(chain.n, expect_hops);
    link_chain_clear(&chain);
    free(ours);
}

static void links_resolve_like_the_kernel(void **state)
{
    (void)state;
    mk("a/", NULL);
    mk("b/", NULL);
    mk("b/c/", NULL);
    mk("b/c/f", NULL);
    mk("a/l", "../b/c");            /* a/l -> b/c */
    mk("x", "a/l/..");              /* ".." after the link: b, not a */
    mk("y", "x/c/f");
    mk("abs", base);                /* absolute */
    mk("loop", "loop");
    mk("dangling", "a/nothing/more");
    mk("g/", NULL);
    mk("g/hooks", "../.githooks");  /* the chain of issue 18 */
    mk(".githooks", "b/c");

    agrees_with_kernel("x", 2);
    agrees_with_kernel("x/c/f", 2);
    agrees_with_kernel("y", 3);
    agrees_with_kernel("abs/a/l/f", 2);
    agrees_with_kernel("a/l/../../a", 1);
    agrees_with_kernel("g/hooks/f", 2);
    agrees_with_kernel("b/c/f/more", 0);       /* ENOTDIR */
    agrees_with_kernel("dangling", 1);          /* ENOENT */
    agrees_with_kernel("loop", LINK_RESOLVE_MAX_HOPS);   /* ELOOP */
    agrees_with_kernel("b/./c//f", 0);

    /* where a missing component is, and the hops' paths */
    char path[PATH_MAX * 2], *out = NULL;
    link_chain_t chain = { 0 };
    link_end_t end;
    as_error_t *err = NULL;
    snprintf(path, sizeof(path), "%s/g/hooks/pre-commit", base);
    assert_int_equal(link_resolve(path, &chain, &out, &end, &err), 0);
    assert_int_equal(end, LINK_MISSING_LAST);
    assert_int_equal(chain.n, 2);
    assert_string_equal(chain.v[1].target, "b/c");
    assert_non_null(strstr(chain.v[1].path, "/.githooks"));
    assert_non_null(strstr(out, "/b/c/pre-commit"));
    free(out);
    link_chain_clear(&chain);
    snprintf(path, sizeof(path), "%s/dangling", base);
    assert_int_equal(link_resolve(path, NULL, &out, &end, &err), 0);
    assert_int_equal(end, LINK_MISSING);
    assert_non_null(strstr(out, "/a/nothing"));
    free(out);

    /* threat 43: /proc's links lead wherever the reader is; every way into
     * /proc is refused, not resolved from the CLI's own point of view */
    mk("cwd", "/proc/self/cwd/x");
    mk("up", "../../../../../../../../../../../../../proc/self/root/etc");
    mk("fd", "/dev/fd/0");
    static const char *const into_proc[] = { "cwd", "up", "fd" };
    for (size_t i = 0; i < ARRAY_SIZE(into_proc); i++) {
        snprintf(path, sizeof(path), "%s/%s", base, into_proc[i]);
        if (link_resolve(path, NULL, &out, &end, &err) != -EXDEV)
            fail_msg("%s was resolved, not refused", into_proc[i]);
        assert_non_null(strstr(err->msg, "/proc"));
        as_error_free(&err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_syntax),
        cmocka_unit_test(config_refusals),
        cmocka_unit_test(config_whitelist),
        cmocka_unit_test(config_keys_that_fetch),
        cmocka_unit_test(repository_shapes),
        cmocka_unit_test_setup_teardown(links_resolve_like_the_kernel, setup_tree, teardown_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
