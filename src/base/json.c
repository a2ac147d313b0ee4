/* The streaming JSON writer (base/json.h). */
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"

void kp__json_init(kp__json *j, bool pretty, kp__json_sink sink, void *ctx, kp_error *err) {
    memset(j, 0, sizeof *j);
    j->pretty = pretty;
    j->sink = sink;
    j->ctx = ctx;
    j->err = err;
    /* with a sink the buffer never holds more than a chunk: allocate it once */
    if (sink && !kp__buf_reserve(&j->out, KP__JSON_CHUNK)) kp__json_fail(j, KP_ENOMEM);
}

void kp__json_fail(kp__json *j, kp_status st) {
    if (j->st != KP_OK || st == KP_OK) return;
    j->st = st;
    if (st == KP_ENOMEM) kp_error_set(j->err, st, "out of memory");
}

kp_status kp__json_flush(kp__json *j) {
    if (j->st != KP_OK || !j->sink || j->out.len == 0) return j->st;
    kp_status st = j->sink(j->ctx, j->out.p, j->out.len);
    kp__buf_reset(&j->out);
    if (st != KP_OK) {
        j->st = st;
        kp_error_set(j->err, st, "write failed (%s)", kp_status_str(st));
    }
    return j->st;
}

void kp__json_free(kp__json *j) {
    kp__buf_free(&j->out);
    kp__free(j->count);
    j->count = NULL;
    j->cap_count = 0;
    j->depth = 0;
}

/* The general case of put: the chunk is full (sink), the buffer must grow, or the writer failed. */
static void put_slow(kp__json *j, const char *s, size_t n) {
    if (j->st != KP_OK) return;
    if (j->sink) {
        /* fill the chunk, hand it on, go on: pieces of at most KP__JSON_CHUNK bytes */
        while (n > KP__JSON_CHUNK - j->out.len) {
            size_t k = KP__JSON_CHUNK - j->out.len;
            kp__buf_append(&j->out, s, k);
            s += k;
            n -= k;
            if (kp__json_flush(j) != KP_OK) return;
        }
    }
    if (!kp__buf_append(&j->out, s, n)) kp__json_fail(j, KP_ENOMEM);
}

/* Appends s[0..n): the common case (room in the buffer and in the chunk) inline, as the encoder
 * writes a few bytes at a time and a call per piece would double its cost. Keeps out's NUL. */
static inline void put(kp__json *j, const char *s, size_t n) {
    kp__buf *b = &j->out;
    if (j->st == KP_OK && n < b->cap - b->len && (!j->sink || n <= KP__JSON_CHUNK - b->len)) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len] = 0;
        return;
    }
    put_slow(j, s, n);
}

static inline void raw_c(kp__json *j, char c) {
    kp__buf *b = &j->out;
    if (j->st == KP_OK && 1 < b->cap - b->len && (!j->sink || b->len < KP__JSON_CHUNK)) {
        b->p[b->len++] = c;
        b->p[b->len] = 0;
        return;
    }
    put_slow(j, &c, 1);
}

void kp__json_raw(kp__json *j, const char *s, size_t n) { put(j, s, n); }

/* The escape of byte c (a quote, a backslash or a control byte). */
static void escape(kp__json *j, unsigned char c) {
    static const char hex[] = "0123456789abcdef";
    char esc[6] = {'\\', 0, 0, 0, 0, 0};
    size_t n = 2;
    if (c == '"' || c == '\\') esc[1] = (char)c;
    else if (c == '\n') esc[1] = 'n';
    else if (c == '\r') esc[1] = 'r';
    else if (c == '\t') esc[1] = 't';
    else {
        memcpy(esc + 1, "u00", 3);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        n = 6;
    }
    put(j, esc, n);
}

static inline bool plain(unsigned char c) { return c >= 0x20 && c != '"' && c != '\\'; }

