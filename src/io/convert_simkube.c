/* SimKube traces into a trace directory (include/kprio/convert.h, docs/live.md "Importing
 * SimKube traces"). SimKube's tracer (sk-tracer, the Trace struct of sk-core/src/trace/mod.rs)
 * exports msgpack written by rmp_serde with named fields: a map of
 *
 *     version         2 (CURRENT_TRACE_FORMAT_VERSION; older traces only SimKube <= 1.1.1 reads)
 *     config          {trackedObjects: {"apps/v1.Deployment": {podSpecTemplatePaths, ...}}}
 *     events          [{ts: unix seconds, applied_objs: [object], deleted_objs: [object]}]
 *     index           {"GROUP/VERSION.KIND": {"NS/NAME": spec hash}}
 *     pod_lifecycles  {["GVK", "NS/NAME"]: {pod hash: ["Empty" | {Running: ts} |
 *                                                      {Finished: [start, end]}]}}
 *
 * (a struct may also come as an array of its fields in order, which rmp_serde reads too). The
 * objects are Kubernetes objects as maps (kube's DynamicObject), written out as JSON.
 *
 * Reading is two passes over the bytes: a structural check of our own (every length within the
 * file, nesting within msgpack-c's 32 levels, at most SK_MAX_VALUES values), whose errors name
 * the byte and the path to it, then msgpack-c's unpacker into a tree whose containers the check
 * has bounded (msgpack-c allocates a container's slots from the count it declares: an absurd
 * count must never reach it). Only this file includes msgpack.h. */
#if defined(__has_include)
#if !__has_include(<msgpack.h>)
#error \
    "msgpack.h not found: kprio reads SimKube traces with msgpack-c; install Debian's libmsgpack-dev (sh scripts/deps.sh, or make deps)"
#endif
#endif
#include <msgpack.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/civil.h"
#include "io/convert.h"
#include "io/input.h"
#include "io/simkube_scan.h"

#define SK_MAX_BYTES ((size_t)1 << 30)
#define SK_VERSION 2
#define SK_MAX_TS 253402300799LL /* 9999-12-31T23:59:59Z: the last time RFC 3339 writes */

/* ---------------------------------------------------------------- values */


static const char *type_name(const msgpack_object *o) {
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: return "nil";
    case MSGPACK_OBJECT_BOOLEAN: return "a boolean";
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return "an integer";
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: return "a float";
    case MSGPACK_OBJECT_STR: return "a string";
    case MSGPACK_OBJECT_ARRAY: return "an array";
    case MSGPACK_OBJECT_MAP: return "a map";
    case MSGPACK_OBJECT_BIN: return "binary data";
    case MSGPACK_OBJECT_EXT: return "an extension value";
    }
    return "?";
}

static kp_status want(sk *k, const msgpack_object *o, const char *what) {
    return kp__sk_fail(k, KP_EINVAL, "expected %s, got %s", what, type_name(o));
}

static bool is_str(const msgpack_object *o, const char *s) {
    size_t n = strlen(s);
    return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
           memcmp(o->via.str.ptr, s, n) == 0;
}

/* A struct's field: by name in a map, by position in an array (rmp_serde's two forms). */
static const msgpack_object *field(const msgpack_object *o, const char *name, uint32_t pos) {
    if (o->type == MSGPACK_OBJECT_ARRAY)
        return pos < o->via.array.size ? &o->via.array.ptr[pos] : NULL;
    if (o->type != MSGPACK_OBJECT_MAP) return NULL;
    for (uint32_t i = 0; i < o->via.map.size; i++)
        if (is_str(&o->via.map.ptr[i].key, name)) return &o->via.map.ptr[i].val;
    return NULL;
}

