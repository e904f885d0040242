/* "Did you mean ...?" (lib/base/suggest.h): the distance, the rule that
 * decides which words are near, and the session a command without an ID
 * takes by the current directory (lib/session/session_find.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/suggest.h"
#include "base/util.h"
#include "session/session_find.h"

static void distance(void **state)
{
    (void)state;
    assert_int_equal(suggest_distance("exec", "exec"), 0);
    assert_int_equal(suggest_distance("exex", "exec"), 1);          /* substitution */
    assert_int_equal(suggest_distance("memroy", "memory"), 1);      /* two neighbours swapped */
    assert_int_equal(suggest_distance("pss", "ps"), 1);             /* insertion */
    assert_int_equal(suggest_distance("folow", "follow"), 1);       /* deletion */
    assert_int_equal(suggest_distance("", "help"), 4);
    assert_int_equal(suggest_distance("kitten", "sitting"), 3);
    char long_word[SUGGEST_WORD_MAX + 2];
    memset(long_word, 'a', sizeof(long_word) - 1);
    long_word[sizeof(long_word) - 1] = '\0';
    assert_true(suggest_distance(long_word, "a") == SIZE_MAX);
}

static const char *const options[] = {
    "--exec", "--agent", "--env", "--dry-run", "--memory", "--pids", "--cpus", "--publish",
    "--help", "-h", "--version",
};
static const char *const commands[] = {
    "ps", "stop", "doctor", "allow", "deny", "log", "verify", "cleanup", "help",
};

static void the_rule(void **state)
{
    (void)state;
    const size_t no = ARRAY_SIZE(options), nc = ARRAY_SIZE(commands);
    /* the typos of the issue */
    assert_string_equal(suggest_nearest("--exex", options, no), "--exec");
    assert_string_equal(suggest_nearest("--memroy", options, no), "--memory");
    assert_string_equal(suggest_nearest("pss", commands, nc), "ps");
    assert_string_equal(suggest_nearest("--jsn", (const char *const[]){ "--json", "--quiet" }, 2), "--json");
    assert_string_equal(suggest_nearest("--folow", (const char *const[]){ "--follow", "--json" }, 2), "--follow");
    /* the same word with other dashes */
    assert_string_equal(suggest_nearest("-exec", options, no), "--exec");
    /* a word equal to a known one is not "near" it: it is it */
    assert_false(suggest_near("--exec", "--exec"));
    /* up to 4 characters: distance 1 and the same first character */
    assert_true(suggest_near("--cpu", "--cpus"));
    assert_true(suggest_near("--en", "--env"));
    assert_false(suggest_near("top", "stop"));       /* first characters differ */
    assert_false(suggest_near("go", "log"));
    assert_false(suggest_near("ls", "ps"));
    assert_false(suggest_near("dev", "deny"));       /* distance 2 */
    /* longer: distance 2 at most, any first character */
    assert_true(suggest_near("--dryrun", "--dry-run"));
    assert_true(suggest_near("--pubish", "--publish"));
    assert_true(suggest_near("xerify", "verify"));
    assert_false(suggest_near("--verbose", "--version"));
    assert_false(suggest_near("--continue", "--cpus"));
    /* what agents take passes: none of it is near ours */
    const char *const agent_options[] = {
        "--continue", "--print", "--resume", "--model", "--debug", "--output-format", "--",
    };
    for (size_t i = 0; i < ARRAY_SIZE(agent_options); i++)
        assert_null(suggest_nearest(agent_options[i], options, no));
    const char *const agent_words[] = {
        "fix", "mcp", "config", "update", "install", "login", "exec", "resume", "",
    };
    for (size_t i = 0; i < ARRAY_SIZE(agent_words); i++)
        assert_null(suggest_nearest(agent_words[i], commands, nc));
    /* the nearest of several, the first of equals */
    assert_string_equal(suggest_nearest("--agnet", options, no), "--agent");
    assert_string_equal(suggest_nearest("--pid", options, no), "--pids");
}

static void session_by_directory(void **state)
{
    (void)state;
    size_t at = 99;
    /* newest first */
    const char *const dirs[] = { "/home/u/b", NULL, "/home/u/a", "/home/u/a/sub", "/home/u/ab" };
    const size_t n = ARRAY_SIZE(dirs);
    assert_int_equal(session_pick_by_dir(dirs, n, "/home/u/a", &at), 0);
    assert_int_equal(at, 2);
    assert_int_equal(session_pick_by_dir(dirs, n, "/home/u/a/x/y", &at), 0);
    assert_int_equal(at, 2);
    /* nested: the deepest */
    assert_int_equal(session_pick_by_dir(dirs, n, "/home/u/a/sub/deeper", &at), 0);
    assert_int_equal(at, 3);
    /* a name that only starts the same is not below it */
    assert_int_equal(session_pick_by_dir(dirs, n, "/home/u/ab", &at), 0);
    assert_int_equal(at, 4);
    assert_int_equal(session_pick_by_dir(dirs, n, "/home/u/abc", &at), -ENOENT);
    assert_int_equal(session_pick_by_dir(dirs, n, "/home/u", &at), -ENOENT);
    assert_int_equal(session_pick_by_dir(dirs, 0, "/home/u/a", &at), -ENOENT);
    /* equals: the first, the newest */
    const char *const twice[] = { "/w", "/w" };
    assert_int_equal(session_pick_by_dir(twice, 2, "/w/x", &at), 0);
    assert_int_equal(at, 0);
    /* the root holds everything */
    const char *const root[] = { "/srv/x", "/" };
    assert_int_equal(session_pick_by_dir(root, 2, "/tmp", &at), 0);
    assert_int_equal(at, 1);
    assert_int_equal(session_pick_by_dir(root, 2, "/srv/x/y", &at), 0);
    assert_int_equal(at, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distance),
        cmocka_unit_test(the_rule),
        cmocka_unit_test(session_by_directory),
    };
    return cmocka_run_group_tests_name("suggest", tests, NULL, NULL);
}
