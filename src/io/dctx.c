/* Typed reading of value trees with field paths for errors (see dctx.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/civil.h"
#include "base/gosyntax.h"
#include "io/dctx.h"
#include "io/input.h"

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
    char what[KP_ERR_MSG_CAP]; /* upstream's longest messages (a name rule's regex) fit */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char path[480];
    snprintf(path, sizeof path, "%s%s%s", d->path, (field && d->path_len) ? "." : "",
             field ? field : "");
    if (d->err) {
        kp_error_set(d->err, code, "%s%s%s%s%s", d->object, d->object[0] ? ": " : "", path,
                     path[0] ? ": " : "", what);
        if (n && d->doc)
            kp__offset_to_linecol(d->doc->buf, d->doc->len, n->off, &d->err->line, &d->err->column);
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
    case KP_T_LAZY: return "an object or an array";
    }
    return "?";
}

kp_status kp__d_no_nul(kp_dctx *d, const kp_tnode *n, const char *field, const char *s,
                       size_t len) {
    if (!memchr(s, 0, len)) return KP_OK;
    return kp__dctx_fail(d, n, KP_EINVAL, field, "must not contain a NUL character");
}

kp_status kp__dget_str(kp_dctx *d, const kp_tnode *obj, const char *key, const char **out,
                       bool *present) {
    if (present) *present = false;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    /* sigs.k8s.io/yaml converts a plain YAML scalar to a string when the target field is one */
    if (n->type != KP_T_STR && !(n->plain && n->s))
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected a string, got %s", type_name(n->type));
    kp_status st = kp__d_no_nul(d, n, key, n->s, n->len);
    if (st != KP_OK) return st;
    *out = n->s;
    if (present) *present = true;
    return KP_OK;
}

kp_status kp__dget_int(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t min, int64_t max,
                       int64_t *out, bool *present) {
    if (present) *present = false;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_NUM)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an integer, got %s",
                             type_name(n->type));
    errno = 0;
    char *end = NULL;
    long long v = strtoll(n->s, &end, 10);
    if (end == n->s || *end != 0)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an integer, got \"%s\"", n->s);
    if (errno == ERANGE || v < min || v > max)
        return kp__dctx_fail(d, n, KP_ERANGE, key, "%s is out of range [%lld, %lld]", n->s,
                             (long long)min, (long long)max);
    *out = v;
    if (present) *present = true;
    return KP_OK;
}

kp_status kp__dget_bool(kp_dctx *d, const kp_tnode *obj, const char *key, bool *out,
                        bool *present) {
    if (present) *present = false;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_BOOL)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected a boolean, got %s",
                             type_name(n->type));
    *out = n->b;
    if (present) *present = true;
    return KP_OK;
}

kp_status kp__dget_obj(kp_dctx *d, const kp_tnode *obj, const char *key, const kp_tnode **out) {
    *out = NULL;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_OBJ)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an object, got %s",
                             type_name(n->type));
    *out = n;
    return KP_OK;
}

kp_status kp__dget_arr(kp_dctx *d, const kp_tnode *obj, const char *key, const kp_tnode **out) {
    *out = NULL;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_ARR)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an array, got %s", type_name(n->type));
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
    *secs = kp__days_from_civil(Y, M, D) * 86400 + h * 3600 + m * 60 + sec - off;
    if (nanos) *nanos = ns;
    return KP_OK;
}

kp_status kp_time_parse(const char *text, int64_t *out_unix, kp_error *err) {
    if (kp__parse_time(text, strlen(text), out_unix, NULL) == KP_OK) return KP_OK;
    return kp_error_set(err, KP_EINVAL, "invalid RFC 3339 time \"%s\" (e.g. 2026-11-01T01:00:00Z)",
                        text);
}

kp_status kp__dget_time(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t *out,
                        bool *present) {
    if (present) *present = false;
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_STR)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an RFC 3339 time string, got %s",
                             type_name(n->type));
    if (kp__parse_time(n->s, n->len, out, NULL) != KP_OK)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "invalid RFC 3339 time \"%s\"", n->s);
    if (present) *present = true;
    return KP_OK;
}

/* ---------------------------------------------------------------- duplicate member names */

#define DUP_MARK UINT32_MAX /* key_len of a member unlinked as an earlier duplicate */

bool kp__d_doc_is_yaml(const kp_tdoc *doc) {
    size_t i = 0;
    while (i < doc->len && (doc->buf[i] == ' ' || doc->buf[i] == '\t' || doc->buf[i] == '\r' ||
                            doc->buf[i] == '\n'))
        i++;
    return !(i < doc->len && (doc->buf[i] == '{' || doc->buf[i] == '['));
}

static bool same_key(const kp_tnode *a, const kp_tnode *b) {
    return a->key_len == b->key_len && (a->key_len == 0 || a->key[0] == b->key[0]) &&
           memcmp(a->key, b->key, a->key_len) == 0;
}

