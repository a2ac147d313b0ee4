/* Output files and directory listings of the tool (base/file.h). With src/io/ the only place
 * that opens files: these write or list, io reads. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/file.h"

static void set_source(kp_error *err, const char *path) {
    if (err) snprintf(err->source, sizeof err->source, "%s", path);
}

kp_status kp__file_write(const char *path, kp_status (*fill)(FILE *f, void *ctx), void *ctx,
                         kp_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) {
        kp_status st = kp_error_set(err, KP_EIO, "cannot create: %s", strerror(errno));
        set_source(err, path);
        return st;
    }
    kp_status st = fill(f, ctx);
    if (ferror(f) && st == KP_OK) st = KP_EIO;
    if (fclose(f) != 0 && st == KP_OK) st = KP_EIO;
    if (st == KP_OK) return KP_OK;
    remove(path);
    if (st == KP_EIO) kp_error_set(err, KP_EIO, "write error");
    else kp_error_set(err, st, "%s", st == KP_ENOMEM ? "out of memory" : "cannot write");
    set_source(err, path);
    return st;
}

bool kp__is_dir(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

void kp__paths_free(char **paths, size_t n) {
    for (size_t i = 0; paths && i < n; i++) kp__free(paths[i]);
    kp__free(paths);
}

static int path_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static kp_status add_path(char ***paths, size_t *n, size_t *cap, const char *dir, const char *name,
                          kp_error *err) {
    size_t l = strlen(dir) + strlen(name) + 2;
    char *p = kp__malloc(l);
    if (!p || !kp__grow((void **)paths, cap, *n + 1, sizeof **paths, 16)) {
        kp__free(p);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    snprintf(p, l, "%s/%s", dir, name);
    (*paths)[(*n)++] = p;
    return KP_OK;
}

kp_status kp__dir_files(const char *dir, bool (*keep)(const char *name), char ***paths, size_t *n,
                        kp_error *err) {
    *paths = NULL;
    *n = 0;
    size_t cap = 0;
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        kp_status st = kp_error_set(err, KP_EIO, "cannot open directory: %s", strerror(e));
        set_source(err, dir);
        return st;
    }
    kp_status st = KP_OK;
    struct dirent *de;
    while (st == KP_OK && (de = readdir(d))) {
        if (de->d_name[0] == '.' || (keep && !keep(de->d_name))) continue;
        st = add_path(paths, n, &cap, dir, de->d_name, err);
    }
    closedir(d);
    /* regular files only (a FIFO would block its reader): others are left out */
    size_t k = 0;
    struct stat sb;
    for (size_t i = 0; i < *n; i++) {
        if (st == KP_OK && stat((*paths)[i], &sb) == 0 && S_ISREG(sb.st_mode))
            (*paths)[k++] = (*paths)[i];
        else kp__free((*paths)[i]);
    }
    *n = k;
    if (st != KP_OK) {
        kp__paths_free(*paths, 0);
        *paths = NULL;
        *n = 0;
        return st;
    }
    if (*n) qsort(*paths, *n, sizeof **paths, path_cmp);
    return KP_OK;
}
