/* Builds per-object value trees from kp_ev events and hands them to a callback (see tree.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "io/events.h"
#include "io/input.h"
#include "io/jscan.h"
#include "io/tree.h"

typedef struct {
    kp_arena root_arena, item_arena;
    kp_arena *cur;                    /* arena new nodes come from */
    kp_tnode *stack[KP_MAX_DEPTH + 4];
    int depth;                        /* number of open containers */
    kp_tnode *root;
    const char *key;                  /* pending member name for the next value */
    uint32_t key_len;
    bool skip_pending;                /* next value is to be skipped */
    int skip_depth;                   /* >0: inside a skipped container opened at this depth */
    bool in_items;                    /* an items array (or top-level array) was opened */
    kp_tnode *items_node;             /* that array: stack[1] while its elements are parsed */
    long item_index;
    char list_kind[64];
    bool split;
    bool yaml;                        /* scalars are YAML plain/quoted */
    kp_tree_cb cb;
    void *ctx;
    kp_tdoc doc;
    kp_error *err;
    kp_status st;
    long cur_item;                    /* item index of a document parsed by the List splitter */
    uint64_t base_off;                /* offset of that document in the whole buffer */
    kp_input *input;                  /* mapped input: told how far the splitter got */
} builder;

static bool skip_key(const char *s, size_t n) {
    return (n == 13 && memcmp(s, "managedFields", 13) == 0) ||
           (n == 48 && memcmp(s, "kubectl.kubernetes.io/last-applied-configuration", 48) == 0);
}

static kp_tnode *new_node(builder *b, kp_ttype t, uint64_t off) {
    kp_tnode *n = kp__arena_alloc(b->cur, sizeof *n);
    if (!n) return NULL;
    n->type = t;
    n->off = off + b->base_off;
    if (b->key) {
        n->key = b->key;
        n->key_len = b->key_len;
        b->key = NULL;
    }
    return n;
}

static void attach(builder *b, kp_tnode *n) {
    if (b->depth == 0) {
        b->root = n;
        return;
    }
    kp_tnode *p = b->stack[b->depth - 1];
    if (p->last)
        p->last->next = n;
    else
        p->first = n;
    p->last = n;
    p->n++;
}

static int dispatch(builder *b, kp_tnode *obj, long item_index) {
    b->doc.item_index = item_index;
    b->doc.list_kind = b->list_kind[0] ? b->list_kind : NULL;
    kp_status st = b->cb(b->ctx, obj, &b->doc, b->err);
    if (st != KP_OK) {
        b->st = st;
        return -1;
    }
    return 0;
}

