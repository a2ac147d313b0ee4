/* The List splitter (see list_split.h). */
#include <stdbool.h>
#include <string.h>

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
    long idx = 0;
    p = skip_ws(q + 1, e);
    if (p < e && *p == ']') {
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
    return KP_OK;
}