/* Path of target below n into d->path (members ".key", elements "[i]"); true when found. */
static bool path_to(kp_dctx *d, const kp_tnode *n, const kp_tnode *target) {
    uint32_t i = 0;
    for (const kp_tnode *c = n->first; c; c = c->next, i++) {
        if (c->key_len == DUP_MARK) continue;
        size_t saved;
        if (n->type == KP_T_OBJ) {
            char k[128];
            snprintf(k, sizeof k, "%.*s", (int)(c->key_len < 120 ? c->key_len : 120), c->key);
            saved = kp__dctx_push(d, k);
        } else {
            saved = kp__dctx_push_index(d, i);
        }
        if (c == target || path_to(d, c, target)) return true;
        kp__dctx_pop(d, saved);
    }
    return false;
}

typedef struct {
    kp_dctx *d;
    kp_tnode *root;
    bool yaml;
    kp_dup_warn_fn warn;
    void *wctx;
} dup_walk;

/* b repeats the name of the earlier member a of obj. */
static kp_status on_dup(dup_walk *w, kp_tnode *obj, kp_tnode *a, kp_tnode *b) {
    kp_dctx *d = w->d;
    size_t saved = d->path_len;
    if (obj != w->root) path_to(d, w->root, obj);
    char k[160];
    kp__go_quote(b->key, b->key_len, k, sizeof k);
    kp_status st = KP_OK;
    if (w->yaml) {
        long line = 0, col = 0;
        if (d->doc) kp__offset_to_linecol(d->doc->buf, d->doc->len, b->off, &line, &col);
        st = kp__dctx_fail(d, b, KP_EINVAL, NULL, "line %ld: key %s already set in map", line, k);
    } else {
        char text[1024];
        snprintf(text, sizeof text, "%s%sduplicate key %s: the last value is used", d->path,
                 d->path_len ? ": " : "", k);
        if (w->warn) st = w->warn(w->wctx, text);
        a->key_len = DUP_MARK;
    }
    kp__dctx_pop(d, saved);
    return st;
}

/* Unlinks the members marked DUP_MARK. */
static void unlink_marked(kp_tnode *obj) {
    kp_tnode *prev = NULL;
    obj->last = NULL;
    for (kp_tnode *c = obj->first; c; c = c->next) {
        if (c->key_len == DUP_MARK) {
            obj->n--;
            if (prev) prev->next = c->next;
            else obj->first = c->next;
            continue;
        }
        prev = c;
        obj->last = c;
    }
}

static uint32_t key_hash(const kp_tnode *c) {
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < c->key_len; i++) h = (h ^ (unsigned char)c->key[i]) * 16777619u;
    return h;
}

/* Duplicates among the members of obj: pairwise for a few, through a hash table for many (label
 * maps may have thousands). */
static kp_status dup_members(dup_walk *w, kp_tnode *obj, bool *marked) {
    kp_status st = KP_OK;
    if (obj->n <= 24) {
        /* a 64-bit filter on (length, first byte): a member is compared with the earlier ones
         * only when its bit was seen before, which is rare without a duplicate */
        uint64_t seen = 0;
        for (kp_tnode *b = obj->first; b && st == KP_OK; b = b->next) {
            uint64_t bit = (uint64_t)1
                           << ((b->key_len * 7u + (b->key_len ? (unsigned char)b->key[0] : 0u)) &
                               63);
            if (seen & bit) {
                for (kp_tnode *a = obj->first; a != b && st == KP_OK; a = a->next)
                    if (a->key_len != DUP_MARK && same_key(a, b)) {
                        st = on_dup(w, obj, a, b);
                        *marked = true;
                    }
            }
            seen |= bit;
        }
        return st;
    }
    uint32_t cap = 32;
    while (cap < 2 * obj->n) cap *= 2;
    kp_tnode *local[256];
    kp_tnode **tab = cap <= 256 ? local : kp__malloc(cap * sizeof *tab);
    if (!tab) return kp__dctx_fail(w->d, obj, KP_ENOMEM, NULL, "out of memory");
    memset(tab, 0, cap * sizeof *tab);
    for (kp_tnode *b = obj->first; b && st == KP_OK; b = b->next) {
        uint32_t i = key_hash(b) & (cap - 1);
        while (tab[i] && !same_key(tab[i], b)) i = (i + 1) & (cap - 1);
        if (tab[i]) {
            st = on_dup(w, obj, tab[i], b);
            *marked = true;
        }
        tab[i] = b;
    }
    if (tab != local) kp__free(tab);
    return st;
}

static kp_status dup_walk_node(dup_walk *w, kp_tnode *n) {
    kp_status st = KP_OK;
    if (n->type == KP_T_OBJ && n->n > 1) {
        bool marked = false;
        st = dup_members(w, n, &marked);
        if (marked) unlink_marked(n);
    }
    if (n->type != KP_T_OBJ && n->type != KP_T_ARR) return st;
    for (kp_tnode *c = n->first; c && st == KP_OK; c = c->next)
        if (c->type == KP_T_OBJ || c->type == KP_T_ARR) st = dup_walk_node(w, c);
    return st;
}

kp_status kp__d_dup_keys(kp_dctx *d, kp_tnode *obj, bool yaml, kp_dup_warn_fn warn, void *wctx) {
    dup_walk w = {d, obj, yaml, warn, wctx};
    return dup_walk_node(&w, obj);
}