static int on_event(void *ctx, kp_ev ev, const char *s, size_t len, uint64_t off) {
    builder *b = ctx;
    if (b->skip_depth > 0) {
        if (ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN) b->skip_depth++;
        if (ev == KP_EV_OBJ_END || ev == KP_EV_ARR_END) b->skip_depth--;
        return 0;
    }
    if (b->skip_pending) {
        b->skip_pending = false;
        if (ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN) {
            b->skip_depth = 1;
            return 0;
        }
        if (ev != KP_EV_KEY && ev != KP_EV_OBJ_END) return 0; /* skipped scalar (YAML) */
        /* JSON back end already skipped the value: fall through */
    }
    switch (ev) {
    case KP_EV_DOC_BEGIN:
        kp__arena_reset(&b->root_arena);
        b->cur = &b->root_arena;
        b->depth = 0;
        b->root = NULL;
        b->key = NULL;
        b->in_items = false;
        b->items_node = NULL;
        b->item_index = 0;
        if (b->cur_item < 0) b->list_kind[0] = 0; /* items keep their List's kind */
        return 0;
    case KP_EV_DOC_END:
        if (b->root && b->root->type == KP_T_OBJ && !b->in_items) {
            if (dispatch(b, b->root, b->cur_item) < 0) return -1;
        } else if (b->root && b->root->type != KP_T_OBJ && b->root->type != KP_T_ARR && b->root->type != KP_T_NULL) {
            /* an empty YAML document (e.g. a trailing ---) is a null root: nothing to load */
            kp_error_set(b->err, KP_EINVAL, "the document is not an object");
            b->st = KP_EINVAL;
            return -1;
        }
        b->doc.doc_index++;
        return 0;
    case KP_EV_KEY: {
        char *k = kp__arena_dup(b->cur, s, len);
        if (!k) return -1;
        b->key = k;
        b->key_len = (uint32_t)len;
        if (skip_key(s, len)) {
            b->key = NULL;
            b->skip_pending = true;
            return 1;
        }
        return 0;
    }
    case KP_EV_OBJ_BEGIN:
    case KP_EV_ARR_BEGIN: {
        /* An element of the root's items (or of a top-level array) starts: fresh scratch. */
        bool item_start = b->split && b->in_items && b->depth == 2 && b->stack[1] == b->items_node;
        bool items_open = b->split && b->depth == 1 && ev == KP_EV_ARR_BEGIN && b->key &&
                          b->key_len == 5 && memcmp(b->key, "items", 5) == 0 &&
                          b->stack[0]->type == KP_T_OBJ;
        bool top_array = b->split && b->depth == 0 && ev == KP_EV_ARR_BEGIN;
        if (item_start) {
            kp__arena_reset(&b->item_arena);
            b->cur = &b->item_arena;
        }
        kp_tnode *n = new_node(b, ev == KP_EV_OBJ_BEGIN ? KP_T_OBJ : KP_T_ARR, off);
        if (!n) return -1;
        if (!item_start) attach(b, n);
        b->stack[b->depth++] = n;
        if (items_open || top_array) {
            b->in_items = true;
            b->items_node = n;
            if (top_array) {
                /* a top-level array: its elements are at depth 2 as well */
                b->stack[b->depth++] = n;
            }
        }
        return 0;
    }
    case KP_EV_OBJ_END:
    case KP_EV_ARR_END: {
        kp_tnode *n = b->stack[--b->depth];
        b->key = NULL;
        if (b->split && b->in_items && b->depth == 2 && b->stack[1] == b->items_node) {
            /* an item is complete */
            long idx = b->item_index++;
            b->cur = &b->root_arena;
            if (n->type != KP_T_OBJ) {
                kp_error_set(b->err, KP_EINVAL, "items[%ld]: expected an object", idx);
                b->st = KP_EINVAL;
                return -1;
            }
            return dispatch(b, n, idx);
        }
        if (b->split && b->in_items && b->depth == 1 && b->stack[0] == n) {
            /* closing a top-level array: pop the duplicate entry too */
            b->depth = 0;
            b->root = n;
        }
        return 0;
    }
    case KP_EV_STR:
    case KP_EV_NUM:
    case KP_EV_TRUE:
    case KP_EV_FALSE:
    case KP_EV_NULL: {
        if (b->split && b->in_items && b->depth == 2 && b->stack[1] == b->items_node) {
            kp_error_set(b->err, KP_EINVAL, "items[%ld]: expected an object", b->item_index);
            b->st = KP_EINVAL;
            return -1;
        }
        kp_ttype t = ev == KP_EV_STR ? KP_T_STR : ev == KP_EV_NUM ? KP_T_NUM : ev == KP_EV_NULL ? KP_T_NULL : KP_T_BOOL;
        bool is_kind = b->depth == 1 && b->key && b->key_len == 4 && memcmp(b->key, "kind", 4) == 0;
        kp_tnode *n = new_node(b, t, off);
        if (!n) return -1;
        if (t == KP_T_BOOL) n->b = ev == KP_EV_TRUE;
        if (b->yaml && t != KP_T_STR) n->plain = true;
        if (s && (t == KP_T_STR || t == KP_T_NUM || n->plain)) {
            char *c = kp__arena_dup(b->cur, s, len);
            if (!c) return -1;
            n->s = c;
            n->len = (uint32_t)len;
            if (is_kind && t == KP_T_STR && len < sizeof b->list_kind) {
                memcpy(b->list_kind, s, len);
                b->list_kind[len] = 0;
            }
        }
        attach(b, n);
        return 0;
    }
    }
    return 0;
}

