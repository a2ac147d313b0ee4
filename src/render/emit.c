/* The tool's JSON / YAML documents and kubectl-style tables (render/emit.h). JSON is written by
 * the internal utility module's writer (base/json.h, the one the library's encoding uses), YAML
 * here on the same buffer; memory comes from base/alloc.h, with its test hook. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/json.h"
#include "render/emit.h"

bool kp_outfmt_parse(const char *s, kp_outfmt *out) {
    if (strcmp(s, "table") == 0 || strcmp(s, "wide") == 0) *out = KP_OUT_TABLE;
    else if (strcmp(s, "json") == 0) *out = KP_OUT_JSON;
    else if (strcmp(s, "yaml") == 0) *out = KP_OUT_YAML;
    else return false;
    return true;
}

/* YAML's container state (the JSON look is base/json.h's). */
typedef struct {
    bool is_obj;
    int count;
    int indent; /* indentation of this container's keys / dashes */
    bool inline_first; /* first key goes right after "- " */
} frame;

struct kp_emit {
    FILE *f;
    kp_outfmt fmt;
    /* JSON: the writer; YAML: its buffer (kp__json_raw) and sticky status only. The document is
     * written to f in one piece by kp_emit_free. */
    kp__json j;
    frame *st; /* YAML: open containers (grows through kp__grow) */
    size_t depth, cap;
};

kp_emit *kp_emit_new(FILE *f, kp_outfmt fmt) {
    kp_emit *e = kp__calloc(1, sizeof *e);
    if (!e) return NULL;
    e->f = f;
    e->fmt = fmt;
    kp__json_init(&e->j, true, NULL, NULL, NULL);
    return e;
}

kp_status kp_emit_status(const kp_emit *e) { return e ? e->j.st : KP_ENOMEM; }

void kp_emit_fail(kp_emit *e, kp_status st) {
    if (e) kp__json_fail(&e->j, st);
}

/* False (and nothing is written) once the writer has failed or when there is none. */
static bool usable(const kp_emit *e) { return e && e->j.st == KP_OK; }
static bool is_json(const kp_emit *e) { return e->fmt == KP_OUT_JSON; }

static void out_write(kp_emit *e, const char *p, size_t n) { kp__json_raw(&e->j, p, n); }
static void out_puts(kp_emit *e, const char *s) { out_write(e, s, strlen(s)); }
static void out_putc(kp_emit *e, char c) { out_write(e, &c, 1); }

void kp_emit_discard(kp_emit *e) {
    if (!e) return;
    kp__json_free(&e->j);
    kp__free(e->st);
    kp__free(e);
}

void kp_emit_free(kp_emit *e) {
    if (!e) return;
    if (e->j.st == KP_OK) {
        fwrite(kp__buf_str(&e->j.out), 1, e->j.out.len, e->f);
        if (is_json(e)) fputc('\n', e->f);
    }
    kp_emit_discard(e);
}

