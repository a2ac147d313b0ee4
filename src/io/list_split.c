/* The List splitter (see list_split.h). */
#include <stdbool.h>
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

static int ignore_event(void *ctx, kp_ev ev, const char *s, size_t n, uint64_t off) {
    (void)ctx, (void)ev, (void)s, (void)n, (void)off;
    return 0;
}

/* The cut checks only the items and the separators; the List's other members (apiVersion, kind,
 * metadata, anything else) are validated here by the JSON back end, every scalar and every UTF-8
 * sequence, over a copy of the document with the items left out: "{... "items":[" + "] ...}".
 * Those members are small, so the copy costs next to nothing beside the items. */
static int check_outside_items(const char *buf, size_t len, const char *items_open,
                               const char *items_close, kp_error *err) {
    size_t head = (size_t)(items_open + 1 - buf), tail = len - (size_t)(items_close - buf);
    char *copy = kp__malloc(head + tail + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    memcpy(copy, buf, head);
    memcpy(copy + head, items_close, tail);
    memset(copy + head + tail, 0, KP_JSON_PADDING);
    char msg[256] = "";
    uint64_t off = 0;
    int rc = kp__json_events(copy, head + tail, ignore_event, NULL, msg, sizeof msg, &off);
    kp__free(copy);
    if (rc == 0) return KP_OK;
    if (rc != -1000) return kp_error_set(err, KP_ENOMEM, "out of memory");
    /* an offset in the copy's tail maps back behind the items */
    const char *at = off < head ? buf + off : items_close + (off - head);
    return split_fail(err, buf, len, at, msg);
}

int kp__list_split(const char *buf, size_t len, char *kind, size_t kind_cap, kp_list_item_fn item,
                   void *ctx, kp_error *err) {
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
            (size_t)(q - v - 2) < kind_cap) {
            memcpy(kind, v + 1, (size_t)(q - v - 2));
            kind[q - v - 2] = 0;
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
    /* the rest of the List object: other members, then '}' and nothing after it */
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
    p = skip_ws(p + 1, e);
    if (p != e) return split_fail(err, buf, len, p, "unexpected content after the top-level value");
    return check_outside_items(buf, len, items_open, items_close, err);
}