void kp__json_quoted(kp__json *j, const char *s, size_t len) {
    raw_c(j, '"');
    const char *run = s, *end = s + len;
    for (; s < end; s++) {
        if (plain((unsigned char)*s)) continue;
        put(j, run, (size_t)(s - run));
        run = s + 1;
        escape(j, (unsigned char)*s);
    }
    put(j, run, (size_t)(s - run));
    raw_c(j, '"');
}

/* The same for a NUL-terminated string, in one pass (no strlen first: the encoder's hot path). */
static void quoted_z(kp__json *j, const char *s) {
    raw_c(j, '"');
    const char *run = s;
    for (; *s; s++) {
        if (plain((unsigned char)*s)) continue;
        put(j, run, (size_t)(s - run));
        run = s + 1;
        escape(j, (unsigned char)*s);
    }
    put(j, run, (size_t)(s - run));
    raw_c(j, '"');
}

static void newline_indent(kp__json *j, size_t depth) {
    static const char spaces[] = "                                "; /* 32 */
    raw_c(j, '\n');
    for (size_t n = depth * 4; n && j->st == KP_OK;) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        put(j, spaces, k);
        n -= k;
    }
}

/* Separator and line break before a member or an element of the current container. */
static void next_item(kp__json *j) {
    if (j->depth == 0) return;
    uint32_t *count = &j->count[j->depth - 1];
    if (*count) raw_c(j, ',');
    (*count)++;
    if (j->pretty) newline_indent(j, j->depth);
    else if (j->line_depth && j->depth == j->line_depth) raw_c(j, '\n');
}

static void before_value(kp__json *j) {
    if (j->after_key) j->after_key = false;
    else next_item(j);
}

void kp__json_key(kp__json *j, const char *key) {
    if (j->st != KP_OK || j->depth == 0) return;
    next_item(j);
    quoted_z(j, key);
    if (j->pretty) put(j, ": ", 2);
    else raw_c(j, ':');
    j->after_key = true;
}

static void open_c(kp__json *j, char c) {
    if (j->st != KP_OK) return;
    before_value(j);
    void *count = j->count;
    if (!kp__grow(&count, &j->cap_count, j->depth + 1, sizeof *j->count, 32)) {
        kp__json_fail(j, KP_ENOMEM);
        return;
    }
    j->count = count;
    raw_c(j, c);
    j->count[j->depth++] = 0;
}

static void close_c(kp__json *j, char c) {
    if (j->st != KP_OK || j->depth == 0) return;
    uint32_t n = j->count[--j->depth];
    if (n && j->pretty) newline_indent(j, j->depth);
    else if (n && j->line_depth && j->depth + 1 == j->line_depth) raw_c(j, '\n');
    raw_c(j, c);
}

void kp__json_obj(kp__json *j) { open_c(j, '{'); }
void kp__json_arr(kp__json *j) { open_c(j, '['); }
void kp__json_end_obj(kp__json *j) { close_c(j, '}'); }
void kp__json_end_arr(kp__json *j) { close_c(j, ']'); }

void kp__json_strn(kp__json *j, const char *s, size_t len) {
    if (j->st != KP_OK) return;
    before_value(j);
    kp__json_quoted(j, s, len);
}

void kp__json_str(kp__json *j, const char *s) {
    if (j->st != KP_OK) return;
    before_value(j);
    quoted_z(j, s);
}

void kp__json_int(kp__json *j, int64_t v) {
    if (j->st != KP_OK) return;
    char b[24];
    size_t n = sizeof b;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do b[--n] = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    if (v < 0) b[--n] = '-';
    before_value(j);
    put(j, b + n, sizeof b - n);
}

void kp__json_number(kp__json *j, const char *text, size_t len) {
    if (j->st != KP_OK) return;
    before_value(j);
    put(j, text, len);
}

void kp__json_bool(kp__json *j, bool v) {
    if (j->st != KP_OK) return;
    before_value(j);
    put(j, v ? "true" : "false", v ? 4 : 5);
}

void kp__json_null(kp__json *j) {
    if (j->st != KP_OK) return;
    before_value(j);
    put(j, "null", 4);
}
