/* kp_cluster_encode_json_path and kp_file_write_path (kprio/encode.h): the encoding, or any
 * output, written to a file, which only io creates; a file left half-written is removed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kprio/encode.h"

static kp_status to_file(void *ctx, const char *buf, size_t len) {
    return fwrite(buf, 1, len, (FILE *)ctx) == len ? KP_OK : KP_EIO;
}

kp_status kp_cluster_encode_json_path(const kp_cluster *cl, const kp_encode_options *o,
                                      const char *path, kp_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) {
        kp_status st = kp_error_set(err, KP_EIO, "cannot create: %s", strerror(errno));
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    kp_status st = kp_cluster_encode_json(cl, o, to_file, f, err);
    if (fclose(f) != 0 && st == KP_OK) st = KP_EIO;
    if (st == KP_OK) return KP_OK;
    remove(path);
    if (st == KP_EIO) {
        kp_error_set(err, KP_EIO, "write error");
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
    }
    return st;
}

kp_status kp_file_write_path(const char *path, kp_status (*fill)(FILE *f, void *ctx), void *ctx,
                             kp_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) {
        kp_status st = kp_error_set(err, KP_EIO, "cannot create: %s", strerror(errno));
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    kp_status st = fill(f, ctx);
    if (ferror(f) && st == KP_OK) st = KP_EIO;
    if (fclose(f) != 0 && st == KP_OK) st = KP_EIO;
    if (st == KP_OK) return KP_OK;
    remove(path);
    if (st == KP_EIO) kp_error_set(err, KP_EIO, "write error");
    else kp_error_set(err, st, "%s", st == KP_ENOMEM ? "out of memory" : "cannot write");
    if (err) snprintf(err->source, sizeof err->source, "%s", path);
    return st;
}
