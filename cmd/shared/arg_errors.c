/* The usage errors of the subcommands' own arguments, said one way: an
 * unknown option with the nearest known one (lib/base/suggest.h), an
 * argument too many, an option without its value. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "base/escape.h"
#include "base/suggest.h"
#include "base/util.h"

/* The command's synopsis, from cmd/main.c's table. */
static const char *synopsis_of(const char *command)
{
    for (size_t i = 0; i < cli_n_commands; i++)
        if (strcmp(cli_commands[i].name, command) == 0)
            return cli_commands[i].synopsis;
    return "";
}

int cli_bad_argument(const char *command, const char *arg, const char *const *known, size_t n)
{
    const char *synopsis = synopsis_of(command);
    _cleanup_free_ char *shown = path_escaped(arg);
    /* a word is matched against words (a subcommand's), an option against options */
    bool words = n > 0 && known[0][0] != '-';
    const char *near = (arg[0] == '-') != words ? suggest_nearest(arg, known, n) : NULL;
    if (near != NULL)
        report("error: %s: unknown %s %s; did you mean %s?\nusage: agent-sandbox %s %s", command,
               words ? "subcommand" : "option", shown ? shown : "?", near, command, synopsis);
    else
        report("error: %s: %s %s\nusage: agent-sandbox %s %s", command,
               arg[0] == '-' ? "unknown option" : "unexpected argument", shown ? shown : "?",
               command, synopsis);
    return EXIT_USAGE;
}

int cli_missing_value(const char *command, const char *option, const char *what)
{
    report("error: %s: %s needs a value (%s)\nusage: agent-sandbox %s %s", command, option, what,
           command, synopsis_of(command));
    return EXIT_USAGE;
}

int cli_missing_argument(const char *command, const char *what)
{
    report("error: %s: %s is missing\nusage: agent-sandbox %s %s", command, what, command,
           synopsis_of(command));
    return EXIT_USAGE;
}
