/* kp_evict_summary_write_dir (kprio/eviction.h): the Summary API documents a simulated kubelet
 * observed, written to files through base/file.h as the tool's other outputs (each file written
 * whole, through a temporary file renamed over it, or not at all). */
#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "kprio/eviction.h"

static kp_status fail(kp_error *err, kp_status st, const char *path, const char *what) {
    kp_error_set(err, st, "%s", what);
    if (err) snprintf(err->source, sizeof err->source, "%.*s", (int)sizeof err->source - 1, path);
    return st;
}

kp_status kp_evict_summary_write_dir(const char *dir, const char *node, int64_t t_ms,
                                     const char *json, size_t len, kp_error *err) {
    if (!node[0] || strchr(node, '/') || strcmp(node, ".") == 0 || strcmp(node, "..") == 0)
        return fail(err, KP_EINVAL, node, "node name is no file name");
    size_t cap = strlen(dir) + strlen(node) + 32;
    char path[4096];
    if (cap > sizeof path) return fail(err, KP_EINVAL, dir, "path too long");
    kp_status st = kp__dir_make(dir, err);
    snprintf(path, sizeof path, "%s/%s", dir, node);
    if (st == KP_OK) st = kp__dir_make(path, err);
    if (st != KP_OK) return st;
    snprintf(path, sizeof path, "%s/%s/%013lld.json", dir, node, (long long)(t_ms > 0 ? t_ms : 0));
    kp__out *o;
    if ((st = kp__out_open(path, &o, err)) != KP_OK) return st;
    FILE *f = kp__out_stream(o);
    bool ok = fwrite(json, 1, len, f) == len && fputc('\n', f) != EOF;
    return kp__out_commit(o, ok ? KP_OK : KP_EIO, err);
}
