/* Runs a fuzz target's LLVMFuzzerTestOneInput over every file of the
 * directories (or files) it is given, as systemd's fuzz-main.c does: built
 * with the ordinary compiler and flags, so that `make unit` replays each
 * seed corpus without clang or libFuzzer, and under ASan/UBSan in the
 * SANITIZE=1 build. Each input is handed over in a buffer of exactly its
 * size, so that a read past its end is caught there too. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size, got = 0;
    uint8_t *data = malloc(size > 0 ? size : 1);
    while (data != NULL && got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (data == NULL || got != size) {
        fprintf(stderr, "%s: could not be read whole\n", path);
        free(data);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int compare_names(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every regular file of dir, in name order; the count, or -1. */
static int replay_dir(const char *dir)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, compare_names), done = 0;
    if (n < 0) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (done >= 0)
                done = replay_file(path) < 0 ? -1 : done + 1;
        }
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int n = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? replay_dir(argv[i])
                : replay_file(argv[i]) == 0 ? 1 : -1;
        if (n < 0)
            return 1;
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "%s: no input to replay\n", argv[0]);
        return 1;
    }
    printf("%s: %d inputs replayed\n", argv[0], total);
    return 0;
}
