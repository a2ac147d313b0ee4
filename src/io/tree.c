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
#include "io/jscan.h"
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
    int kind_state; /* the document's own kind: KIND_UNKNOWN (not seen), KIND_LIST, KIND_OTHER */
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
    long json_doc; /* index of the document in a JSON stream */
    bool padded; /* KP_JSON_PADDING readable bytes follow the text (cluster inputs) */
    bool lazy; /* expanding a KP_T_LAZY member: nodes go to the caller's arena, no dispatch */
    uint64_t base_off; /* offset of that document in the whole buffer */
    kp_input *input; /* mapped input: told how far the splitter got */
    kp__json_parser *jp; /* the JSON documents of this input share one parser (events.h) */
    /* YAML duplicate keys outside the tree (see ydup_event) */
    struct ykey *yk;
    size_t nyk, capyk;
    char *yt;
    size_t nyt, capyt;
    uint32_t yframe[KP_MAX_DEPTH + 4]; /* per tracked open container: start in yk, or NOT_MAP */
    int nyframes;
} builder;

typedef struct ykey {
    uint64_t hash, src; /* src: offset of the key in the buffer */
    uint32_t off, len; /* text in yt */
} ykey;

enum { KIND_UNKNOWN = 0, KIND_LIST, KIND_OTHER };

static int kind_class(const char *s, size_t n) {
    if (n == 0) return KIND_UNKNOWN;
    return n >= 4 && memcmp(s + n - 4, "List", 4) == 0 ? KIND_LIST : KIND_OTHER;
}

/* A YAML document's kind written after its items (kubectl -o yaml sorts the keys: apiVersion,
 * items, kind, metadata), read ahead in the text: the first line "kind: X" at column 0 before
 * the next document marker. KIND_UNKNOWN when there is none (flow style, an indented root): the
 * items are then split and the kind checked when the document ends. */
static int yaml_kind_ahead(const char *buf, size_t len, size_t from) {
    const char *p = buf + from, *e = buf + len;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl) return KIND_UNKNOWN;
        p = nl + 1;
        size_t left = (size_t)(e - p);
        if (left >= 3 && (memcmp(p, "---", 3) == 0 || memcmp(p, "...", 3) == 0) &&
            (left == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\r' || p[3] == '\n'))
            return KIND_UNKNOWN;
        if (left < 5 || memcmp(p, "kind:", 5) != 0) continue;
        const char *v = p + 5;
        while (v < e && (*v == ' ' || *v == '\t')) v++;
        char q = v < e && (*v == '"' || *v == '\'') ? *v++ : 0;
        const char *w = v;
        while (w < e && *w != '\n' && *w != '\r' && (q ? *w != q : *w != ' ' && *w != '#')) w++;
        return kind_class(v, (size_t)(w - v));
    }
}

static bool skip_key(const char *s, size_t n) {
    return (n == 13 && memcmp(s, "managedFields", 13) == 0) ||
           (n == 48 && memcmp(s, "kubectl.kubernetes.io/last-applied-configuration", 48) == 0);
}

/* Members of a cluster object's root that some decoder reads (load.c: every kind's
 * apiVersion, kind, metadata, spec, status; a PriorityClass's value, globalDefault,
 * preemptionPolicy, description; a StorageClass's provisioner, volumeBindingMode and
 * allowedTopologies; a CSIStorageCapacity's storageClassName, nodeTopology, capacity and
 * maximumVolumeSize;
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
    case 8: return KEY_IS("metadata") || KEY_IS("capacity");
    case 10: return KEY_IS("apiVersion");
    case 11: return KEY_IS("description") || KEY_IS("provisioner");
    case 12: return KEY_IS("nodeTopology");
    case 13: return KEY_IS("globalDefault");
    case 16: return KEY_IS("preemptionPolicy") || KEY_IS("storageClassName");
    case 17:
        return KEY_IS("volumeBindingMode") || KEY_IS("allowedTopologies") ||
               KEY_IS("maximumVolumeSize");
    default: return false;
    }
#undef KEY_IS
}

/* Members below an object's root that hold an object or an array and that some decoder reads
 * (or may soon: the workload kinds' template and strategy): built as nodes. Any other container
 * member there is kept unread as one KP_T_LAZY node (tree.h), which kp__tree_get expands if a
 * decoder asks for it after all: this list is about speed, not about what can be read. */
