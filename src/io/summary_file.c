/* kp_evict_summary_write_dir (kprio/eviction.h): the Summary API documents a simulated kubelet
 * observed, written to files (the tool's other output files go through base/file.h); a file left
 * half-written is removed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kprio/eviction.h"

static kp_status fail(kp_error *err, kp_status st, const char *path, const char *what) {
    kp_error_set(err, st, "%s", what);
    if (err) snprintf(err->source, sizeof err->source, "%.*s", (int)sizeof err->source - 1, path);
    return st;
}

/* mkdir that accepts an existing directory */
static kp_status ensure_dir(const char *path, kp_error *err) {
    struct stat sb;
    if (mkdir(path, 0777) == 0) return KP_OK;
    int e = errno;
    if (e == EEXIST && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) return KP_OK;
    char msg[160];
    snprintf(msg, sizeof msg, "cannot create directory: %s",
             e == EEXIST ? "a file of that name exists" : strerror(e));
    return fail(err, KP_EIO, path, msg);
}

kp_status kp_evict_summary_write_dir(const char *dir, const char *node, int64_t t_ms,
                                     const char *json, size_t len, kp_error *err) {
    if (!node[0] || strchr(node, '/') || strcmp(node, ".") == 0 || strcmp(node, "..") == 0)
        return fail(err, KP_EINVAL, node, "node name is no file name");
    size_t cap = strlen(dir) + strlen(node) + 32;
    char path[4096];
    if (cap > sizeof path) return fail(err, KP_EINVAL, dir, "path too long");
    kp_status st = ensure_dir(dir, err);
    snprintf(path, sizeof path, "%s/%s", dir, node);
    if (st == KP_OK) st = ensure_dir(path, err);
    if (st != KP_OK) return st;
    snprintf(path, sizeof path, "%s/%s/%013lld.json", dir, node, (long long)(t_ms > 0 ? t_ms : 0));
    FILE *f = fopen(path, "w");
    if (!f) {
        char msg[160];
        snprintf(msg, sizeof msg, "cannot create: %s", strerror(errno));
        return fail(err, KP_EIO, path, msg);
    }
    bool ok = fwrite(json, 1, len, f) == len && fputc('\n', f) != EOF;
    if (fclose(f) != 0) ok = false;
    if (ok) return KP_OK;
    remove(path);
    return fail(err, KP_EIO, path, "write error");
}
