/* The growing byte buffer (base/buf.h). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"

void kp__buf_init(kp__buf *b) { memset(b, 0, sizeof *b); }

void kp__buf_init_local(kp__buf *b, char *local, size_t cap) {
    memset(b, 0, sizeof *b);
    b->p = b->local = local;
    b->cap = b->local_cap = cap;
    local[0] = 0;
}

void kp__buf_free(kp__buf *b) {
    if (b->p != b->local) kp__free(b->p);
    b->p = b->local;
    b->cap = b->local_cap;
    b->len = 0;
    if (b->p) b->p[0] = 0;
}

void kp__buf_reset(kp__buf *b) {
    b->len = 0;
    if (b->p) b->p[0] = 0;
}

bool kp__buf_reserve(kp__buf *b, size_t n) {
    if (b->failed) return false;
    if (n < b->cap - b->len) return true; /* cap > len always holds once p is set */
    if (n > (size_t)-1 - b->len - 1) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + n + 1;
    if (b->p && b->p == b->local) {
        /* from the caller's storage to the heap: a fresh block, then the text so far */
        void *np = NULL;
        size_t cap = 0;
        if (!kp__grow(&np, &cap, need, 1, b->cap * 2)) {
            b->failed = true;
            return false;
        }
        memcpy(np, b->p, b->len + 1);
        b->p = np;
        b->cap = cap;
        return true;
    }
    void *np = b->p;
    if (!kp__grow(&np, &b->cap, need, 1, 256)) {
        b->failed = true;
        return false;
    }
    b->p = np;
    return true;
}

bool kp__buf_append(kp__buf *b, const void *s, size_t n) {
    if (!kp__buf_reserve(b, n)) return false;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return true;
}

bool kp__buf_puts(kp__buf *b, const char *s) { return kp__buf_append(b, s, strlen(s)); }

bool kp__buf_putc(kp__buf *b, char c) { return kp__buf_append(b, &c, 1); }

bool kp__buf_vprintf(kp__buf *b, const char *fmt, va_list ap) {
    if (b->failed) return false;
    va_list ap2;
    va_copy(ap2, ap);
    /* first into the room there is: most pieces fit, and are formatted once */
    int w = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    if (w < 0) {
        va_end(ap2);
        if (b->p) b->p[b->len] = 0;
        return false;
    }
    if (!b->p || (size_t)w >= b->cap - b->len) {
        if (!kp__buf_reserve(b, (size_t)w)) {
            va_end(ap2);
            if (b->p) b->p[b->len] = 0;
            return false;
        }
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap2);
    }
    va_end(ap2);
    b->len += (size_t)w;
    return true;
}

bool kp__buf_printf(kp__buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    bool ok = kp__buf_vprintf(b, fmt, ap);
    va_end(ap);
    return ok;
}

const char *kp__buf_str(const kp__buf *b) { return b->p ? b->p : ""; }
