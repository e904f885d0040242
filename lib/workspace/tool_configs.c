/* The table of files host tools read from a project directory
 * (tool_configs.h), compiled in from tool_configs.table. */
#include "tool_configs.h"

#include <string.h>

#include "base/util.h"

static const tool_config_t ROWS[] = {
#include "tool_configs.inc"
};

const tool_config_t *tool_configs(size_t *ret_n)
{
    *ret_n = ARRAY_SIZE(ROWS);
    return ROWS;
}

const tool_config_t *tool_config_find(const char *path)
{
    for (size_t i = 0; i < ARRAY_SIZE(ROWS); i++)
        if (strcmp(ROWS[i].path, path) == 0)
            return &ROWS[i];
    return NULL;
}

/* Does rel hold the row's path as whole components, not at its start:
 * "sub/.npmrc" for ".npmrc", "a/.config/mise/x" for ".config/mise/"? */
static bool copy_below(const char *rel, const tool_config_t *t)
{
    size_t l = strlen(t->path);
    for (const char *at = strstr(rel, t->path); at != NULL; at = strstr(at + 1, t->path)) {
        if (at == rel || at[-1] != '/')
            continue;
        if (at[l] == '\0' || (t->dir && at[l] == '/'))
            return true;
    }
    return false;
}

const tool_config_t *tool_config_nested(const char *rel)
{
    for (size_t i = 0; i < ARRAY_SIZE(ROWS); i++)
        if ((ROWS[i].how & TOOL_NESTED) && copy_below(rel, &ROWS[i]))
            return &ROWS[i];
    return NULL;
}

const tool_config_t *tool_config_glob(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(ROWS); i++) {
        if (!(ROWS[i].how & TOOL_GLOB))
            continue;
        const char *p = ROWS[i].path, *star = strchr(p, '*');
        size_t pre = (size_t)(star - p), post = strlen(star + 1), n = strlen(name);
        if (strchr(name, '/') == NULL && n > pre + post && strncmp(name, p, pre) == 0 &&
            strcmp(name + n - post, star + 1) == 0)
            return &ROWS[i];
    }
    return NULL;
}
