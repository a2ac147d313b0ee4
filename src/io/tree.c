/* Builds per-object value trees from kp_ev events and hands them to a callback (see tree.h).
 * Layers of src/io, bottom up: input.c (bytes) <- json_simdjson.cpp, yaml_events.c, jscan.c,
 * list_split.c (event sources) <- tree.c <- dctx.c (typed reading) <- decode_*.c <- load.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "io/events.h"
#include "io/input.h"
#include "io/list_split.h"
#include "io/tree.h"

typedef struct {
    kp_arena root_arena, item_arena;
    kp_arena *cur; /* arena new nodes come from */
    kp_tnode *stack[KP_MAX_DEPTH + 4];
    int depth; /* number of open containers */
    kp_tnode *root;
    const char *key; /* pending member name for the next value */
    uint32_t key_len;
    bool skip_pending; /* next value is to be skipped */
    int skip_depth; /* >0: inside a skipped container opened at this depth */
    bool in_items; /* an items array (or top-level array) was opened */
    kp_tnode *items_node; /* that array: stack[1] while its elements are parsed */
    long item_index;
    char list_kind[64]; /* a List kind is a DNS-1035 label (<= 63 bytes, apiextensions
                         * validation of names.listKind): any valid one fits */
    bool split;
    bool objects; /* cluster objects (split_lists): root members no decoder reads are skipped */
    bool yaml; /* scalars are YAML plain/quoted */
    kp_tree_cb cb;
    void *ctx;
    kp_tdoc doc;
    kp_error *err;
    kp_status st;
    long cur_item; /* item index of a document parsed by the List splitter */
    uint64_t base_off; /* offset of that document in the whole buffer */
    kp_input *input; /* mapped input: told how far the splitter got */
} builder;

static bool skip_key(const char *s, size_t n) {
    return (n == 13 && memcmp(s, "managedFields", 13) == 0) ||
           (n == 48 && memcmp(s, "kubectl.kubernetes.io/last-applied-configuration", 48) == 0);
}

/* Members of a cluster object's root that some decoder reads (load.c: every kind's
 * apiVersion, kind, metadata, spec, status; a PriorityClass's value, globalDefault,
 * preemptionPolicy, description; a StorageClass's provisioner and volumeBindingMode;
 * decode_pod.c, decode_workload.c: metadata, spec, status) and
 * a List's items. Any other root member (a ConfigMap's data, a custom resource's fields) is
 * skipped while parsing, checked but never kept: a tree node costs about 44 times the two bytes
 * of a small array element. A decoder that starts reading a new root member adds it here. */
static bool root_key_read(const char *s, size_t n) {
#define KEY_IS(lit) (memcmp(s, lit, sizeof lit - 1) == 0)
    switch (n) {
    case 4: return KEY_IS("kind") || KEY_IS("spec");
    case 5: return KEY_IS("items") || KEY_IS("value");
    case 6: return KEY_IS("status");
    case 8: return KEY_IS("metadata");
    case 10: return KEY_IS("apiVersion");
    case 11: return KEY_IS("description") || KEY_IS("provisioner");
    case 13: return KEY_IS("globalDefault");
    case 16: return KEY_IS("preemptionPolicy");
    case 17: return KEY_IS("volumeBindingMode");
    default: return false;
    }
#undef KEY_IS
}

/* True when the pending key is a member of an object's root: the document itself (depth 1) or
 * an element of the items being split by the builder (depth 3). */
static bool at_object_root(const builder *b) {
    if (b->depth == 1) return b->stack[0]->type == KP_T_OBJ;
    return b->split && b->in_items && b->depth == 3 && b->stack[1] == b->items_node &&
           b->stack[2]->type == KP_T_OBJ;
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
    if (p->last) p->last->next = n;
    else p->first = n;
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
        } else if (b->root && b->root->type != KP_T_OBJ && b->root->type != KP_T_ARR &&
                   b->root->type != KP_T_NULL) {
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
        if (b->objects && at_object_root(b) && !root_key_read(s, len)) {
            b->key = NULL;
            b->skip_pending = true;
            return KP_EV_SKIP_CHECKED;
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
        kp_ttype t = ev == KP_EV_STR    ? KP_T_STR
                     : ev == KP_EV_NUM  ? KP_T_NUM
                     : ev == KP_EV_NULL ? KP_T_NULL
                                        : KP_T_BOOL;
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

static kp_status syntax_error(builder *b, const char *full_buf, size_t full_len, uint64_t off,
                              const char *msg) {
    long line, col;
    kp__offset_to_linecol(full_buf, full_len, off, &line, &col);
    kp_status st = kp_error_set(b->err, KP_ESYNTAX, "line %ld, column %ld: %s", line, col, msg);
    if (b->err) {
        b->err->line = line;
        b->err->column = col;
    }
    return st;
}

static kp_status parse_json_doc(builder *b, const char *buf, size_t len, uint64_t base,
                                size_t full_len, const char *full_buf) {
    char msg[256] = "";
    uint64_t eoff = 0;
    b->base_off = base;
    int rc = kp__json_events(buf, len, on_event, b, msg, sizeof msg, &eoff);
    b->base_off = 0;
    if (rc == -1000) return syntax_error(b, full_buf, full_len, base + eoff, msg);
    if (rc < 0) return b->st != KP_OK ? b->st : kp_error_set(b->err, KP_ENOMEM, "out of memory");
    return KP_OK;
}

/* One element of a List's items, cut by kp__list_split: parsed as its own document. */
static kp_status split_item(void *ctx, const char *start, size_t len, long idx) {
    builder *b = ctx;
    b->cur_item = idx;
    kp_status st =
        parse_json_doc(b, start, len, (uint64_t)(start - b->doc.buf), b->doc.len, b->doc.buf);
    if (st == KP_OK && b->input) st = kp__input_advance(b->input, start + len, b->err);
    return st;
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
    b->objects = split_lists;
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
            r = kp__list_split(buf, len, b->list_kind, sizeof b->list_kind, split_item, b, err);
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
        else if (rc < 0)
            st = b->st != KP_OK ? b->st : kp_error_set(err, KP_ENOMEM, "out of memory");
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