/* A string field of map o (required or not): *out points into the trace. */
static kp_status str_field(sk *k, const msgpack_object *o, const char *name, bool required,
                           const char **p, size_t *n) {
    const msgpack_object *v = field(o, name, UINT32_MAX);
    *p = NULL;
    *n = 0;
    size_t saved = kp__sk_push_key(k, name, strlen(name));
    kp_status st = KP_OK;
    if (!v || v->type == MSGPACK_OBJECT_NIL) {
        if (required) st = kp__sk_fail(k, KP_EINVAL, "required");
    } else if (v->type != MSGPACK_OBJECT_STR) {
        st = want(k, v, "a string");
    } else {
        *p = v->via.str.ptr;
        *n = v->via.str.size;
    }
    kp__sk_pop(k, saved);
    return st;
}

/* A time in unix seconds (SimKube's i64 timestamps). */
static kp_status ts_value(sk *k, const msgpack_object *v, int64_t *out) {
    if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return kp__sk_fail(k, KP_EINVAL, "%lld is before 1970", (long long)v->via.i64);
    if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER) return want(k, v, "unix seconds (an integer)");
    if (v->via.u64 > (uint64_t)SK_MAX_TS)
        return kp__sk_fail(k, KP_EINVAL, "%llu is after the year 9999",
                           (unsigned long long)v->via.u64);
    *out = (int64_t)v->via.u64;
    return KP_OK;
}

/* o written as JSON text; errors name the field. */
static kp_status to_json(sk *k, kp_tbuf *b, const msgpack_object *o) {
    char num[40];
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: kp__tbuf_put(b, "null", 4); return KP_OK;
    case MSGPACK_OBJECT_BOOLEAN:
        kp__tbuf_put(b, o->via.boolean ? "true" : "false", o->via.boolean ? 4 : 5);
        return KP_OK;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        kp__tbuf_put(b, num,
                     (size_t)snprintf(num, sizeof num, "%llu", (unsigned long long)o->via.u64));
        return KP_OK;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        kp__tbuf_put(b, num, (size_t)snprintf(num, sizeof num, "%lld", (long long)o->via.i64));
        return KP_OK;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        if (!isfinite(o->via.f64)) return kp__sk_fail(k, KP_EINVAL, "a float that is not a number");
        kp__tbuf_put(b, num, (size_t)snprintf(num, sizeof num, "%.17g", o->via.f64));
        return KP_OK;
    case MSGPACK_OBJECT_STR:
        if (!kp__sk_utf8_ok(o->via.str.ptr, o->via.str.size))
            return kp__sk_fail(k, KP_EINVAL, "a string that is not UTF-8");
        kp__tbuf_quoted(b, o->via.str.ptr, o->via.str.size);
        return KP_OK;
    case MSGPACK_OBJECT_ARRAY:
        kp__tbuf_put(b, "[", 1);
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (i) kp__tbuf_put(b, ",", 1);
            size_t saved = kp__sk_push_index(k, i);
            kp_status st = to_json(k, b, &o->via.array.ptr[i]);
            kp__sk_pop(k, saved);
            if (st != KP_OK) return st;
        }
        kp__tbuf_put(b, "]", 1);
        return KP_OK;
    case MSGPACK_OBJECT_MAP:
        kp__tbuf_put(b, "{", 1);
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            if (kv->key.type != MSGPACK_OBJECT_STR) {
                size_t saved = kp__sk_push_index(k, i);
                kp_status st = kp__sk_fail(k, KP_EINVAL, "a map key that is %s, not a string",
                                           type_name(&kv->key));
                kp__sk_pop(k, saved);
                return st;
            }
            char s[200];
            kp__sk_shown(s, sizeof s, kv->key.via.str.ptr, kv->key.via.str.size);
            size_t saved = kp__sk_push_key(k, s, strlen(s));
            kp_status st = KP_OK;
            if (!kp__sk_utf8_ok(kv->key.via.str.ptr, kv->key.via.str.size))
                st = kp__sk_fail(k, KP_EINVAL, "a key that is not UTF-8");
            if (i) kp__tbuf_put(b, ",", 1);
            kp__tbuf_quoted(b, kv->key.via.str.ptr, kv->key.via.str.size);
            kp__tbuf_put(b, ":", 1);
            if (st == KP_OK) st = to_json(k, b, &kv->val);
            kp__sk_pop(k, saved);
            if (st != KP_OK) return st;
        }
        kp__tbuf_put(b, "}", 1);
        return KP_OK;
    case MSGPACK_OBJECT_BIN:
    case MSGPACK_OBJECT_EXT: return want(k, o, "a JSON value");
    }
    return want(k, o, "a JSON value");
}

