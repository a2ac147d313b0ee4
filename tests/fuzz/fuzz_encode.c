/* libFuzzer harness for kp_cluster_encode_json (include/kprio/encode.h): every input that loads
 * and finalizes (JSON or YAML by its first byte; an odd first byte also decodes workload
 * templates) is encoded, the text must load into a fresh cluster, and encoding that one must give
 * the same bytes. A reload error or a different second encoding aborts with both texts on stderr.
 * (Not in tests/fuzz/run.sh's list: build it as run.sh builds fuzz_ingest.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/ctrl.h"
#include "kprio/encode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    char *buf;
    size_t len, cap;
} sink;

static kp_status put(void *ctx, const char *b, size_t n) {
    sink *s = ctx;
    if (s->len + n > s->cap) {
        size_t cap = (s->len + n) * 2;
        char *nb = realloc(s->buf, cap);
        if (!nb) return KP_ENOMEM;
        s->buf = nb;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, b, n);
    s->len += n;
    return KP_OK;
}

static kp_cluster *load(const char *src, const char *buf, size_t len, unsigned flags,
                        kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return NULL;
    kp_status st = kp_cluster_set_expand(cl, flags);
    if (st == KP_OK) st = kp_cluster_load_buffer(cl, src, buf, len, err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, err);
    if (st == KP_OK) st = kp_ctrl_expand(cl, err);
    if (st != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 18)) return 0;
    unsigned flags = size && (data[0] & 1) ? KP_WORKLOAD_TEMPLATES : 0;
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *c1 = load("fuzz", (const char *)data, size, flags, &err);
    if (!c1) return 0;
    sink a = {0}, b = {0};
    if (kp_cluster_encode_json(c1, NULL, put, &a, &err) != KP_OK) abort();
    kp_cluster *c2 = load("encoded.json", a.buf, a.len, flags, &err);
    if (!c2) {
        fprintf(stderr, "encoded text does not load: %s: %s\n%.*s\n", err.source, err.msg,
                (int)a.len, a.buf);
        abort();
    }
    if (kp_cluster_encode_json(c2, NULL, put, &b, &err) != KP_OK) abort();
    if (a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0) {
        fprintf(stderr, "second encoding differs:\n%.*s\n---\n%.*s\n", (int)a.len, a.buf,
                (int)b.len, b.buf);
        abort();
    }
    kp_cluster_free(c1);
    kp_cluster_free(c2);
    free(a.buf);
    free(b.buf);
    return 0;
}
