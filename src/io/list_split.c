/* The List splitter (see list_split.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "io/input.h"
#include "io/jscan.h"
#include "io/list_split.h"

/* A kubectl List is one huge object whose "items" array holds every object. Parsing it as one
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

static kp_status split_fail(kp_error *err, const char *buf, size_t len, const char *at,
                            const char *what) {
    long line, col;
    kp__offset_to_linecol(buf, len, (uint64_t)(at - buf), &line, &col);
    kp_status st = kp_error_set(err, KP_ESYNTAX, "line %ld, column %ld: %s", line, col, what);
    if (err) {
        err->line = line;
        err->column = col;
    }
    return st;
}

/* The List object's own kind, as the validation walk of check_outside_items reads it. */
typedef struct {
    int depth;
    bool at_kind, has_kind, is_list;
    int n_items; /* top-level "items" members: the cut one (left as []) and any duplicate */
    char kind[64]; /* the kind string when it is a List kind that fits (else "") */
    int n_kinds; /* top-level "kind" members */
    bool kinds_differ; /* a later one says something else than the first (Go keeps the last) */
    char first_kind[64];
} kind_watch;

static bool list_kind_name(const char *s, size_t n) {
    return n >= 4 && memcmp(s + n - 4, "List", 4) == 0;
}

static int watch_event(void *ctx, kp_ev ev, const char *s, size_t n, uint64_t off) {
    kind_watch *w = ctx;
    (void)off;
    if (ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN) w->depth++;
    if (ev == KP_EV_OBJ_END || ev == KP_EV_ARR_END) w->depth--;
    if (w->at_kind && ev != KP_EV_KEY) {
        w->at_kind = false;
        char cur[64];
        snprintf(cur, sizeof cur, "%c%.*s", ev == KP_EV_STR ? 's' : (char)('0' + (int)ev),
                 (int)(ev == KP_EV_STR && n < 62 ? n : 0), s ? s : "");
        if (++w->n_kinds == 1) memcpy(w->first_kind, cur, sizeof cur);
        else if (strcmp(cur, w->first_kind) != 0 || (ev == KP_EV_STR && n >= 62))
            w->kinds_differ = true;
        if (ev == KP_EV_STR && n > 0) {
            w->has_kind = true;
            w->is_list = list_kind_name(s, n);
            w->kind[0] = 0;
            if (w->is_list && n < sizeof w->kind) {
                memcpy(w->kind, s, n);
                w->kind[n] = 0;
            }
        } else if (ev != KP_EV_NULL) {
            w->has_kind = true; /* not a string: not a List (the decoder describes it) */
            w->is_list = false;
        }
    }
    if (ev == KP_EV_KEY && w->depth == 1) {
        w->at_kind = n == 4 && memcmp(s, "kind", 4) == 0;
        if (n == 5 && memcmp(s, "items", 5) == 0) w->n_items++;
    }
    return 0;
}

/* The cut checks only the items and the separators; the List's other members (apiVersion, kind,
 * metadata, anything else) are validated here by the JSON back end, every scalar and every UTF-8
 * sequence, over a copy of the document with the items left out: "{... "items":[" + "] ...}".
 * Those members are small, so the copy costs next to nothing beside the items. */