/* ---------------------------------------------------------------- objects */


/* The identity of object o (kind, namespace, name) checked, the label of messages set, and its
 * key ("GROUP\x1fKIND\x1fNS\x1fNAME") in key. */
static kp_status identify(sk *k, const msgpack_object *o, char *key, size_t cap) {
    k->obj_at = 0;
    if (o->type != MSGPACK_OBJECT_MAP) return want(k, o, "a Kubernetes object (a map)");
    const char *api, *kind, *name, *ns;
    size_t n_api, n_kind, n_name, n_ns;
    kp_status st;
    if ((st = str_field(k, o, "apiVersion", true, &api, &n_api)) != KP_OK ||
        (st = str_field(k, o, "kind", true, &kind, &n_kind)) != KP_OK)
        return st;
    size_t saved = kp__sk_push_key(k, "kind", 4);
    bool ok = n_kind && n_kind <= 63;
    for (size_t i = 0; ok && i < n_kind; i++)
        ok = (kind[i] >= 'a' && kind[i] <= 'z') || (kind[i] >= 'A' && kind[i] <= 'Z') ||
             (kind[i] >= '0' && kind[i] <= '9');
    char s[200];
    if (!ok) {
        kp__sk_shown(s, sizeof s, kind, n_kind);
        st = kp__sk_fail(k, KP_EINVAL, "\"%s\" is not a kind (letters and digits)", s);
    }
    kp__sk_pop(k, saved);
    saved = kp__sk_push_key(k, "apiVersion", 10);
    ok = n_api && n_api <= 253;
    for (size_t i = 0; ok && i < n_api; i++) ok = api[i] > 0x20 && api[i] < 0x7f && api[i] != '"';
    if (st == KP_OK && !ok) {
        kp__sk_shown(s, sizeof s, api, n_api);
        st = kp__sk_fail(k, KP_EINVAL, "\"%s\" is not an API version (group/version)", s);
    }
    kp__sk_pop(k, saved);
    if (st != KP_OK) return st;
    const msgpack_object *meta = field(o, "metadata", UINT32_MAX);
    saved = kp__sk_push_key(k, "metadata", 8);
    if (!meta) st = kp__sk_fail(k, KP_EINVAL, "required");
    else if (meta->type != MSGPACK_OBJECT_MAP) st = want(k, meta, "a map");
    if (st == KP_OK && (st = str_field(k, meta, "name", true, &name, &n_name)) == KP_OK)
        st = str_field(k, meta, "namespace", false, &ns, &n_ns);
    if (st == KP_OK && !kp__sk_dns_name(name, n_name, false)) {
        kp__sk_shown(s, sizeof s, name, n_name);
        size_t at = kp__sk_push_key(k, "name", 4);
        st = kp__sk_fail(k, KP_EINVAL,
                         "\"%s\" is not a DNS subdomain name (at most 253 lower-case "
                         "letters, digits, '-' and '.')",
                         s);
        kp__sk_pop(k, at);
    }
    if (st == KP_OK && ns && !kp__sk_dns_name(ns, n_ns, true)) {
        kp__sk_shown(s, sizeof s, ns, n_ns);
        size_t at = kp__sk_push_key(k, "namespace", 9);
        st = kp__sk_fail(k, KP_EINVAL,
                         "\"%s\" is not a namespace name (at most 63 lower-case letters, "
                         "digits and '-')",
                         s);
        kp__sk_pop(k, at);
    }
    kp__sk_pop(k, saved);
    if (st != KP_OK) return st;
    const char *slash = memchr(api, '/', n_api);
    size_t n_group = slash ? (size_t)(slash - api) : 0;
    snprintf(key, cap, "%.*s\x1f%.*s\x1f%.*s\x1f%.*s", (int)n_group, api, (int)n_kind, kind,
             (int)n_ns, ns ? ns : "", (int)n_name, name);
    snprintf(k->label, sizeof k->label, " (%.*s %.*s%s%.*s)", (int)n_kind, kind, (int)n_ns,
             ns ? ns : "", ns ? "/" : "", (int)n_name, name);
    k->obj_at = k->path_len;
    return KP_OK;
}