void kp__offset_to_linecol(const char *buf, size_t len, uint64_t off, long *line, long *col) {
    long l = 1, c = 1;
    if (off > len) off = len;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* ---- List splitter ----
 * A kubectl List is one huge object whose "items" array holds every object. Parsing it as one
 * simdjson document needs a structural index and string buffer proportional to the whole file;
 * cutting the array into one byte range per item and parsing each range on its own keeps that
 * working memory at the size of one object and the data hot in cache. The cut tracks strings,
 * escapes and nesting; simdjson still validates every item fully, and the separators between items
 * are checked here. */

static const char *skip_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

/* p at an opening quote; returns the byte after the closing quote, NULL if unterminated. */
static const char *skip_string(const char *p, const char *e) {
    p++;
    for (;;) {
        const char *q = memchr(p, '"', (size_t)(e - p));
        if (!q) return NULL;
        const char *b = q;
        while (b > p && b[-1] == '\\') b--;
        if (((q - b) & 1) == 0) return q + 1;
        p = q + 1;
    }
}

static const char *skip_value(const char *p, const char *e) {
    if (p >= e) return NULL;
    if (*p == '"') return skip_string(p, e);
    if (*p != '{' && *p != '[') {
        while (p < e && !strchr(",}] \t\r\n", *p)) p++;
        return p;
    }
    return kp__json_skip_container(p, e);
}

static kp_status split_fail(builder *b, const char *buf, size_t len, const char *at, const char *what) {
    long line, col;
    kp__offset_to_linecol(buf, len, (uint64_t)(at - buf), &line, &col);
    kp_status st = kp_error_set(b->err, KP_ESYNTAX, "line %ld, column %ld: %s", line, col, what);
    if (b->err) {
        b->err->line = line;
        b->err->column = col;
    }
    return st;
}

static kp_status parse_json_doc(builder *b, const char *buf, size_t len, uint64_t base, size_t full_len,
                                const char *full_buf);

/* Returns KP_OK after dispatching every item, 1 if buf is not a List object (caller parses it
 * whole), or an error. */
static int split_list(builder *b, const char *buf, size_t len) {
    const char *e = buf + len, *p = skip_ws(buf, e);
    if (p >= e || *p != '{') return 1;
    /* first pass over the top-level members: is there an "items" array? */
    const char *q = p + 1;
    bool has_items = false;
    for (;;) {
        q = skip_ws(q, e);
        if (q >= e || *q != '"') return 1;
        const char *k = q;
        q = skip_string(q, e);
        if (!q) return 1;
        bool is_items = q - k == 7 && memcmp(k, "\"items\"", 7) == 0;
        q = skip_ws(q, e);
        if (q >= e || *q != ':') return 1;
        q = skip_ws(q + 1, e);
        if (is_items) {
            has_items = q < e && *q == '[';
            break;
        }
        const char *v = q;
        q = skip_value(q, e);
        if (!q) return 1;
        if (q - v > 2 && *v == '"' && k[1] == 'k' && q - k >= 6 && memcmp(k, "\"kind\"", 6) == 0 &&
            (size_t)(q - v - 2) < sizeof b->list_kind) {
            memcpy(b->list_kind, v + 1, (size_t)(q - v - 2));
            b->list_kind[q - v - 2] = 0;
        }
        q = skip_ws(q, e);
        if (q < e && *q == ',') {
            q++;
            continue;
        }
        return 1;
    }
    if (!has_items) return 1;
    /* q is at '[': cut the elements */
    long idx = 0;
    p = skip_ws(q + 1, e);
    if (p < e && *p == ']') {
        p++;
    } else {
        for (;;) {
            p = skip_ws(p, e);
            const char *start = p;
            if (p >= e || *p != '{') return split_fail(b, buf, len, p, "items: expected an object");
            p = skip_value(p, e);
            if (!p) return 1; /* unbalanced: let the full parser describe it */
            b->cur_item = idx++;
            kp_status st = parse_json_doc(b, start, (size_t)(p - start), (uint64_t)(start - buf), len, buf);
            if (st != KP_OK) return st;
            if (b->input) kp__input_advance(b->input, p);
            p = skip_ws(p, e);
            if (p < e && *p == ',') {
                p++;
                continue;
            }
            if (p < e && *p == ']') {
                p++;
                break;
            }
            return split_fail(b, buf, len, p, "expected ',' or ']' after an element of items");
        }
    }
    /* the rest of the List object: other members, then '}' and nothing after it */
    for (;;) {
        p = skip_ws(p, e);
        if (p < e && *p == '}') break;
        if (p >= e || *p != ',') return split_fail(b, buf, len, p, "expected ',' or '}' in the List object");
        p = skip_ws(p + 1, e);
        if (p >= e || *p != '"' || !(p = skip_string(p, e))) return split_fail(b, buf, len, p ? p : e, "expected a member name");
        p = skip_ws(p, e);
        if (p >= e || *p != ':') return split_fail(b, buf, len, p, "expected ':'");
        const char *v = skip_ws(p + 1, e);
        p = skip_value(v, e);
        if (!p || p == v) return split_fail(b, buf, len, v, "invalid value");
    }
    p = skip_ws(p + 1, e);
    if (p != e) return split_fail(b, buf, len, p, "unexpected content after the top-level value");
    return KP_OK;
}

static kp_status syntax_error(builder *b, const char *full_buf, size_t full_len, uint64_t off, const char *msg) {
    long line, col;
    kp__offset_to_linecol(full_buf, full_len, off, &line, &col);
    kp_status st = kp_error_set(b->err, KP_ESYNTAX, "line %ld, column %ld: %s", line, col, msg);
    if (b->err) {
        b->err->line = line;
        b->err->column = col;
    }
    return st;
}

static kp_status parse_json_doc(builder *b, const char *buf, size_t len, uint64_t base, size_t full_len,
                                const char *full_buf) {
    char msg[256] = "";
    uint64_t eoff = 0;
    b->base_off = base;
    int rc = kp__json_events(buf, len, on_event, b, msg, sizeof msg, &eoff);
    b->base_off = 0;
    if (rc == -1000) return syntax_error(b, full_buf, full_len, base + eoff, msg);
    if (rc < 0) return b->st != KP_OK ? b->st : kp_error_set(b->err, KP_ENOMEM, "out of memory");
    return KP_OK;
}

static kp_status tree_parse(const char *source, const char *buf, size_t len, kp_input *input,
                            bool split_lists, kp_tree_cb cb, void *ctx, kp_error *err) {
    builder *b = kp__calloc(1, sizeof *b);
    if (!b) return kp_error_set(err, KP_ENOMEM, "out of memory");
    b->input = input;
    kp__arena_init(&b->root_arena);
    kp__arena_init(&b->item_arena);
    b->cur = &b->root_arena;
    b->split = split_lists;
    b->cb = cb;
    b->ctx = ctx;
    b->err = err;
    b->cur_item = -1;
    b->doc.source = source;
    b->doc.buf = buf;
    b->doc.len = len;
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
    bool json = i < len && (buf[i] == '{' || buf[i] == '[');
    kp_status st = KP_OK;
    if (i == len) {
        st = KP_OK; /* empty input: no objects */
    } else if (json) {
        int r = 1;
        if (split_lists) {
            /* items are parsed as standalone documents: the builder must not split again */
            b->split = false;
            r = split_list(b, buf, len);
            b->split = split_lists;
            b->cur_item = -1;
            b->list_kind[0] = 0;
        }
        if (r == 1) st = parse_json_doc(b, buf, len, 0, len, buf);
        else st = (kp_status)r;
    } else {
        char msg[256] = "";
        uint64_t eoff = 0;
        b->yaml = true;
        int rc = kp__yaml_events(buf, len, on_event, b, msg, sizeof msg, &eoff);
        if (rc == -1000) st = syntax_error(b, buf, len, eoff, msg);
        else if (rc < 0) st = b->st != KP_OK ? b->st : kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    kp__arena_fini(&b->root_arena);
    kp__arena_fini(&b->item_arena);
    kp__free(b);
    return st;
}

kp_status kp__tree_parse(const char *source, const char *buf, size_t len, bool split_lists,
                         kp_tree_cb cb, void *ctx, kp_error *err) {
    return tree_parse(source, buf, len, NULL, split_lists, cb, ctx, err);
}

kp_status kp__tree_parse_input(const char *source, kp_input *in, bool split_lists, kp_tree_cb cb,
                               void *ctx, kp_error *err) {
    return tree_parse(source, in->buf, in->len, in, split_lists, cb, ctx, err);
}

bool kp__tree_key_is(const kp_tnode *n, const char *key) {
    size_t kl = strlen(key);
    return n->key && n->key_len == kl && memcmp(n->key, key, kl) == 0;
}

const kp_tnode *kp__tree_get(const kp_tnode *obj, const char *key) {
    if (!obj || obj->type != KP_T_OBJ) return NULL;
    for (const kp_tnode *c = obj->first; c; c = c->next)
        if (kp__tree_key_is(c, key)) return c;
    return NULL;
}

const kp_tnode *kp__tree_path(const kp_tnode *obj, const char *dotted) {
    char part[128];
    const char *p = dotted;
    while (obj && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n >= sizeof part) return NULL;
        memcpy(part, p, n);
        part[n] = 0;
        obj = kp__tree_get(obj, part);
        p += n + (dot ? 1 : 0);
    }
    return obj;
}

/* ---- decoding context ---- */

/* Appends bytes to the path, truncating at its capacity. Runs for every field decoded, error or
 * not, so it copies bytes rather than formatting. */
static void path_append(kp_dctx *d, const char *s, size_t n) {
    size_t room = sizeof d->path - 1 - d->path_len;
    if (n > room) n = room;
    memcpy(d->path + d->path_len, s, n);
    d->path_len += n;
    d->path[d->path_len] = 0;
}

size_t kp__dctx_push(kp_dctx *d, const char *key) {
    size_t saved = d->path_len;
    if (d->path_len) path_append(d, ".", 1);
    path_append(d, key, strlen(key));
    return saved;
}

size_t kp__dctx_push_index(kp_dctx *d, uint32_t i) {
    size_t saved = d->path_len;
    char tmp[16], *e = tmp + sizeof tmp, *q = e;
    *--q = ']';
    do {
        *--q = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    *--q = '[';
    path_append(d, q, (size_t)(e - q));
    return saved;
}

void kp__dctx_pop(kp_dctx *d, size_t saved) {
    d->path_len = saved;
    d->path[saved] = 0;
}

kp_status kp__dctx_fail(kp_dctx *d, const kp_tnode *n, kp_status code, const char *field,
                        const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char path[480];
    snprintf(path, sizeof path, "%s%s%s", d->path, (field && d->path_len) ? "." : "", field ? field : "");
    if (d->err) {
        kp_error_set(d->err, code, "%s%s%s%s%s", d->object, d->object[0] ? ": " : "", path,
                     path[0] ? ": " : "", what);
        if (n && d->doc) kp__offset_to_linecol(d->doc->buf, d->doc->len, n->off, &d->err->line, &d->err->column);
    }
    return code;
}

static const char *type_name(kp_ttype t) {
    switch (t) {
    case KP_T_NULL: return "null";
    case KP_T_BOOL: return "a boolean";
    case KP_T_NUM: return "a number";
    case KP_T_STR: return "a string";
    case KP_T_OBJ: return "an object";
    case KP_T_ARR: return "an array";
    }
    return "?";
}

kp_status kp__dget_str(kp_dctx *d, const kp_tnode *obj, const char *key, const char **out, bool *present) {
    if (present) *present = false;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    /* sigs.k8s.io/yaml converts a plain YAML scalar to a string when the target field is one */
    if (n->type != KP_T_STR && !(n->plain && n->s))
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected a string, got %s", type_name(n->type));
    *out = n->s;
    if (present) *present = true;
    return KP_OK;
}

kp_status kp__dget_int(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t min, int64_t max,
                       int64_t *out, bool *present) {
    if (present) *present = false;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_NUM) return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an integer, got %s", type_name(n->type));
    errno = 0;
    char *end = NULL;
    long long v = strtoll(n->s, &end, 10);
    if (end == n->s || *end != 0) return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an integer, got \"%s\"", n->s);
    if (errno == ERANGE || v < min || v > max)
        return kp__dctx_fail(d, n, KP_ERANGE, key, "%s is out of range [%lld, %lld]", n->s, (long long)min, (long long)max);
    *out = v;
    if (present) *present = true;
    return KP_OK;
}

