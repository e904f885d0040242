/* What of the host a name in the tree could stand in for (host_names.h). */
#include "host_names.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/paths.h"
#include "base/spawn.h"
#include "base/strv.h"

#define ANSWER_MAX (1024 * 1024)

/* What the host python is asked: its import suffixes and its modules. The
 * empty entry (the current directory, "/" here) is dropped from sys.path
 * before anything is imported; -I already kept out PYTHON* variables, the
 * user's site and, from 3.11, the script's directory. */
static const char ASK_PYTHON[] =
    "import sys\n"
    "sys.path[:] = [p for p in sys.path if p and p != '.']\n"
    "import importlib.machinery, pkgutil\n"
    "for s in importlib.machinery.all_suffixes(): print('S', s)\n"
    "names = set(getattr(sys, 'stdlib_module_names', ())) | set(sys.builtin_module_names)\n"
    "names |= {m.name for m in pkgutil.iter_modules()}\n"
    "for n in sorted(names): print('M', n)\n";

struct host_names {
    char **dirs;         /* PATH's absolute entries outside the tree */
    bool asked, found;
    char *failed;        /* why the host python could not answer (asked once) */
    char **suffixes;     /* the python's import suffixes, longest first */
    char **modules;      /* sorted */
};

void host_names_free(host_names_t *h)
{
    if (h == NULL)
        return;
    strv_free(h->dirs);
    free(h->failed);
    strv_free(h->suffixes);
    strv_free(h->modules);
    free(h);
}

/* Is the directory (absolute) the tree's, by where it really is? */
static bool in_tree(const char *dir, const char *tree)
{
    _cleanup_free_ char *real = realpath(dir, NULL);
    return real == NULL || path_relation(real, tree) == PATH_SAME || path_is_inside(real, tree);
}

int host_names_new(const char *path, const char *tree, host_names_t **ret, as_error_t **err)
{
    _cleanup_(host_names_freep) host_names_t *h = calloc(1, sizeof(*h));
    _cleanup_free_ char *copy = path != NULL ? strdup(path) : NULL;
    if (h == NULL || (path != NULL && copy == NULL))
        return as_error_make(err, ENOMEM, "out of memory");
    char *save = NULL;
    for (char *d = copy != NULL ? strtok_r(copy, ":", &save) : NULL; d != NULL; d = strtok_r(NULL, ":", &save)) {
        /* relative entries are the current directory's: never the host's */
        if (d[0] != '/' || in_tree(d, tree) || strv_contains(h->dirs, d))
            continue;
        if (strv_push(&h->dirs, d) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
    }
    *ret = steal_pointer(&h);
    return 0;
}

/* dir/name: an executable that is no directory (followed, as a shell
 * does). 1 and *ret, 0 when it is none. */
static int executable_in(const char *dir, const char *name, char **ret)
{
    _cleanup_free_ char *p = NULL;
    struct stat st;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        return -ENOMEM;
    if (stat(p, &st) < 0 || S_ISDIR(st.st_mode) || access(p, X_OK) < 0)
        return 0;
    *ret = steal_pointer(&p);
    return 1;
}

int host_names_command(const host_names_t *h, const char *name, char **ret_where)
{
    *ret_where = NULL;
    if (name[0] == '\0' || strchr(name, '/') != NULL)
        return 0;
    for (size_t i = 0; h->dirs != NULL && h->dirs[i] != NULL; i++) {
        int r = executable_in(h->dirs[i], name, ret_where);
        if (r != 0)
            return r < 0 ? r : 0;
    }
    return 0;
}

static bool word(const char *s, size_t n, const char *extra)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              (extra != NULL && c != '\0' && strchr(extra, c) != NULL)))
            return false;
    }
    return true;
}

/* A module's name as the host lists it: anything printable but a blank or
 * a slash (stdlib has _sysconfigdata__x86_64-linux-gnu, and identifiers
 * may be non-ASCII). */
static bool module_name(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f || s[i] == '/')
            return false;
    return n > 0;
}

static int longer_first(const void *a, const void *b)
{
    size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);
    return x > y ? -1 : x < y;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int host_names_parse(host_names_t *h, const char *text, size_t len)
{
    for (size_t at = 0; at < len;) {
        const char *line = text + at, *nl = memchr(line, '\n', len - at);
        size_t n = nl != NULL ? (size_t)(nl - line) : len - at;
        at += n + 1;
        if (n < 3 || line[1] != ' ' || (line[0] != 'S' && line[0] != 'M'))
            return -EBADMSG;
        bool suffix = line[0] == 'S';
        if (suffix ? line[2] != '.' || !word(line + 3, n - 3, ".-") : !module_name(line + 2, n - 2))
            return -EBADMSG;
        _cleanup_free_ char *v = strndup(line + 2, n - 2);
        if (v == NULL || strv_push(suffix ? &h->suffixes : &h->modules, v) < 0)
            return -ENOMEM;
    }
    if (h->suffixes == NULL || h->modules == NULL)
        return -EBADMSG;           /* a python imports something: an answer without is no answer */
    qsort(h->suffixes, strv_length(h->suffixes), sizeof(char *), longer_first);
    qsort(h->modules, strv_length(h->modules), sizeof(char *), by_name);
    return 0;
}