static int check_outside_items(const char *buf, size_t len, const char *d, const char *d_end,
                               const char *items_open, const char *items_close, kind_watch *w,
                               kp_error *err) {
    size_t head = (size_t)(items_open + 1 - d), tail = (size_t)(d_end - items_close);
    char *copy = kp__malloc(head + tail + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    memcpy(copy, d, head);
    memcpy(copy + head, items_close, tail);
    memset(copy + head + tail, 0, KP_JSON_PADDING);
    char msg[256] = "";
    uint64_t off = 0;
    int rc = kp__json_events(copy, head + tail, watch_event, w, msg, sizeof msg, &off);
    kp__free(copy);
    if (rc == 0) return KP_OK;
    if (rc != -1000) return kp_error_set(err, KP_ENOMEM, "out of memory");
    /* an offset in the copy's tail maps back behind the items */
    const char *at = off < head ? d + off : items_close + (off - head);
    return split_fail(err, buf, len, at, msg);
}

/* What the List object's kind says: not seen (yet), a List kind, another kind. */
typedef enum { KIND_UNKNOWN = 0, KIND_LIST, KIND_OTHER } kind_state;

/* The member value at v..end (skip_value's range) as the object's kind; copies a List kind that
 * fits into kind (the kind of the items that omit theirs). */
static kind_state note_kind(const char *v, const char *end, char *kind, size_t kind_cap) {
    if (end - v >= 4 && memcmp(v, "null", 4) == 0) return KIND_UNKNOWN;
    if (*v != '"' || end - v <= 2) return KIND_OTHER; /* not a string, or "": the decoder says */
    size_t n = (size_t)(end - v - 2);
    if (!list_kind_name(v + 1, n)) return KIND_OTHER;
    if (n < kind_cap && !memchr(v + 1, '\\', n)) {
        memcpy(kind, v + 1, n);
        kind[n] = 0;
    }
    return KIND_LIST;
}

/* p just after a ']': do the rest of the text read as the last members of the top-level object,
 * `(, "key": value)* }` and nothing after it but the next document of a stream? Notes their kind
 * if one is "kind". */
static bool tail_members(const char *p, const char *e, kind_state *ks, char *kind, size_t cap) {
    for (;;) {
        p = skip_ws(p, e);
        if (p < e && *p == '}') {
            p = skip_ws(p + 1, e);
            return p == e || *p == '{'; /* the end, or the next document of a stream */
        }
        if (p >= e || *p != ',') return false;
        const char *k = skip_ws(p + 1, e);
        if (k >= e || *k != '"' || !(p = skip_string(k, e))) return false;
        bool is_kind = p - k == 6 && memcmp(k, "\"kind\"", 6) == 0;
        p = skip_ws(p, e);
        if (p >= e || *p != ':') return false;
        const char *v = skip_ws(p + 1, e);
        p = skip_value(v, e);
        if (!p || p == v) return false;
        if (is_kind) *ks = note_kind(v, p, kind, cap);
    }
}

/* kubectl writes the members in alphabetical order, so a List's kind comes after its items. To
 * know before cutting whether the document is a List at all, the top-level members behind the
 * items are found from the end: a ']' from which the rest of the text reads as the object's last
 * members closes a top-level array (brackets nest: from inside an item or a value the rest cannot
 * read so), and those members are the object's own. Looked for in the last 64 KiB, 256 tries at
 * most; what this finds is checked against the full parse of those members afterwards. */
#define TAIL_WINDOW ((size_t)64 << 10)
#define TAIL_TRIES 256
static kind_state kind_from_tail(const char *from, const char *e, char *kind, size_t cap,
                                 const char **at) {
    const char *stop = (size_t)(e - from) > TAIL_WINDOW ? e - TAIL_WINDOW : from;
    int tries = 0;
    for (const char *c = e - 1; c > stop && tries < TAIL_TRIES; c--) {
        if (*c != ']') continue;
        tries++;
        kind_state ks = KIND_UNKNOWN;
        if (tail_members(c + 1, e, &ks, kind, cap) && ks != KIND_UNKNOWN) {
            *at = c;
            return ks;
        }
    }
    return KIND_UNKNOWN;
}

/* A document with "items" whose kind is not a List kind (a Pod with such a field) is one object:
 * handed whole to the callback (index -1) once a full walk of it confirms its kind. */
static int not_a_list(const char *buf, const char *d, const char *e, kp_list_item_fn item,
                      void *ctx, size_t *doc_end) {
    kind_watch w;
    memset(&w, 0, sizeof w);
    const char *d_end = kp__json_skip_container(d, e);
    if (!d_end) return 1;
    char msg[256];
    uint64_t off = 0;
    int rc = kp__json_events(d, (size_t)(d_end - d), watch_event, &w, msg, sizeof msg, &off);
    if (rc != 0 || !w.has_kind || w.is_list) return 1; /* let the full parser decide and describe */
    *doc_end = (size_t)(d_end - buf);
    return item(ctx, d, (size_t)(d_end - d), -1);
}

int kp__list_split(const char *buf, size_t len, size_t from, size_t *doc_end, char *kind,
                   size_t kind_cap, kp_list_item_fn item, void *ctx, kp_error *err) {
    const char *e = buf + len, *d = skip_ws(buf + from, e), *p = d;
    if (p >= e || *p != '{') return 1;
    /* first pass over the top-level members: is there an "items" array? */
    const char *q = p + 1;
    bool has_items = false;
    kind_state ks = KIND_UNKNOWN;
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
        if (q > v && k[1] == 'k' && memcmp(k, "\"kind\"", 6) == 0)
            ks = note_kind(v, q, kind, kind_cap);
        q = skip_ws(q, e);
        if (q < e && *q == ',') {
            q++;
            continue;
        }
        return 1;
    }
    if (!has_items) return 1;
    /* the kind behind the items is guessed from the end of the text: in a stream of several
     * documents that is the last document's, checked against this one's below */
    const char *tail_at = NULL;
    if (ks == KIND_UNKNOWN) ks = kind_from_tail(q, e, kind, kind_cap, &tail_at);
    if (ks == KIND_OTHER) return not_a_list(buf, d, e, item, ctx, doc_end);
    /* q is at '[': cut the elements */
    const char *items_open = q, *items_close = NULL;
    long idx = 0;
    p = skip_ws(q + 1, e);
    if (p < e && *p == ']') {
        items_close = p;
        p++;
    } else {
        for (;;) {
            p = skip_ws(p, e);
            const char *start = p;
            if (p >= e || *p != '{')
                return split_fail(err, buf, len, p, "items: expected an object");
            p = skip_value(p, e);
            if (!p) return 1; /* unbalanced: let the full parser describe it */
            kp_status st = item(ctx, start, (size_t)(p - start), idx++);
            if (st != KP_OK) return st;
            p = skip_ws(p, e);
            if (p < e && *p == ',') {
                p++;
                continue;
            }
            if (p < e && *p == ']') {
                items_close = p;
                p++;
                break;
            }
            return split_fail(err, buf, len, p, "expected ',' or ']' after an element of items");
        }
    }
    /* the rest of the List object: other members, then '}' */
    for (;;) {
        p = skip_ws(p, e);
        if (p < e && *p == '}') break;
        if (p >= e || *p != ',')
            return split_fail(err, buf, len, p, "expected ',' or '}' in the List object");
        p = skip_ws(p + 1, e);
        if (p >= e || *p != '"' || !(p = skip_string(p, e)))
            return split_fail(err, buf, len, p ? p : e, "expected a member name");
        p = skip_ws(p, e);
        if (p >= e || *p != ':') return split_fail(err, buf, len, p, "expected ':'");
        const char *v = skip_ws(p + 1, e);
        p = skip_value(v, e);
        if (!p || p == v) return split_fail(err, buf, len, v, "invalid value");
    }
    const char *d_end = p + 1; /* what follows (another document of a stream) is the caller's */
    *doc_end = (size_t)(d_end - buf);
    kind_watch w;
    memset(&w, 0, sizeof w);
    int rc = check_outside_items(buf, len, d, d_end, items_open, items_close, &w, err);
    if (rc == KP_OK && w.n_items > 1)
        /* Go's decoder would keep the last items array; the first one is loaded already */
        return split_fail(err, buf, len, d,
                          "duplicate key \"items\" in the List (kprio reads one items array)");
    if (rc == KP_OK && w.kinds_differ)
        /* Go's decoder keeps the last kind; the split read another one: refuse rather than guess */
        return split_fail(err, buf, len, d,
                          "duplicate key \"kind\" with different values in the List");
    if (rc == KP_OK && w.has_kind && !w.is_list)
        /* the kind lies beyond what kind_from_tail reads, or its guess was wrong: the items are
         * loaded already, so this is an error rather than a silently wrong load */
        return split_fail(err, buf, len, d,
                          "a document with \"items\" whose kind is not a List kind, written "
                          "after its items too far from the end of the file for kprio to tell");
    if (rc == KP_OK && tail_at && tail_at != items_close &&
        (!w.has_kind || strcmp(w.kind, kind) != 0))
        /* the guess came from a later document of the stream and says another kind: the items
         * that omit their kind were read with the wrong one */
        return split_fail(err, buf, len, d,
                          "a List whose kind is written after its items, followed by a document "
                          "of another kind: kprio cannot tell the kind of its items; put "
                          "\"kind\" before \"items\" or give each document its own file");
    return rc;
}
