/* Streaming JSON / YAML writer and kubectl-style tables. Public headers only: memory comes from
 * kp_malloc & co. (kprio/common.h), the library's allocator with its test hook. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "render/emit.h"

bool kp_outfmt_parse(const char *s, kp_outfmt *out) {
    if (strcmp(s, "table") == 0 || strcmp(s, "wide") == 0) *out = KP_OUT_TABLE;
    else if (strcmp(s, "json") == 0) *out = KP_OUT_JSON;
    else if (strcmp(s, "yaml") == 0) *out = KP_OUT_YAML;
    else return false;
    return true;
}

/* Containers nest this deep without allocating; deeper documents grow the stack on the heap. */
#define EMIT_INLINE_DEPTH 32

typedef struct {
    bool is_obj;
    int count;
    int indent; /* YAML: indentation of this container's keys / dashes */
    bool inline_first; /* YAML: first key goes right after "- " */
} frame;

struct kp_emit {
    FILE *f;
    char *buf; /* the document so far: written to f in one piece by kp_emit_free */
    size_t len, cap_buf;
    kp_outfmt fmt;
    kp_status status; /* sticky: the first failure; every call after it writes nothing */
    frame *st; /* inline_st, or a heap copy once deeper than EMIT_INLINE_DEPTH */
    size_t depth, cap;
    bool after_key; /* JSON: a key was written, value follows */
    frame inline_st[EMIT_INLINE_DEPTH];
};

kp_emit *kp_emit_new(FILE *f, kp_outfmt fmt) {
    kp_emit *e = kp_calloc(1, sizeof *e);
    if (!e) return NULL;
    e->f = f;
    e->fmt = fmt;
    e->st = e->inline_st;
    e->cap = EMIT_INLINE_DEPTH;
    return e;
}

kp_status kp_emit_status(const kp_emit *e) { return e ? e->status : KP_ENOMEM; }

void kp_emit_fail(kp_emit *e, kp_status st) {
    if (e && e->status == KP_OK) e->status = st;
}

/* False (and nothing is written) once the writer has failed or when there is none. */
static bool usable(const kp_emit *e) { return e && e->status == KP_OK; }

/* Appends to the document buffer, doubling it (sticky KP_ENOMEM when it cannot grow). */
static void out_write(kp_emit *e, const char *p, size_t n) {
    if (e->status != KP_OK) return;
    if (n > e->cap_buf - e->len) {
        size_t cap = e->cap_buf ? e->cap_buf : 4096;
        while (cap - e->len < n) {
            if (cap > SIZE_MAX / 2) {
                e->status = KP_ENOMEM;
                return;
            }
            cap *= 2;
        }
        char *nb = kp_realloc(e->buf, cap);
        if (!nb) {
            e->status = KP_ENOMEM;
            return;
        }
        e->buf = nb;
        e->cap_buf = cap;
    }
    memcpy(e->buf + e->len, p, n);
    e->len += n;
}
static void out_puts(kp_emit *e, const char *s) { out_write(e, s, strlen(s)); }
static void out_putc(kp_emit *e, char c) { out_write(e, &c, 1); }

void kp_emit_discard(kp_emit *e) {
    if (!e) return;
    if (e->st != e->inline_st) kp_free(e->st);
    kp_free(e->buf);
    kp_free(e);
}

void kp_emit_free(kp_emit *e) {
    if (!e) return;
    if (e->status == KP_OK) {
        fwrite(e->buf ? e->buf : "", 1, e->len, e->f);
        if (e->fmt == KP_OUT_JSON) fputc('\n', e->f);
    }
    kp_emit_discard(e);
}

static void indent(kp_emit *e, int n) {
    for (int i = 0; i < n; i++) out_putc(e, ' ');
}

static void json_str(kp_emit *f, const char *s, size_t len) {
    out_putc(f, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': out_puts(f, "\\\""); break;
        case '\\': out_puts(f, "\\\\"); break;
        case '\n': out_puts(f, "\\n"); break;
        case '\r': out_puts(f, "\\r"); break;
        case '\t': out_puts(f, "\\t"); break;
        default:
            if (c < 0x20) {
                char u[8];
                snprintf(u, sizeof u, "\\u%04x", c);
                out_puts(f, u);
            } else out_putc(f, c);
        }
    }
    out_putc(f, '"');
}

/* JSON: comma + newline + indentation before a new element/member. */
static void json_before_value(kp_emit *e) {
    if (e->after_key) {
        e->after_key = false;
        return;
    }
    if (e->depth == 0) return;
    frame *fr = &e->st[e->depth - 1];
    out_puts(e, fr->count ? ",\n" : "\n");
    indent(e, (int)e->depth * 4);
    fr->count++;
}