/* ---------------------------------------------------------------- the trace */

typedef struct {
    const msgpack_object *last; /* its last applied state */
    const msgpack_object *snap; /* its state at the start */
    bool alive; /* applied and not deleted since */
    bool in_snap; /* in the snapshot (applied at the start, not deleted then) */
    bool listed; /* in snap_order */
} ostate;

typedef struct {
    int64_t end; /* a bare pod's recorded end */
    kp_str id;
} ending;

typedef struct {
    sk k;
    kp_converted *cv;
    kp_arena arena;
    kp_interner keys;
    ostate *st;
    size_t st_cap;
    kp_str *snap_order;
    size_t n_snap, cap_snap;
    ending *ends;
    size_t n_ends, cap_ends, next_end;
    int64_t start, last;
} conv;

static kp_status nomem(conv *c) { return kp_error_set(c->k.err, KP_ENOMEM, "out of memory"); }

static ostate *state_of(conv *c, const char *key, kp_str *id) {
    *id = kp__intern(&c->keys, key, strlen(key));
    if (*id == UINT32_MAX) return NULL;
    if (*id >= c->st_cap) {
        size_t old = c->st_cap;
        if (!kp__grow((void **)&c->st, &c->st_cap, (size_t)*id + 1, sizeof *c->st, 256))
            return NULL;
        memset(c->st + old, 0, (c->st_cap - old) * sizeof *c->st);
    }
    return &c->st[*id];
}

/* One watch line: {"recorded": TIME, "type": TYPE, "object": OBJECT}. */
static kp_status watch_line(conv *c, int64_t ts, const char *type, const msgpack_object *o) {
    char t[40], head[120];
    kp__rfc3339_utc(ts, t, sizeof t);
    int n =
        snprintf(head, sizeof head, "{\"recorded\":\"%s\",\"type\":\"%s\",\"object\":", t, type);
    kp__tbuf_put(&c->cv->watch, head, (size_t)n);
    kp_status st = to_json(&c->k, &c->cv->watch, o);
    kp__tbuf_put(&c->cv->watch, "}\n", 2);
    c->cv->st.events++;
    return st;
}

