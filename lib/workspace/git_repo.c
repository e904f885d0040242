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

/* The path git takes from the text: CR and LF dropped from the end of the
 * whole text, then the rest read as a C string, so that a NUL cuts it
 * (read_gitfile_gently() and get_common_dir_noenv() do both). */
static int as_git_reads(const char *text, size_t len, char **ret)
{
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    char *s = strndup(text, len);
    if (s == NULL)
        return -ENOMEM;
    *ret = s;
    return 0;
}

int git_gitfile_parse(const char *text, size_t len, char **ret_path)
{
    static const char prefix[] = "gitdir: ";
    size_t pl = sizeof(prefix) - 1, end = len;
    if (len < pl || memcmp(text, prefix, pl) != 0)
        return -EBADMSG;
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r'))
        end--;
    if (end <= pl)
        return -EBADMSG;            /* READ_GITFILE_ERR_NO_PATH */
    return as_git_reads(text + pl, end - pl, ret_path);
}

int git_commondir_parse(const char *text, size_t len, char **ret_path)
{
    return as_git_reads(text, len, ret_path);
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
