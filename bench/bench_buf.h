/* Shared by the benchmark harnesses that build their inputs as text in memory: a growing buffer
 * and a printf into it (exits on out of memory: a benchmark has no other use for the failure).
 * Header-only, static. */
#ifndef KP_BENCH_BUF_H
#define KP_BENCH_BUF_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

static void put(buf_t *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(buf_t *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t ncap = b->cap * 2 + (size_t)(n > 0 ? n : 0) + 4096;
        char *np = realloc(b->p, ncap);
        if (!np) {
            fprintf(stderr, "benchmark: out of memory\n");
            exit(1);
        }
        b->p = np;
        b->cap = ncap;
    }
}
/* NODES nodes node-0 .. node-(NODES-1) (16 cpu, 64Gi, 110 pods; zones zone-0..2 in turn), each
 * preceded by a comma: the cluster bench_sim and bench_rollout play on. */
static inline void put_nodes(buf_t *b, int nodes) {
    for (int n = 0; n < nodes; n++)
        put(b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\","
            "\"labels\":{\"kubernetes.io/hostname\":\"node-%d\",\"topology.kubernetes.io/"
            "zone\":\"zone-%d\"}},\"status\":{\"allocatable\":{\"cpu\":\"16\",\"memory\":"
            "\"64Gi\",\"pods\":\"110\"}}}",
            n, n, n % 3);
}
#endif