kp_status kp__dget_bool(kp_dctx *d, const kp_tnode *obj, const char *key, bool *out, bool *present) {
    if (present) *present = false;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_BOOL) return kp__dctx_fail(d, n, KP_EINVAL, key, "expected a boolean, got %s", type_name(n->type));
    *out = n->b;
    if (present) *present = true;
    return KP_OK;
}

kp_status kp__dget_obj(kp_dctx *d, const kp_tnode *obj, const char *key, const kp_tnode **out) {
    *out = NULL;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_OBJ) return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an object, got %s", type_name(n->type));
    *out = n;
    return KP_OK;
}

kp_status kp__dget_arr(kp_dctx *d, const kp_tnode *obj, const char *key, const kp_tnode **out) {
    *out = NULL;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_ARR) return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an array, got %s", type_name(n->type));
    *out = n;
    return KP_OK;
}

static int digits(const char *s, size_t n, int *out) {
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

static int64_t days_from_civil(int64_t y, int m, int d) {
    /* Howard Hinnant's algorithm: days since 1970-01-01 in the proleptic Gregorian calendar. */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

kp_status kp__parse_time(const char *s, size_t len, int64_t *secs, int32_t *nanos) {
    int Y, M, D, h, m, sec;
    if (len < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        s[13] != ':' || s[16] != ':')
        return KP_EINVAL;
    if (digits(s, 4, &Y) || digits(s + 5, 2, &M) || digits(s + 8, 2, &D) || digits(s + 11, 2, &h) ||
        digits(s + 14, 2, &m) || digits(s + 17, 2, &sec))
        return KP_EINVAL;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60) return KP_EINVAL;
    size_t i = 19;
    int32_t ns = 0;
    if (i < len && s[i] == '.') {
        i++;
        int nd = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (nd < 9) ns = ns * 10 + (s[i] - '0');
            nd++;
            i++;
        }
        if (nd == 0) return KP_EINVAL;
        for (; nd < 9; nd++) ns *= 10;
    }
    int64_t off = 0;
    if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i + 6 == len && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
        int oh, om;
        if (digits(s + i + 1, 2, &oh) || digits(s + i + 4, 2, &om)) return KP_EINVAL;
        off = (int64_t)(oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
        i += 6;
    } else {
        return KP_EINVAL;
    }
    if (i != len) return KP_EINVAL;
    *secs = days_from_civil(Y, M, D) * 86400 + h * 3600 + m * 60 + sec - off;
    if (nanos) *nanos = ns;
    return KP_OK;
}