static void indent(kp_emit *e, int n) {
    for (int i = 0; i < n; i++) out_putc(e, ' ');
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

/* A YAML scalar: strings quoted (JSON's escapes) only when needed. */
static void yaml_scalar(kp_emit *e, const char *text, size_t len, bool is_string) {
    yaml_before_value(e, false);
    if (is_string && yaml_needs_quotes(text, len)) kp__json_quoted(&e->j, text, len);
    else out_write(e, text, len);
    out_putc(e, '\n');
}

void kp_emit_strn(kp_emit *e, const char *s, size_t len) {
    if (!usable(e)) return;
    if (is_json(e)) kp__json_strn(&e->j, s, len);
    else yaml_scalar(e, s, len, true);
}
void kp_emit_str(kp_emit *e, const char *s) {
    if (!s) kp_emit_null(e);
    else kp_emit_strn(e, s, strlen(s));
}
void kp_emit_int(kp_emit *e, int64_t v) {
    if (!usable(e)) return;
    if (is_json(e)) {
        kp__json_int(&e->j, v);
        return;
    }
    char b[32];
    int n = snprintf(b, sizeof b, "%" PRId64, v);
    yaml_scalar(e, b, (size_t)n, false);
}
void kp_emit_bool(kp_emit *e, bool v) {
    if (!usable(e)) return;
    if (is_json(e)) kp__json_bool(&e->j, v);
    else yaml_scalar(e, v ? "true" : "false", v ? 4 : 5, false);
}
void kp_emit_null(kp_emit *e) {
    if (!usable(e)) return;
    if (is_json(e)) kp__json_null(&e->j);
    else yaml_scalar(e, "null", 4, false);
}

static void open_container(kp_emit *e, bool is_obj) {
    if (!usable(e)) return;
    if (is_json(e)) {
        if (is_obj) kp__json_obj(&e->j);
        else kp__json_arr(&e->j);
        return;
    }
    void *st = e->st;
    if (!kp__grow(&st, &e->cap, e->depth + 1, sizeof *e->st, 32)) {
        kp__json_fail(&e->j, KP_ENOMEM);
        return;
    }
    e->st = st;
    frame nf = {is_obj, 0, 0, false};
    if (e->depth > 0) {
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
    e->st[e->depth++] = nf;
}

static void close_container(kp_emit *e, bool is_obj) {
    if (!usable(e)) return;
    if (is_json(e)) {
        if (is_obj) kp__json_end_obj(&e->j);
        else kp__json_end_arr(&e->j);
        return;
    }
    if (e->depth == 0) return;
    frame fr = e->st[--e->depth];
    if (fr.count == 0) {
        /* after "- " (inline) or at the top no space is needed; after "key:" one is */
        bool space = e->depth > 0 && !fr.inline_first;
        if (space) out_putc(e, ' ');
        out_puts(e, fr.is_obj ? "{}\n" : "[]\n");
    }
}

void kp_emit_obj_begin(kp_emit *e) { open_container(e, true); }
void kp_emit_obj_end(kp_emit *e) { close_container(e, true); }
void kp_emit_arr_begin(kp_emit *e) { open_container(e, false); }
void kp_emit_arr_end(kp_emit *e) { close_container(e, false); }

void kp_emit_key(kp_emit *e, const char *key) {
    if (!usable(e)) return;
    if (is_json(e)) {
        kp__json_key(&e->j, key);
        return;
    }
    if (e->depth == 0) return;
    frame *fr = &e->st[e->depth - 1];
    if (fr->count == 0 && fr->inline_first) {
        /* first key right after "- " */
    } else {
        if (fr->count == 0 && e->depth > 1) out_putc(e, '\n');
        indent(e, fr->indent);
    }
    fr->count++;
    if (yaml_needs_quotes(key, strlen(key))) kp__json_quoted(&e->j, key, strlen(key));
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

void kp_emit_pod_ref(kp_emit *e, const char *ns, const char *name) {
    if (!name) {
        kp_emit_null(e);
        return;
    }
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "namespace", ns);
    kp_emit_kv_str(e, "name", name);
    kp_emit_obj_end(e);
}

void kp_emit_kv_pod_ref(kp_emit *e, const char *key, const char *ns, const char *name) {
    kp_emit_key(e, key);
    kp_emit_pod_ref(e, ns, name);
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
bool kp_table_no_headers(void) { return no_headers; }

kp_table *kp_table_new(int n_cols) {
    kp_table *t = kp__calloc(1, sizeof *t);
    if (!t) return NULL;
    t->n_cols = n_cols > 0 ? n_cols : 1;
    t->width = kp__calloc((size_t)t->n_cols, sizeof *t->width);
    t->body_width = kp__calloc((size_t)t->n_cols, sizeof *t->body_width);
    if (!t->width || !t->body_width) t->status = KP_ENOMEM;
    return t;
}

kp_status kp_table_status(const kp_table *t) { return t ? t->status : KP_ENOMEM; }

void kp_table_fail(kp_table *t, kp_status st) {
    if (t && t->status == KP_OK) t->status = st;
}

size_t kp_escape_unit(const unsigned char *p, char out[6], size_t *used) {
    unsigned c = *p;
    *used = 1;
    if (c == '\n' || c == '\t' || c == '\r') {
        out[0] = '\\';
        out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
        return 2;
    }
    if (c < 0x20 || c == 0x7f) return (size_t)snprintf(out, 6, "\\x%02x", c);
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    /* a UTF-8 sequence: its length from the lead byte, continuation bytes checked */
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    size_t k = 1;
    while (k < n && (p[k] & 0xc0) == 0x80) k++;
    if (n == 0 || k < n) return (size_t)snprintf(out, 6, "\\x%02x", c);
    *used = n;
    if (c == 0xc2 && p[1] < 0xa0) {
        char tmp[8];
        snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)p[1]);
        memcpy(out, tmp, 6);
        return 6;
    }
    memcpy(out, p, n);
    return n;
}

/* cell escaped (kp_escape_unit), in place when it needs nothing, else a new allocation (cell
 * freed); NULL stays NULL (a failed allocation) */
static char *escaped(char *cell) {
    if (!cell) return NULL;
    size_t need = 0;
    bool any = false;
    for (const unsigned char *p = (const unsigned char *)cell; *p;) {
        char out[6];
        size_t used, n = kp_escape_unit(p, out, &used);
        any |= n != used || memcmp(out, p, n) != 0;
        need += n;
        p += used;
    }
    if (!any) return cell;
    char *e = kp__malloc(need + 1);
    size_t len = 0;
    for (const unsigned char *p = (const unsigned char *)cell; e && *p;) {
        size_t used, n = kp_escape_unit(p, e + len, &used);
        len += n;
        p += used;
    }
    if (e) e[len] = 0;
    kp__free(cell);
    return e;
}

/* Takes ownership of cell (a kp__malloc allocation; NULL = the allocation failed). */
static void add_owned(kp_table *t, char *cell) {
    cell = escaped(cell);
    void *cells = t->cells;
    if (cell && t->status == KP_OK && !kp__grow(&cells, &t->cap, t->n + 1, sizeof *t->cells, 64)) {
        kp__free(cell);
        cell = NULL;
    }
    t->cells = cells;
    if (!cell || t->status != KP_OK) {
        kp__free(cell);
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
    add_owned(t, kp__strdup(cell ? cell : ""));
}

void kp_table_addf(kp_table *t, const char *fmt, ...) {
    if (!t || t->status != KP_OK) return;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *cell = len < 0 ? NULL : kp__malloc((size_t)len + 1);
    if (cell) {
        va_start(ap, fmt);
        vsnprintf(cell, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    add_owned(t, cell);
}

/* kubectl's --sort-by for the tables this thread prints (kp_table_set_sort_by): the header of
 * the column rows are ordered by, NULL = the renderer's order. */
static _Thread_local const char *sort_by;

void kp_table_set_sort_by(const char *column) { sort_by = column; }

bool kp_table_sort_value(const char *cell, int64_t *out) {
    char *end;
    long long v = strtoll(cell, &end, 10);
    if (end != cell && *end == 0) {
        *out = v;
        return true;
    }
    return kp_duration_parse(cell, out, NULL) == KP_OK;
}

/* What rows are compared by, once per row: a number (integers, Go durations) or the text. */
typedef struct {
    const char *cell;
    bool is_num, is_none;
    int64_t num;
    size_t row;
} sort_key;

static int key_cmp(const void *pa, const void *pb) {
    const sort_key *a = pa, *b = pb;
    int c = 0;
    if (a->is_none != b->is_none) c = a->is_none ? 1 : -1; /* <none> and "" last */
    else if (a->is_num && b->is_num) c = (a->num > b->num) - (a->num < b->num);
    else if (a->is_num != b->is_num) c = a->is_num ? -1 : 1; /* numbers before words */
    else c = strcmp(a->cell, b->cell);
    return c ? c : (a->row > b->row) - (a->row < b->row); /* stable, as kubectl's */
}

/* The order of the data rows (rows 1..): by sort_by's column when the table has it, NULL when
 * not sorted; *failed when out of memory. */
static size_t *row_order(const kp_table *t, bool *failed) {
    *failed = false;
    size_t rows = t->n / (size_t)t->n_cols;
    int col = -1;
    for (int c = 0; sort_by && c < t->n_cols && (size_t)c < t->n; c++)
        if (strcasecmp(t->cells[c], sort_by) == 0) col = c;
    if (col < 0 || rows < 2) return NULL;
    sort_key *k = kp__calloc(rows - 1, sizeof *k);
    size_t *order = kp__calloc(rows, sizeof *order);
    if (!k || !order) {
        kp__free(k);
        kp__free(order);
        *failed = true;
        return NULL;
    }
    for (size_t r = 1; r < rows; r++) {
        sort_key *x = &k[r - 1];
        x->cell = t->cells[r * (size_t)t->n_cols + (size_t)col];
        x->row = r;
        x->is_none = !x->cell[0] || strcmp(x->cell, "<none>") == 0 || strcmp(x->cell, "-") == 0;
        x->is_num = !x->is_none && kp_table_sort_value(x->cell, &x->num);
    }
    qsort(k, rows - 1, sizeof *k, key_cmp);
    order[0] = 0;
    for (size_t r = 1; r < rows; r++) order[r] = k[r - 1].row;
    kp__free(k);
    return order;
}

kp_status kp_table_print(const kp_table *t, FILE *f) {
    if (!t || t->status != KP_OK) return kp_table_status(t);
    bool failed;
    size_t *order = row_order(t, &failed);
    if (failed) return KP_ENOMEM;
    const size_t *width = no_headers ? t->body_width : t->width;
    size_t nc = (size_t)t->n_cols;
    for (size_t i = no_headers ? nc : 0; i < t->n; i++) {
        size_t col = i % nc, cell = order ? order[i / nc] * nc + col : i;
        bool last = col == nc - 1 || i == t->n - 1;
        if (last) fprintf(f, "%s\n", t->cells[cell]);
        else fprintf(f, "%-*s   ", (int)width[col], t->cells[cell]);
    }
    kp__free(order);
    return KP_OK;
}

void kp_table_free(kp_table *t) {
    if (!t) return;
    for (size_t i = 0; i < t->n; i++) kp__free(t->cells[i]);
    kp__free(t->cells);
    kp__free(t->width);
    kp__free(t->body_width);
    kp__free(t);
}
