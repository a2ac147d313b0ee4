/* The allocator wrappers: see alloc.h. */
#include "base/alloc.h"
#include "kprio/common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static long fail_countdown = -1; /* allocations left before the injected failure; -1 = off */
static bool fail_sticky;
static unsigned long n_allocs;

/* True when this allocation must fail (the fault-injection hook). */
static bool injected_failure(void) {
    n_allocs++;
    if (fail_countdown < 0) return false;
    if (fail_countdown == 0) {
        if (!fail_sticky) fail_countdown = -1;
        return true;
    }
    fail_countdown--;
    return false;
}

void kp__alloc_fail_after(long n, bool sticky) {
    fail_countdown = n < 0 ? -1 : n;
    fail_sticky = sticky;
}

unsigned long kp__alloc_count(void) { return n_allocs; }

void *kp__malloc(size_t n) {
    if (injected_failure()) return NULL;
    return malloc(n ? n : 1);
}

void *kp__calloc(size_t count, size_t size) {
    if (injected_failure()) return NULL;
    if (count == 0 || size == 0) count = size = 1;
    return calloc(count, size);
}

void *kp__realloc(void *p, size_t n) {
    if (n == 0) {
        free(p);
        return NULL;
    }
    if (injected_failure()) return NULL;
    return realloc(p, n);
}

void *kp__aligned_alloc(size_t align, size_t n) {
    if (injected_failure()) return NULL;
    /* aligned_alloc wants a size that is a multiple of the alignment. */
    size_t rounded = (n + align - 1) & ~(align - 1);
    if (rounded < n) return NULL;
    return aligned_alloc(align, rounded ? rounded : align);
}

char *kp__strdup(const char *s) { return kp__strndup(s, strlen(s)); }

char *kp__strndup(const char *s, size_t n) {
    size_t len = strnlen(s, n);
    char *d = kp__malloc(len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

void kp__free(void *p) { free(p); }

bool kp__grow(void **buf, size_t *cap, size_t need, size_t elem, size_t min_cap) {
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : (min_cap ? min_cap : 1);
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return false;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem) return false;
    void *nb = kp__realloc(*buf, nc * elem);
    if (!nb) return false;
    *buf = nb;
    *cap = nc;
    return true;
}

bool kp__grow32(void **buf, uint32_t *cap, size_t need, size_t elem, uint32_t min_cap) {
    if (need <= *cap) return true;
    if (need > UINT32_MAX) return false;
    size_t c = *cap;
    if (!kp__grow(buf, &c, need, elem, min_cap)) return false;
    *cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    return true;
}

/* The public face of the allocator (include/kprio/common.h). */
void *kp_malloc(size_t n) { return kp__malloc(n); }
void *kp_calloc(size_t count, size_t size) { return kp__calloc(count, size); }
void *kp_realloc(void *p, size_t n) { return kp__realloc(p, n); }
char *kp_strdup(const char *s) { return kp__strdup(s); }
void kp_free(void *p) { kp__free(p); }
