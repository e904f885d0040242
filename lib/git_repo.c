#include "git_repo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

unsigned git_dir_entry_flag(const char *name)
{
    if (strcmp(name, "HEAD") == 0)
        return GIT_HAS_HEAD;
    if (strcmp(name, "objects") == 0)
        return GIT_HAS_OBJECTS;
    if (strcmp(name, "refs") == 0)
        return GIT_HAS_REFS;
    if (strcmp(name, "commondir") == 0)
        return GIT_HAS_COMMONDIR;
    return 0;
}

bool git_dir_shaped(unsigned flags)
{
    if (!(flags & GIT_HAS_HEAD))
        return false;
    return (flags & GIT_HAS_COMMONDIR) || ((flags & GIT_HAS_OBJECTS) && (flags & GIT_HAS_REFS));
}

/* text without trailing CR/LF, as a string; -EBADMSG on a NUL or nothing. */
static int trimmed(const char *text, size_t len, char **ret)
{
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    if (len == 0 || memchr(text, '\0', len) != NULL)
        return -EBADMSG;
    char *s = strndup(text, len);
    if (s == NULL)
        return -ENOMEM;
    *ret = s;
    return 0;
}

int git_gitfile_parse(const char *text, size_t len, char **ret_path)
{
    static const char prefix[] = "gitdir: ";
    size_t pl = sizeof(prefix) - 1;
    if (len < pl || memcmp(text, prefix, pl) != 0)
        return -EBADMSG;
    return trimmed(text + pl, len - pl, ret_path);
}

int git_commondir_parse(const char *text, size_t len, char **ret_path)
{
    return trimmed(text, len, ret_path);
}

bool git_hook_name_live(const char *name)
{
    size_t n = strlen(name);
    static const char sample[] = ".sample";
    size_t sl = sizeof(sample) - 1;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    return !(n > sl && strcmp(name + n - sl, sample) == 0);
}