/* Runs python (absolute) and parses its answer. */
static int ask(host_names_t *h, const char *python, as_error_t **err)
{
    _cleanup_close_ int out = memfd_create("host-python", MFD_CLOEXEC);
    if (out < 0)
        return as_error_errno(err, errno, "asking %s for its modules", python);
    char *argv[] = { (char *)python, "-I", "-c", (char *)ASK_PYTHON, NULL };
    char *env[] = { "LC_ALL=C", NULL };
    int r = spawn_and_wait(argv, env, &(spawn_io_t){ .stdout_fd = out, .stdin_null = true, .quiet = true,
                                                    .dir = "/" }, NULL);
    if (r != 0)
        return as_error_make(err, r < 0 ? -r : EIO, "%s -I could not list its modules (%s %d)", python,
                             r < 0 ? "error" : "exit status", r < 0 ? -r : r);
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    if (lseek(out, 0, SEEK_SET) < 0 || (r = read_fd_bounded(out, ANSWER_MAX, &text, &len)) < 0)
        return as_error_errno(err, errno ? errno : EIO, "reading what %s answered", python);
    if ((r = host_names_parse(h, text, len)) < 0) {
        strv_free(h->suffixes);      /* half an answer is none: the fallback suffixes, no modules */
        strv_free(h->modules);
        h->suffixes = h->modules = NULL;
        return as_error_make(err, -r, "%s answered something else than its modules", python);
    }
    return 0;
}

int host_names_python(host_names_t *h, bool *ret_found, as_error_t **err)
{
    if (!h->asked) {
        _cleanup_free_ char *python = NULL;
        if (host_names_command(h, "python3", &python) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        h->found = python != NULL;
        as_error_t *e = NULL;
        if (python != NULL && ask(h, python, &e) < 0) {
            /* the same answer for every later question: one failure, said once */
            h->failed = strdup(e->msg);
            as_error_free(&e);
            if (h->failed == NULL)
                return as_error_make(err, ENOMEM, "out of memory");
        }
        h->asked = true;
    }
    if (h->failed != NULL)
        return as_error_make(err, EIO, "%s", h->failed);
    *ret_found = h->found;
    return 0;
}

/* What `python3 -m NAME` commonly runs, from each one's documentation:
 * kept by name, since python imports it from the tree (even a bare
 * directory, a namespace package) when the host lacks it. */
static const char *const RUN_WITH_M[] = {
    "pip",              /* https://pip.pypa.io/en/stable/user_guide/#running-pip */
    "setuptools",       /* https://setuptools.pypa.io/: pip and build import it */
    "pkg_resources",    /* setuptools', imported by pip and console scripts */
    "_distutils_hack",  /* setuptools', imported by its distutils-precedence.pth */
    "wheel",            /* https://wheel.readthedocs.io/ (python -m wheel) */
    "virtualenv",       /* https://virtualenv.pypa.io/en/latest/user_guide.html */
    "pipx",             /* https://pipx.pypa.io/stable/installation/ (python3 -m pipx) */
    "build",            /* https://build.pypa.io/en/stable/ (python -m build) */
    "twine",            /* https://twine.readthedocs.io/ (python -m twine) */
    "pytest",           /* https://docs.pytest.org/en/stable/how-to/usage.html (python -m pytest) */
    "black",            /* https://black.readthedocs.io/ (python -m black) */
    "mypy",             /* https://mypy.readthedocs.io/ (python3 -m mypy) */
    "coverage",         /* https://coverage.readthedocs.io/ (python -m coverage) */
    "sitecustomize",    /* https://docs.python.org/3/library/site.html */
    "usercustomize",    /* https://docs.python.org/3/library/site.html */
};

/* Import suffixes every CPython on Linux has: what "module-shaped" means
 * before, or without, the host python's answer (fail closed). */
static const char *const FALLBACK_SUFFIXES[] = { ".py", ".pyc", ".so" };

static bool run_with_m(const char *name)
{
    for (size_t i = 0; i < sizeof(RUN_WITH_M) / sizeof(RUN_WITH_M[0]); i++)
        if (strcmp(name, RUN_WITH_M[i]) == 0)
            return true;
    return false;
}

/* "json" of "json.py": by the host's suffixes, else the fallback ones. */
static char *module_of(const host_names_t *h, const char *base)
{
    size_t n = strlen(base), nf = sizeof(FALLBACK_SUFFIXES) / sizeof(FALLBACK_SUFFIXES[0]);
    size_t count = h->suffixes != NULL ? strv_length(h->suffixes) : nf;
    for (size_t i = 0; i < count; i++) {
        const char *sfx = h->suffixes != NULL ? h->suffixes[i] : FALLBACK_SUFFIXES[i];
        size_t l = strlen(sfx);
        if (n > l && strcmp(base + n - l, sfx) == 0 && word(base, n - l, NULL))
            return strndup(base, n - l);
    }
    return NULL;
}

char *host_names_top_module(const host_names_t *h, const char *rel, bool dir)
{
    const char *slash = strchr(rel, '/');
    if (slash == NULL)
        return dir ? (run_with_m(rel) ? strdup(rel) : NULL) : module_of(h, rel);
    if (dir || strchr(slash + 1, '/') != NULL)
        return NULL;
    _cleanup_free_ char *m = module_of(h, slash + 1);
    if (m == NULL || strcmp(m, "__init__") != 0 || !word(rel, (size_t)(slash - rel), NULL))
        return NULL;
    return strndup(rel, (size_t)(slash - rel));
}

bool host_names_shadows(const host_names_t *h, const char *name)
{
    if (run_with_m(name))
        return true;
    return h->modules != NULL && bsearch(&name, h->modules, strv_length(h->modules), sizeof(char *), by_name) != NULL;
}