/* The bare pods whose recorded end is at or before ts are deleted then. */
static kp_status flush_ends(conv *c, int64_t ts) {
    for (; c->next_end < c->n_ends && c->ends[c->next_end].end <= ts; c->next_end++) {
        ending *e = &c->ends[c->next_end];
        ostate *s = &c->st[e->id];
        if (!s->alive || !s->last) continue;
        s->alive = false;
        kp_status st = watch_line(c, e->end, "DELETED", s->last);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

static kp_status one_object(conv *c, int64_t ts, bool applied, const msgpack_object *o) {
    char key[700];
    kp_status st = identify(&c->k, o, key, sizeof key);
    if (st != KP_OK) return st;
    kp_str id;
    ostate *s = state_of(c, key, &id);
    if (!s) return nomem(c);
    if (ts == c->start) {
        s->in_snap = applied;
        if (applied) s->snap = o;
        if (applied && !s->listed) {
            if (!kp__grow((void **)&c->snap_order, &c->cap_snap, c->n_snap + 1,
                          sizeof *c->snap_order, 64))
                return nomem(c);
            c->snap_order[c->n_snap++] = id;
            s->listed = true;
        }
    }
    const char *type = !applied ? "DELETED" : s->alive ? "MODIFIED" : "ADDED";
    if (applied) s->last = o;
    s->alive = applied;
    return watch_line(c, ts, type, o);
}

static kp_status one_event(conv *c, const msgpack_object *ev, int64_t *prev) {
    if (ev->type != MSGPACK_OBJECT_MAP && ev->type != MSGPACK_OBJECT_ARRAY)
        return want(&c->k, ev, "an event (a map of ts, applied_objs, deleted_objs)");
    static const char *const LISTS[2] = {"applied_objs", "deleted_objs"};
    const msgpack_object *tv = field(ev, "ts", 0);
    int64_t ts = 0;
    size_t saved = kp__sk_push_key(&c->k, "ts", 2);
    kp_status st = tv ? ts_value(&c->k, tv, &ts) : kp__sk_fail(&c->k, KP_EINVAL, "required");
    if (st == KP_OK && *prev >= 0 && ts < *prev)
        st = kp__sk_fail(&c->k, KP_EINVAL,
                         "%lld is before the previous event's %lld (events are in "
                         "time order)",
                         (long long)ts, (long long)*prev);
    kp__sk_pop(&c->k, saved);
    if (st != KP_OK) return st;
    if (*prev < 0) c->start = ts;
    *prev = c->last = ts;
    if ((st = flush_ends(c, ts)) != KP_OK) return st;
    for (uint32_t l = 0; l < 2; l++) {
        const msgpack_object *list = field(ev, LISTS[l], l + 1);
        saved = kp__sk_push_key(&c->k, LISTS[l], strlen(LISTS[l]));
        if (!list) st = kp__sk_fail(&c->k, KP_EINVAL, "required");
        else if (list->type != MSGPACK_OBJECT_ARRAY) st = want(&c->k, list, "an array");
        for (uint32_t i = 0; st == KP_OK && i < list->via.array.size; i++) {
            size_t at = kp__sk_push_index(&c->k, i);
            st = one_object(c, ts, l == 0, &list->via.array.ptr[i]);
            c->k.obj_at = 0;
            kp__sk_pop(&c->k, at);
        }
        kp__sk_pop(&c->k, saved);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

static int ending_cmp(const void *pa, const void *pb) {
    const ending *a = pa, *b = pb;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The recorded end of a lifecycle list (Finished's, the last one), or -1. */
static kp_status lifecycle_end(conv *c, const msgpack_object *list, int64_t *end) {
    if (list->type != MSGPACK_OBJECT_ARRAY) return want(&c->k, list, "a list of pod lifecycles");
    for (uint32_t i = 0; i < list->via.array.size; i++) {
        const msgpack_object *d = &list->via.array.ptr[i];
        size_t saved = kp__sk_push_index(&c->k, i);
        kp_status st = KP_OK;
        if (is_str(d, "Empty")) {
        } else if (d->type != MSGPACK_OBJECT_MAP || d->via.map.size != 1) {
            st = want(&c->k, d, "\"Empty\", {\"Running\": ts} or {\"Finished\": [start, end]}");
        } else {
            const msgpack_object *v = &d->via.map.ptr[0].val;
            size_t at = kp__sk_push_key(&c->k, "Finished", 8);
            int64_t a = 0, b = 0;
            if (is_str(&d->via.map.ptr[0].key, "Running")) {
                kp__sk_pop(&c->k, at);
                at = kp__sk_push_key(&c->k, "Running", 7);
                st = ts_value(&c->k, v, &a);
            } else if (!is_str(&d->via.map.ptr[0].key, "Finished")) {
                kp__sk_pop(&c->k, at);
                st = want(&c->k, d, "\"Empty\", {\"Running\": ts} or {\"Finished\": [start, end]}");
            } else if (v->type != MSGPACK_OBJECT_ARRAY) {
                st = want(&c->k, v, "[start, end]");
            } else if (v->via.array.size != 2) {
                st = kp__sk_fail(&c->k, KP_EINVAL, "expected [start, end], got %u value%s",
                                 (unsigned)v->via.array.size, v->via.array.size == 1 ? "" : "s");
            } else if ((st = ts_value(&c->k, &v->via.array.ptr[0], &a)) == KP_OK &&
                       (st = ts_value(&c->k, &v->via.array.ptr[1], &b)) == KP_OK) {
                *end = b;
            }
            kp__sk_pop(&c->k, at);
        }
        kp__sk_pop(&c->k, saved);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* pod_lifecycles: a bare pod's (its own owner, v1.Pod) recorded end becomes its deletion. The
 * pods of workloads are the simulated controllers': their lifecycles are not replayed. */
static kp_status lifecycles(conv *c, const msgpack_object *lc) {
    if (!lc || lc->type == MSGPACK_OBJECT_NIL) return KP_OK;
    size_t saved = kp__sk_push_key(&c->k, "pod_lifecycles", 14);
    kp_status st = lc->type == MSGPACK_OBJECT_MAP ? KP_OK : want(&c->k, lc, "a map");
    for (uint32_t i = 0; st == KP_OK && i < lc->via.map.size; i++) {
        const msgpack_object *key = &lc->via.map.ptr[i].key, *val = &lc->via.map.ptr[i].val;
        size_t at = kp__sk_push_index(&c->k, i);
        if (key->type != MSGPACK_OBJECT_ARRAY || key->via.array.size != 2 ||
            key->via.array.ptr[0].type != MSGPACK_OBJECT_STR ||
            key->via.array.ptr[1].type != MSGPACK_OBJECT_STR) {
            st = want(&c->k, key, "a key [\"GROUP/VERSION.KIND\", \"NAMESPACE/NAME\"]");
        } else {
            /* the entry named by its owner: pod_lifecycles[v1.Pod batch/report-1] */
            char g[200], n[200], label[420];
            kp__sk_shown(g, sizeof g, key->via.array.ptr[0].via.str.ptr,
                         key->via.array.ptr[0].via.str.size);
            kp__sk_shown(n, sizeof n, key->via.array.ptr[1].via.str.ptr,
                         key->via.array.ptr[1].via.str.size);
            snprintf(label, sizeof label, "[%s %s]", g, n);
            kp__sk_pop(&c->k, at);
            at = kp__sk_push_text(&c->k, label);
        }
        if (st == KP_OK && val->type != MSGPACK_OBJECT_MAP) {
            st = want(&c->k, val, "a map of pod hashes to lifecycles");
        }
        int64_t end = -1;
        for (uint32_t j = 0; st == KP_OK && j < val->via.map.size; j++)
            st = lifecycle_end(c, &val->via.map.ptr[j].val, &end);
        kp__sk_pop(&c->k, at);
        if (st != KP_OK || end < 0) continue;
        const msgpack_object *g = &key->via.array.ptr[0], *nn = &key->via.array.ptr[1];
        if (!is_str(g, "v1.Pod") && !is_str(g, "/v1.Pod")) continue;
        const char *slash = memchr(nn->via.str.ptr, '/', nn->via.str.size);
        if (!slash) continue;
        size_t n_ns = (size_t)(slash - nn->via.str.ptr);
        char k2[700];
        snprintf(k2, sizeof k2, "\x1fPod\x1f%.*s\x1f%.*s", (int)(n_ns > 300 ? 300 : n_ns),
                 nn->via.str.ptr,
                 (int)(nn->via.str.size - n_ns - 1 > 300 ? 300 : nn->via.str.size - n_ns - 1),
                 slash + 1);
        kp_str id;
        if (!state_of(c, k2, &id) ||
            !kp__grow((void **)&c->ends, &c->cap_ends, c->n_ends + 1, sizeof *c->ends, 64)) {
            st = nomem(c);
            break;
        }
        c->ends[c->n_ends++] = (ending){end, id};
    }
    kp__sk_pop(&c->k, saved);
    if (st == KP_OK && c->n_ends) qsort(c->ends, c->n_ends, sizeof *c->ends, ending_cmp);
    return st;
}

/* config.trackedObjects: the kinds SimKube traced, for the README (nothing else is used). */
static kp_status tracked_kinds(conv *c, const msgpack_object *cfg, kp_tbuf *out) {
    if (!cfg || cfg->type == MSGPACK_OBJECT_NIL) return KP_OK;
    size_t saved = kp__sk_push_key(&c->k, "config", 6);
    const msgpack_object *t = field(cfg, "trackedObjects", 0);
    kp_status st = cfg->type == MSGPACK_OBJECT_MAP || cfg->type == MSGPACK_OBJECT_ARRAY
                       ? KP_OK
                       : want(&c->k, cfg, "a map (trackedObjects)");
    size_t at = kp__sk_push_key(&c->k, "trackedObjects", 14);
    if (st == KP_OK && t && t->type != MSGPACK_OBJECT_MAP) st = want(&c->k, t, "a map");
    for (uint32_t i = 0; st == KP_OK && t && i < t->via.map.size; i++) {
        const msgpack_object *key = &t->via.map.ptr[i].key;
        char s[200];
        if (key->type != MSGPACK_OBJECT_STR) {
            size_t j = kp__sk_push_index(&c->k, i);
            st = want(&c->k, key, "a kind (\"GROUP/VERSION.KIND\")");
            kp__sk_pop(&c->k, j);
            break;
        }
        kp__sk_shown(s, sizeof s, key->via.str.ptr, key->via.str.size);
        kp__tbuf_put(out, i ? ", " : "", i ? 2 : 0);
        kp__tbuf_put(out, s, strlen(s));
    }
    kp__sk_pop(&c->k, at);
    kp__sk_pop(&c->k, saved);
    return st;
}

static kp_status version_of(conv *c, const msgpack_object *root) {
    const msgpack_object *v = field(root, "version", 0);
    size_t saved = kp__sk_push_key(&c->k, "version", 7);
    kp_status st = KP_OK;
    if (!v)
        st =
            kp__sk_fail(&c->k, KP_EINVAL, "required (SimKube trace format version %d)", SK_VERSION);
    else if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER) st = want(&c->k, v, "an integer");
    else if (v->via.u64 != SK_VERSION)
        st = kp__sk_fail(
            &c->k, KP_EINVAL,
            "SimKube trace format version %llu is not supported (kprio reads version %d, "
            "written by SimKube 2.1 and later)",
            (unsigned long long)v->via.u64, SK_VERSION);
    kp__sk_pop(&c->k, saved);
    return st;
}

static void putf(kp_tbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void putf(kp_tbuf *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) kp__tbuf_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static kp_status convert(conv *c, const msgpack_object *root) {
    kp_converted *cv = c->cv;
    if (root->type != MSGPACK_OBJECT_MAP && root->type != MSGPACK_OBJECT_ARRAY)
        return want(&c->k, root,
                    "a SimKube trace (a map of version, config, events, index, "
                    "pod_lifecycles)");
    kp_tbuf kinds = {0};
    kp_status st = version_of(c, root);
    if (st == KP_OK) st = tracked_kinds(c, field(root, "config", 1), &kinds);
    const msgpack_object *evs = field(root, "events", 2), *idx = field(root, "index", 3);
    if (st == KP_OK && idx && idx->type != MSGPACK_OBJECT_MAP && idx->type != MSGPACK_OBJECT_NIL) {
        size_t saved = kp__sk_push_key(&c->k, "index", 5);
        st = want(&c->k, idx, "a map");
        kp__sk_pop(&c->k, saved);
    }
    if (st == KP_OK) st = lifecycles(c, field(root, "pod_lifecycles", 4));
    size_t saved = kp__sk_push_key(&c->k, "events", 6);
    if (st == KP_OK && !evs) st = kp__sk_fail(&c->k, KP_EINVAL, "required");
    if (st == KP_OK && evs->type != MSGPACK_OBJECT_ARRAY) st = want(&c->k, evs, "an array");
    if (st == KP_OK && evs->via.array.size == 0)
        st = kp__sk_fail(&c->k, KP_EINVAL, "no events (a trace starts with one)");
    int64_t prev = -1;
    for (uint32_t i = 0; st == KP_OK && i < evs->via.array.size; i++) {
        size_t at = kp__sk_push_index(&c->k, i);
        st = one_event(c, &evs->via.array.ptr[i], &prev);
        kp__sk_pop(&c->k, at);
    }
    kp__sk_pop(&c->k, saved);
    if (st == KP_OK) st = flush_ends(c, c->last);
    /* the snapshot: the objects applied at the start and not deleted then, in order */
    kp__tbuf_put(&cv->cluster, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[", 42);
    for (size_t i = 0; st == KP_OK && i < c->n_snap; i++) {
        ostate *s = &c->st[c->snap_order[i]];
        if (!s->in_snap) continue;
        kp__tbuf_put(&cv->cluster, cv->items ? ",\n" : "\n", cv->items ? 2 : 1);
        st = to_json(&c->k, &cv->cluster, s->snap);
        cv->items++;
    }
    kp__tbuf_put(&cv->cluster, "\n]}\n", 4);
    cv->st.objects = cv->items;
    char t0[40], t1[40];
    kp__rfc3339_utc(c->start, t0, sizeof t0);
    kp__rfc3339_utc(c->last, t1, sizeof t1);
    putf(&cv->manifest,
         "{\"apiVersion\":\"kprio/v1alpha1\",\"kind\":\"Trace\",\"start\":\"%s\",\"end\":\"%s\","
         "\"context\":\"simkube\",\"snapshot\":\"snapshot\",\"watch\":[\"watch/simkube.json\"]}\n",
         t0, t1);
    char src[200];
    kp__sk_shown(src, sizeof src, c->k.file, strlen(c->k.file));
    putf(&cv->readme,
         "A SimKube trace (format version %d) converted by kprio convert simkube.\n"
         "source: %s\nfrom %s to %s: %llu objects at the start (snapshot/cluster.json), %llu "
         "watch events (watch/simkube.json)\ntracked kinds: ",
         SK_VERSION, src, t0, t1, (unsigned long long)cv->st.objects,
         (unsigned long long)cv->st.events);
    kp__tbuf_put(&cv->readme, kinds.p ? kinds.p : "", kinds.n);
    putf(&cv->readme, "\nreplay: kprio simulate --trace DIR -f NODES (a SimKube trace holds no "
                      "nodes)\n");
    kp__free(kinds.p);
    if (st == KP_OK &&
        (cv->cluster.oom || cv->watch.oom || cv->manifest.oom || cv->readme.oom || kinds.oom))
        st = nomem(c);
    return st;
}

kp_status kp_convert_simkube(const char *trace, kp_converted **out, kp_error *err) {
    *out = NULL;
    conv c;
    memset(&c, 0, sizeof c);
    c.k.file = trace;
    c.k.err = err;
    char *buf = NULL;
    size_t len = 0;
    kp_status st = kp__read_file(trace, SK_MAX_BYTES, &buf, &len, err);
    if (st != KP_OK) {
        if (err && st != KP_ENOMEM) snprintf(err->source, sizeof err->source, "%s", trace);
        return st;
    }
    st = kp__sk_scan(&c.k, (const unsigned char *)buf, len);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    if (st == KP_OK) {
        size_t off = 0;
        msgpack_unpack_return r = msgpack_unpack_next(&u, buf, len, &off);
        if (r == MSGPACK_UNPACK_NOMEM_ERROR) st = kp_error_set(err, KP_ENOMEM, "out of memory");
        else if (r != MSGPACK_UNPACK_SUCCESS || off != len)
            st = kp__sk_fail(&c.k, KP_EINVAL, "not msgpack (the reader stopped at byte %zu)", off);
    }
    kp__arena_init(&c.arena);
    if (st == KP_OK &&
        (!(c.cv = kp__calloc(1, sizeof *c.cv)) || !kp__intern_init(&c.keys, &c.arena)))
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st == KP_OK) {
        c.cv->is_trace = true;
        st = convert(&c, &u.data);
    }
    msgpack_unpacked_destroy(&u);
    kp__intern_fini(&c.keys);
    kp__arena_fini(&c.arena);
    kp__free(c.st);
    kp__free(c.snap_order);
    kp__free(c.ends);
    kp__free(buf);
    if (st != KP_OK) {
        kp_converted_free(c.cv);
        return st;
    }
    *out = c.cv;
    return KP_OK;
}
