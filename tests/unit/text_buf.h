/* Shared by the randomised tests (test_sim.c, test_sim_kubelet.c): a growing text buffer for
 * generated YAML and a small deterministic PRNG. Header-only, static. */
#ifndef KP_TEST_TEXT_BUF_H
#define KP_TEST_TEXT_BUF_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kprio/common.h"

typedef struct {
    char *buf;
    size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = b->cap ? vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap ? b->cap * 2 : 4096;
        if (!(b->buf = realloc(b->buf, b->cap))) abort();
    }
}

static uint64_t rng;
/* A value in [0, n) from the test's LCG (seed: set rng). */
static inline uint32_t rnd(uint32_t n) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng >> 33) % n;
}

/* A kp_write_fn (kprio/encode.h) appending to an sbuf. */
static inline kp_status to_sbuf(void *ctx, const char *buf, size_t len) {
    put(ctx, "%.*s", (int)len, buf);
    return KP_OK;
}

#endif