kp_status kp__dget_time(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t *out, bool *present) {
    if (present) *present = false;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_STR) return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an RFC 3339 time string, got %s", type_name(n->type));
    if (kp__parse_time(n->s, n->len, out, NULL) != KP_OK)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "invalid RFC 3339 time \"%s\"", n->s);
    if (present) *present = true;
    return KP_OK;
}

kp_status kp__read_file(const char *path, size_t max_bytes, char **buf, size_t *len, kp_error *err) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return kp_error_set(err, KP_EIO, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    struct stat stbuf;
    if (f != stdin && fstat(fileno(f), &stbuf) == 0 && S_ISREG(stbuf.st_mode)) {
        if ((uint64_t)stbuf.st_size > max_bytes) {
            fclose(f);
            return kp_error_set(err, KP_ELIMIT, "file is larger than the limit of %zu bytes", max_bytes);
        }
        cap = (size_t)stbuf.st_size + 1;
    }
    char *b = kp__malloc(cap + KP_JSON_PADDING);
    if (!b) {
        if (f != stdin) fclose(f);
        return kp_error_set(err, KP_ENOMEM, "out of memory reading file");
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) {
                kp__free(b);
                if (f != stdin) fclose(f);
                return kp_error_set(err, KP_ELIMIT, "input is larger than the limit of %zu bytes", max_bytes);
            }
            size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            char *nb = kp__realloc(b, ncap + KP_JSON_PADDING);
            if (!nb) {
                kp__free(b);
                if (f != stdin) fclose(f);
                return kp_error_set(err, KP_ENOMEM, "out of memory reading file");
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    if (f != stdin) fclose(f);
    if (bad) {
        kp__free(b);
        return kp_error_set(err, KP_EIO, "read error");
    }
    memset(b + n, 0, KP_JSON_PADDING);
    *buf = b;
    *len = n;
    return KP_OK;
}
