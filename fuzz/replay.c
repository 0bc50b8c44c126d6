/* SPDX-License-Identifier: MIT */
/* A main() for the fuzz targets outside libFuzzer: feed every file of the
 * directories (or files) named on the command line to
 * LLVMFuzzerTestOneInput once, so `make test` replays the corpora. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    long len;

    if (!f) {
        perror(path);
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return -1;
    }
    data = malloc((size_t) len + 1);
    if (!data || fread(data, 1, (size_t) len, f) != (size_t) len) {
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t) len);
    free(data);
    return 0;
}

static int replay_path(const char *path, int *count)
{
    struct stat st;
    DIR *dir;
    struct dirent *de;
    char child[4096];
    int rc = 0;

    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return replay_file(path);
    }
    dir = opendir(path);
    if (!dir)
        return -1;
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(child, sizeof child, "%s/%s", path, de->d_name);
        rc = replay_path(child, count);
    }
    closedir(dir);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0;

    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i], &count) != 0)
            return 1;
    printf("replayed %d inputs\n", count);
    return count > 0 ? 0 : 1;
}