static bool known_key(const char *s, size_t n) {
#define KEY_IS(lit) (memcmp(s, lit, sizeof lit - 1) == 0)
    switch (n) {
    case 2: return KEY_IS("os");
    case 4: return KEY_IS("spec");
    case 5: return KEY_IS("names") || KEY_IS("ports");
    case 6:
        return KEY_IS("images") || KEY_IS("labels") || KEY_IS("limits") || KEY_IS("status") ||
               KEY_IS("taints") || KEY_IS("values");
    case 7: return KEY_IS("gitRepo") || KEY_IS("volumes");
    case 8:
        return KEY_IS("affinity") || KEY_IS("capacity") || KEY_IS("emptyDir") ||
               KEY_IS("hostPath") || KEY_IS("metadata") || KEY_IS("overhead") ||
               KEY_IS("requests") || KEY_IS("selector") || KEY_IS("strategy") || KEY_IS("template");
    case 9: return KEY_IS("configMap") || KEY_IS("resources");
    case 10:
        return KEY_IS("conditions") || KEY_IS("containers") || KEY_IS("namespaces") ||
               KEY_IS("preference");
    case 11:
        return KEY_IS("allocatable") || KEY_IS("annotations") || KEY_IS("jobTemplate") ||
               KEY_IS("matchFields") || KEY_IS("matchLabels") || KEY_IS("podAffinity") ||
               KEY_IS("tolerations");
    case 12: return KEY_IS("nodeAffinity") || KEY_IS("nodeSelector");
    case 13: return KEY_IS("disruptedPods") || KEY_IS("labelSelector") || KEY_IS("rollingUpdate");
    case 14:
        return KEY_IS("initContainers") || KEY_IS("matchLabelKeys") || KEY_IS("resourceClaims") ||
               KEY_IS("updateStrategy");
    case 15:
        return KEY_IS("ownerReferences") || KEY_IS("podAffinityTerm") ||
               KEY_IS("podAntiAffinity") || KEY_IS("schedulingGates");
    case 16: return KEY_IS("matchExpressions");
    case 17:
        return KEY_IS("mismatchLabelKeys") || KEY_IS("namespaceSelector") ||
               KEY_IS("nodeSelectorTerms");
    case 25: return KEY_IS("topologySpreadConstraints");
    case 46: return KEY_IS("requiredDuringSchedulingIgnoredDuringExecution");
    case 47: return KEY_IS("preferredDuringSchedulingIgnoredDuringExecution");
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

/* While an object is handed to the callback: where kp__tree_get puts the nodes of a KP_T_LAZY
 * member it expands, and whether an expansion ran out of memory. */
static _Thread_local struct {
    kp_arena *arena;
    bool failed;
} lazy_ctx;

static int dispatch(builder *b, kp_tnode *obj, long item_index) {
    b->doc.item_index = item_index;
    b->doc.list_kind = b->list_kind[0] ? b->list_kind : NULL;
    kp_arena *saved_arena = lazy_ctx.arena;
    lazy_ctx.arena = b->cur;
    lazy_ctx.failed = false;
    kp_status st = b->cb(b->ctx, obj, &b->doc, b->err);
    if (st == KP_OK && lazy_ctx.failed) st = kp_error_set(b->err, KP_ENOMEM, "out of memory");
    lazy_ctx.arena = saved_arena;
    if (st != KP_OK) {
        b->st = st;
        return -1;
    }
    return 0;
}

static void doc_begin(builder *b) {
    if (!b->lazy) {
        kp__arena_reset(&b->root_arena);
        b->cur = &b->root_arena;
    }
    b->depth = 0;
    b->root = NULL;
    b->key = NULL;
    b->in_items = false;
    b->kind_state = KIND_UNKNOWN;
    b->doc.summary_like = 0;
    b->items_node = NULL;
    b->item_index = 0;
    if (b->cur_item < 0) b->list_kind[0] = 0; /* items keep their List's kind */
}

static int doc_end(builder *b) {
    if (b->in_items && b->kind_state == KIND_OTHER && b->root && b->root->type == KP_T_OBJ) {
        /* split on a guess that its kind, written after the items, contradicts */
        kp_error_set(b->err, KP_EINVAL,
                     "a document with \"items\" whose kind is not a List kind, written after its "
                     "items where kprio could not read it ahead: put \"kind\" first");
        b->st = KP_EINVAL;
        return -1;
    }
    if (b->lazy) return 0; /* the expanded value: kept in b->root */
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
}

/* YAML duplicate keys (issue 17 item 8). go-yaml refuses a document with a duplicate key in any
 * mapping ("line N: key "x" already set in map"), as kubectl does through sigs.k8s.io/yaml.
 * Mappings that become tree nodes are checked by the decoders (dctx.c: kp__d_dup_keys, with the
 * field's path); the others are checked here: the document's root mapping (a List's wrapper,
 * whose members are not all kept, and root members no decoder reads) and every mapping inside a
 * skipped member (managedFields, ...). Their keys are kept (text only) until the mapping closes,
 * then sorted by hash: n log n whatever the size. */
#define NOT_MAP UINT32_MAX

static int ykey_cmp(const void *a, const void *b) {
    const ykey *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

static int ydup_fail(builder *b, kp_status code, const char *msg) {
    kp_error_set(b->err, code, "%s", msg);
    b->st = code;
    return -1;
}

static int ydup_push(builder *b, bool map) {
    if (b->nyframes >= KP_MAX_DEPTH + 4) return 0; /* the back end stops deeper nesting */
    b->yframe[b->nyframes++] = map ? (uint32_t)b->nyk : NOT_MAP;
    return 0;
}

static int ydup_key(builder *b, const char *s, size_t len, uint64_t off) {
    if (b->nyframes == 0 || b->yframe[b->nyframes - 1] == NOT_MAP) return 0;
    if (len > UINT32_MAX || b->nyt + len > UINT32_MAX)
        return ydup_fail(b, KP_ELIMIT, "YAML keys longer than 4 GiB in one mapping");
    if (!kp__grow((void **)&b->yk, &b->capyk, b->nyk + 1, sizeof *b->yk, 64) ||
        !kp__grow((void **)&b->yt, &b->capyt, b->nyt + len + 1, 1, 1024))
        return ydup_fail(b, KP_ENOMEM, "out of memory");
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    memcpy(b->yt + b->nyt, s, len);
    b->yk[b->nyk++] = (ykey){h, off, (uint32_t)b->nyt, (uint32_t)len};
    b->nyt += len;
    return 0;
}

static int ydup_pop(builder *b) {
    if (b->nyframes == 0) return 0;
    uint32_t start = b->yframe[--b->nyframes];
    if (start == NOT_MAP) return 0;
    size_t n = b->nyk - start;
    if (n < 2) { /* an empty mapping may have no key array at all: no NULL + 0 */
        if (n == 1) b->nyt = b->yk[start].off; /* the frame's text is the tail of yt */
        b->nyk = start;
        return 0;
    }
    ykey *k = b->yk + start;
    int rc = 0;
    {
        qsort(k, n, sizeof *k, ykey_cmp);
        const ykey *dup = NULL; /* the earliest second occurrence */
        for (size_t i = 1; i < n; i++)
            if (k[i].hash == k[i - 1].hash && k[i].len == k[i - 1].len &&
                memcmp(b->yt + k[i].off, b->yt + k[i - 1].off, k[i].len) == 0 &&
                (!dup || k[i].src < dup->src))
                dup = &k[i];
        if (dup) {
            long line, col;
            kp__offset_to_linecol(b->doc.buf, b->doc.len, dup->src, &line, &col);
            kp_error_set(b->err, KP_EINVAL, "line %ld: key \"%.*s\" already set in map", line,
                         (int)(dup->len > 200 ? 200 : dup->len), b->yt + dup->off);
            b->st = KP_EINVAL;
            rc = -1;
        }
    }
    b->nyt = n ? k[0].off : b->nyt; /* the frame's text is the tail of yt */
    for (size_t i = 0; i < n; i++)
        if (k[i].off < b->nyt) b->nyt = k[i].off;
    b->nyk = start;
    return rc;
}

/* Called for every YAML event before the builder's own handling. */
static int ydup_event(builder *b, kp_ev ev, const char *s, size_t len, uint64_t off) {
    bool skipping = b->skip_depth > 0 || b->skip_pending;
    bool root_level = b->skip_depth == 0 && b->depth == 1 && b->nyframes == 1;
    switch (ev) {
    case KP_EV_OBJ_BEGIN:
    case KP_EV_ARR_BEGIN:
        if (skipping || b->depth == 0) return ydup_push(b, ev == KP_EV_OBJ_BEGIN);
        return 0;
    case KP_EV_OBJ_END:
    case KP_EV_ARR_END: return b->skip_depth > 0 || root_level ? ydup_pop(b) : 0;
    case KP_EV_KEY: return b->skip_depth > 0 || root_level ? ydup_key(b, s, len, off) : 0;
    case KP_EV_DOC_BEGIN:
        b->nyframes = 0;
        b->nyk = b->nyt = 0;
        return 0;
    default: return 0;
    }
}

static int on_key(builder *b, const char *s, size_t len) {
    if (b->depth == 1 && b->stack[0]->type == KP_T_OBJ) {
        if (len == 4 && memcmp(s, "node", 4) == 0) b->doc.summary_like |= 1;
        if (len == 4 && memcmp(s, "pods", 4) == 0) b->doc.summary_like |= 2;
    }
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
    if (b->objects && !b->yaml && b->depth >= 2 && !known_key(s, len))
        return KP_EV_SKIP_RAW; /* a container comes back as one KP_EV_RAW */
    return 0;
}

static int on_event(void *ctx, kp_ev ev, const char *s, size_t len, uint64_t off) {
    builder *b = ctx;
    if (b->yaml && ydup_event(b, ev, s, len, off) < 0) return -1;
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
    case KP_EV_DOC_BEGIN: doc_begin(b); return 0;
    case KP_EV_DOC_END: return doc_end(b);
    case KP_EV_KEY: return on_key(b, s, len);
    case KP_EV_OBJ_BEGIN:
    case KP_EV_ARR_BEGIN: {
        /* An element of the root's items starts: fresh scratch. */
        bool item_start = b->split && b->in_items && b->depth == 2 && b->stack[1] == b->items_node;
        bool items_open = b->split && b->depth == 1 && ev == KP_EV_ARR_BEGIN && b->key &&
                          b->key_len == 5 && memcmp(b->key, "items", 5) == 0 &&
                          b->stack[0]->type == KP_T_OBJ;
        if (b->split && b->depth == 0 && ev == KP_EV_ARR_BEGIN) {
            /* kubectl decodes each document into an object: an array is refused */
            long line, col;
            kp__offset_to_linecol(b->doc.buf, b->doc.len, off + b->base_off, &line, &col);
            kp_error_set(b->err, KP_EINVAL,
                         "line %ld, column %ld: the document is an array, not an object: kubectl "
                         "reads objects, Lists of them and streams of both; put the objects in a "
                         "List (apiVersion: v1, kind: List, items: [...])",
                         line, col);
            if (b->err) {
                b->err->line = line;
                b->err->column = col;
            }
            b->st = KP_EINVAL;
            return -1;
        }
        if (items_open && b->kind_state == KIND_UNKNOWN && b->yaml)
            b->kind_state = yaml_kind_ahead(b->doc.buf, b->doc.len, off);
        /* only List kinds (or a document with items and no kind) are split (issue 17 item
         * 11): another kind's items are a field of that object */
        if (items_open && b->kind_state == KIND_OTHER) items_open = false;
        if (item_start) {
            kp__arena_reset(&b->item_arena);
            b->cur = &b->item_arena;
        }
        kp_tnode *n = new_node(b, ev == KP_EV_OBJ_BEGIN ? KP_T_OBJ : KP_T_ARR, off);
        if (!n) return -1;
        if (!item_start) attach(b, n);
        b->stack[b->depth++] = n;
        if (items_open) {
            b->in_items = true;
            b->items_node = n;
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
        return 0;
    }
    case KP_EV_RAW: {
        if (len > UINT32_MAX) {
            kp_error_set(b->err, KP_ELIMIT, "a member of more than 4 GiB");
            b->st = KP_ELIMIT;
            return -1;
        }
        kp_tnode *n = new_node(b, KP_T_LAZY, off);
        if (!n) return -1;
        n->s = s;
        n->len = (uint32_t)len;
        attach(b, n);
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
        /* the document's own kind (not that of an item cut by the List splitter) */
        bool is_kind = b->depth == 1 && b->cur_item < 0 && b->key && b->key_len == 4 &&
                       memcmp(b->key, "kind", 4) == 0;
        kp_tnode *n = new_node(b, t, off);
        if (!n) return -1;
        if (t == KP_T_BOOL) n->b = ev == KP_EV_TRUE;
        if (is_kind && t != KP_T_NULL)
            b->kind_state = t == KP_T_STR && s ? kind_class(s, len) : KIND_OTHER;
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
    if (!b->jp && !(b->jp = kp__json_parser_new()))
        return kp_error_set(b->err, KP_ENOMEM, "out of memory");
    b->base_off = base;
    int rc = kp__json_events_with(b->jp, buf, len, on_event, b, msg, sizeof msg, &eoff);
    b->base_off = 0;
    if (rc == -1000) return syntax_error(b, full_buf, full_len, base + eoff, msg);
    if (rc < 0) return b->st != KP_OK ? b->st : kp_error_set(b->err, KP_ENOMEM, "out of memory");
    return KP_OK;
}

/* One element of a List's items, cut by kp__list_split: parsed as its own document. */
static kp_status split_item(void *ctx, const char *start, size_t len, long idx) {
    builder *b = ctx;
    b->cur_item = idx;
    b->doc.doc_index = b->json_doc; /* each item is parsed as a document: keep the stream's count */
    kp_status st =
        parse_json_doc(b, start, len, (uint64_t)(start - b->doc.buf), b->doc.len, b->doc.buf);
    if (st == KP_OK && b->input) st = kp__input_advance(b->input, start + len, b->err);
    return st;
}

/* A JSON stream: one or more JSON texts, one after the other, with or without whitespace between
 * them, as Go's json.Decoder reads them (kubectl's YAMLOrJSONDecoder when the input starts with
 * '{'): `(kubectl get nodes -o json; kubectl get pods -o json) > f`. Each document is cut first
 * (the List splitter finds a List's end itself; any other document is cut with the bracket
 * scanner), then parsed on its own, so a stream costs what its documents cost. */
static kp_status parse_json_stream(builder *b, const char *buf, size_t len, size_t i,
                                   bool split_lists) {
    kp_status st = KP_OK;
    for (b->json_doc = 0; i < len && st == KP_OK; b->json_doc++) {
        if (buf[i] != '{' && buf[i] != '[')
            return syntax_error(b, buf, len, i, "unexpected content after the top-level value");
        int r = 1;
        size_t end = len;
        if (split_lists) {
            /* items are parsed as standalone documents: the builder must not split again */
            b->split = false;
            r = kp__list_split(buf, len, i, &end, b->list_kind, sizeof b->list_kind, split_item, b,
                               b->err);
            b->split = split_lists;
            b->cur_item = -1;
            b->list_kind[0] = 0;
        }
        if (r == 1) {
            /* the block scanner reads up to 63 bytes past the text: only over padded input */
            const char *e = b->padded ? kp__json_skip_container(buf + i, buf + len)
                                      : kp__json_skip_container_ref(buf + i, buf + len);
            end = e ? (size_t)(e - buf) : len; /* not cut: the parser describes what is wrong */
            b->doc.doc_index = b->json_doc;
            st = parse_json_doc(b, buf + i, end - i, i, len, buf);
            if (st == KP_OK && b->input) st = kp__input_advance(b->input, buf + end, b->err);
        } else {
            st = (kp_status)r;
        }
        for (i = end;
             i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n');)
            i++;
    }
    return st;
}

static kp_status tree_parse(const char *source, const char *buf, size_t len, kp_input *input,
                            bool split_lists, kp_tree_cb cb, void *ctx, kp_error *err) {
    builder *b = kp__calloc(1, sizeof *b);
    if (!b) return kp_error_set(err, KP_ENOMEM, "out of memory");
    b->padded = split_lists || input;
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
        st = parse_json_stream(b, buf, len, i, split_lists);
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
    kp__free(b->yk);
    kp__json_parser_free(b->jp);
    kp__free(b->yt);
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

/* Parses a KP_T_LAZY member's text into nodes (in the arena of the object being decoded) and
 * turns the member into the object or array it holds. The text was checked when it was skipped,
 * so only running out of memory can fail (noted for dispatch to report). */
static void expand(kp_tnode *n) {
    builder *m = lazy_ctx.arena ? kp__calloc(1, sizeof *m) : NULL;
    if (!m) {
        lazy_ctx.failed = true;
        return;
    }
    kp__arena_init(&m->root_arena);
    kp__arena_init(&m->item_arena);
    m->cur = lazy_ctx.arena;
    m->lazy = true;
    m->cur_item = 0; /* not a document's root: its kind is nobody's */
    m->base_off = n->off;
    char msg[128];
    uint64_t eoff = 0;
    int rc = kp__json_events(n->s, n->len, on_event, m, msg, sizeof msg, &eoff);
    if (rc != 0 || !m->root || (m->root->type != KP_T_OBJ && m->root->type != KP_T_ARR)) {
        lazy_ctx.failed = true;
    } else {
        n->type = m->root->type;
        n->n = m->root->n;
        n->first = m->root->first;
        n->last = m->root->last;
        n->s = NULL;
        n->len = 0;
    }
    kp__arena_fini(&m->root_arena);
    kp__arena_fini(&m->item_arena);
    kp__free(m);
}

const kp_tnode *kp__tree_get(const kp_tnode *obj, const char *key) {
    if (!obj || obj->type != KP_T_OBJ) return NULL;
    for (const kp_tnode *c = obj->first; c; c = c->next)
        if (kp__tree_key_is(c, key)) {
            if (c->type == KP_T_LAZY) expand((kp_tnode *)c);
            return c->type == KP_T_LAZY ? NULL : c;
        }
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
