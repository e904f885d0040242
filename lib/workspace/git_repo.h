/* What host git would take for a repository, by git's own discovery rules
 * (setup.c): in each directory from the current one up, a ".git" file
 * ("gitdir: PATH", read_gitfile) or a ".git" directory, else the directory
 * itself, if it passes is_git_directory(): a HEAD, and "objects" and "refs"
 * in its common directory (the one a "commondir" file names, else itself).
 * The repository's config and hooks come from that common directory, its
 * config.worktree from the directory itself. Pure: the caller lists the
 * directory and reads the files. */
#ifndef AS_GIT_REPO_H
#define AS_GIT_REPO_H

#include <stdbool.h>
#include <stddef.h>

enum {
    GIT_HAS_HEAD      = 1u << 0,
    GIT_HAS_OBJECTS   = 1u << 1,
    GIT_HAS_REFS      = 1u << 2,
    GIT_HAS_COMMONDIR = 1u << 3,
};

/* The GIT_HAS_* flag an entry of a directory contributes, or 0. */
unsigned git_dir_entry_flag(const char *name);

/* Could git take a directory with these entries for a git directory? A
 * superset of is_git_directory(): HEAD is not validated, objects and refs
 * may be anywhere a commondir leads. */
bool git_dir_shaped(unsigned flags);

/* The path a ".git" file names, as git reads it (read_gitfile_gently()):
 * "gitdir: " then the path; CR and LF dropped from the end of the whole
 * text; the path ends at the first NUL, if any (git takes it as a C
 * string), and may then be empty. -EBADMSG when git refuses the file (no
 * "gitdir: ", or nothing after it). */
int git_gitfile_parse(const char *text, size_t len, char **ret_path);

/* The path a "commondir" file names, as get_common_dir_noenv() reads it:
 * trailing CR and LF dropped, cut at the first NUL; may be empty (git then
 * takes the git directory itself). */
int git_commondir_parse(const char *text, size_t len, char **ret_path);

/* Is name a hook git could run (anything in a hooks directory but git's
 * own inert "*.sample" files)? */
bool git_hook_name_live(const char *name);

#endif