/* YAML: position the cursor for a scalar or a container that is an array element / member value. */
static void yaml_before_value(kp_emit *e, bool container) {
    if (e->depth == 0) return;
    frame *fr = &e->st[e->depth - 1];
    if (fr->is_obj) {
        /* after "key:" */
        if (!container) out_putc(e, ' ');
        return;
    }
    if (fr->count == 0 && fr->inline_first) {
        out_puts(e, "- ");
    } else {
        if (fr->count == 0 && e->depth > 1) out_putc(e, '\n');
        indent(e, fr->indent);
        out_puts(e, "- ");
    }
    fr->count++;
}

static bool yaml_needs_quotes(const char *s, size_t len) {
    if (len == 0) return true;
    static const char *const special[] = {"true", "false", "yes",  "no",   "on",    "off", "null",
                                          "~",    "y",     "n",    "True", "False", "Yes", "No",
                                          "On",   "Off",   "Null", "TRUE", "FALSE", "YES", "NO",
                                          "ON",   "OFF",   "NULL", "Y",    "N",     NULL};
    for (int i = 0; special[i]; i++)
        if (strlen(special[i]) == len && memcmp(special[i], s, len) == 0) return true;
    if (strchr("-?:,[]{}#&*!|>'\"%@` ", s[0])) return true;
    if (s[len - 1] == ' ' || s[len - 1] == ':') return true;
    bool numeric = true;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if ((unsigned char)c < 0x20) return true;
        if (c == ':' && i + 1 < len && s[i + 1] == ' ') return true;
        if (c == '#' && i > 0 && s[i - 1] == ' ') return true;
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
            numeric = false;
    }
    return numeric;
}

static void scalar_raw(kp_emit *e, const char *text, size_t len, bool is_string) {
    if (!usable(e)) return;
    if (e->fmt == KP_OUT_JSON) {
        json_before_value(e);
        if (is_string) json_str(e, text, len);
        else out_write(e, text, len);
        return;
    }
    yaml_before_value(e, false);
    if (is_string && yaml_needs_quotes(text, len)) json_str(e, text, len);
    else out_write(e, text, len);
    out_putc(e, '\n');
}

void kp_emit_strn(kp_emit *e, const char *s, size_t len) { scalar_raw(e, s, len, true); }
void kp_emit_str(kp_emit *e, const char *s) {
    if (!s) {
        kp_emit_null(e);
        return;
    }
    scalar_raw(e, s, strlen(s), true);
}
void kp_emit_int(kp_emit *e, int64_t v) {
    char b[32];
    int n = snprintf(b, sizeof b, "%" PRId64, v);
    scalar_raw(e, b, (size_t)n, false);
}
void kp_emit_bool(kp_emit *e, bool v) { scalar_raw(e, v ? "true" : "false", v ? 4 : 5, false); }
void kp_emit_null(kp_emit *e) { scalar_raw(e, "null", 4, false); }

/* Room for one more frame: the inline stack, then the heap (sticky KP_ENOMEM). */
static bool push_room(kp_emit *e) {
    if (e->depth < e->cap) return true;
    frame *heap = e->st == e->inline_st ? NULL : e->st;
    size_t cap = e->cap * 2;
    if (cap > SIZE_MAX / sizeof *heap || !(heap = kp_realloc(heap, cap * sizeof *heap))) {
        e->status = KP_ENOMEM;
        return false;
    }
    if (e->st == e->inline_st) memcpy(heap, e->inline_st, sizeof e->inline_st);
    e->st = heap;
    e->cap = cap;
    return true;
}

static void open_container(kp_emit *e, bool is_obj) {
    if (!usable(e) || !push_room(e)) return;
    frame nf = {is_obj, 0, 0, false};
    if (e->fmt == KP_OUT_JSON) {
        json_before_value(e);
        out_putc(e, is_obj ? '{' : '[');
    } else {
        if (e->depth == 0) {
            nf.indent = 0;
        } else {
            frame *pf = &e->st[e->depth - 1];
            if (pf->is_obj) {
                /* value of "key:": objects indent by 2, sequences stay at the key's column */
                nf.indent = is_obj ? pf->indent + 2 : pf->indent;
            } else {
                yaml_before_value(e, true);
                nf.indent = pf->indent + 2;
                nf.inline_first = true;
            }
        }
    }
    e->st[e->depth++] = nf;
}

static void close_container(kp_emit *e) {
    if (!usable(e) || e->depth == 0) return;
    frame fr = e->st[--e->depth];
    if (e->fmt == KP_OUT_JSON) {
        if (fr.count) {
            out_putc(e, '\n');
            indent(e, (int)e->depth * 4);
        }
        out_putc(e, fr.is_obj ? '}' : ']');
        return;
    }
    if (fr.count == 0) {
        /* after "- " (inline) or at the top no space is needed; after "key:" one is */
        bool space = e->depth > 0 && !fr.inline_first;
        if (space) out_putc(e, ' ');
        out_puts(e, fr.is_obj ? "{}\n" : "[]\n");
    }
}

void kp_emit_obj_begin(kp_emit *e) { open_container(e, true); }
void kp_emit_obj_end(kp_emit *e) { close_container(e); }
void kp_emit_arr_begin(kp_emit *e) { open_container(e, false); }
void kp_emit_arr_end(kp_emit *e) { close_container(e); }

void kp_emit_key(kp_emit *e, const char *key) {
    if (!usable(e) || e->depth == 0) return;
    frame *fr = &e->st[e->depth - 1];
    if (e->fmt == KP_OUT_JSON) {
        out_puts(e, fr->count ? ",\n" : "\n");
        indent(e, (int)e->depth * 4);
        fr->count++;
        json_str(e, key, strlen(key));
        out_puts(e, ": ");
        e->after_key = true;
        return;
    }
    if (fr->count == 0 && fr->inline_first) {
        /* first key right after "- " */
    } else {
        if (fr->count == 0 && e->depth > 1) out_putc(e, '\n');
        indent(e, fr->indent);
    }
    fr->count++;
    if (yaml_needs_quotes(key, strlen(key))) json_str(e, key, strlen(key));
    else out_puts(e, key);
    out_putc(e, ':');
}

void kp_emit_kv_str(kp_emit *e, const char *key, const char *s) {
    kp_emit_key(e, key);
    kp_emit_str(e, s);
}
void kp_emit_kv_int(kp_emit *e, const char *key, int64_t v) {
    kp_emit_key(e, key);
    kp_emit_int(e, v);
}
void kp_emit_kv_bool(kp_emit *e, const char *key, bool v) {
    kp_emit_key(e, key);
    kp_emit_bool(e, v);
}

/* ---- tables ---- */

struct kp_table {
    int n_cols;
    kp_status status; /* sticky: the first failure; kp_table_print reports it and prints nothing */
    char **cells;
    size_t n, cap;
    size_t *width; /* per column, kept as cells are added so printing never allocates */
    size_t *body_width; /* the same without the header row (--no-headers) */
};

/* kubectl's --no-headers for the tables this thread prints (kp_table_set_no_headers). */
static _Thread_local bool no_headers;

void kp_table_set_no_headers(bool on) { no_headers = on; }

kp_table *kp_table_new(int n_cols) {
    kp_table *t = kp_calloc(1, sizeof *t);
    if (!t) return NULL;
    t->n_cols = n_cols > 0 ? n_cols : 1;
    t->width = kp_calloc((size_t)t->n_cols, sizeof *t->width);
    t->body_width = kp_calloc((size_t)t->n_cols, sizeof *t->body_width);
    if (!t->width || !t->body_width) t->status = KP_ENOMEM;
    return t;
}

kp_status kp_table_status(const kp_table *t) { return t ? t->status : KP_ENOMEM; }

void kp_table_fail(kp_table *t, kp_status st) {
    if (t && t->status == KP_OK) t->status = st;
}

/* Takes ownership of cell (a kp_malloc allocation; NULL = the allocation failed). */
static void add_owned(kp_table *t, char *cell) {
    if (cell && t->status == KP_OK && t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **cells =
            cap > SIZE_MAX / sizeof *cells ? NULL : kp_realloc(t->cells, cap * sizeof *cells);
        if (cells) {
            t->cells = cells;
            t->cap = cap;
        } else {
            kp_free(cell);
            cell = NULL;
        }
    }
    if (!cell || t->status != KP_OK) {
        kp_free(cell);
        t->status = KP_ENOMEM;
        return;
    }
    size_t col = t->n % (size_t)t->n_cols, len = strlen(cell);
    if (len > t->width[col]) t->width[col] = len;
    if (t->n >= (size_t)t->n_cols && len > t->body_width[col]) t->body_width[col] = len;
    t->cells[t->n++] = cell;
}

void kp_table_add(kp_table *t, const char *cell) {
    if (!t || t->status != KP_OK) return;
    add_owned(t, kp_strdup(cell ? cell : ""));
}

void kp_table_addf(kp_table *t, const char *fmt, ...) {
    if (!t || t->status != KP_OK) return;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *cell = len < 0 ? NULL : kp_malloc((size_t)len + 1);
    if (cell) {
        va_start(ap, fmt);
        vsnprintf(cell, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    add_owned(t, cell);
}

kp_status kp_table_print(const kp_table *t, FILE *f) {
    if (!t || t->status != KP_OK) return kp_table_status(t);
    const size_t *width = no_headers ? t->body_width : t->width;
    for (size_t i = no_headers ? (size_t)t->n_cols : 0; i < t->n; i++) {
        int col = (int)(i % (size_t)t->n_cols);
        bool last = col == t->n_cols - 1 || i == t->n - 1;
        if (last) fprintf(f, "%s\n", t->cells[i]);
        else fprintf(f, "%-*s   ", (int)width[col], t->cells[i]);
    }
    return KP_OK;
}

void kp_table_free(kp_table *t) {
    if (!t) return;
    for (size_t i = 0; i < t->n; i++) kp_free(t->cells[i]);
    kp_free(t->cells);
    kp_free(t->width);
    kp_free(t->body_width);
    kp_free(t);
}
