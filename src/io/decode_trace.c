/* Trace directories (include/kprio/trace.h, docs/live.md "Recording a trace"): the manifest,
 * the watch files read one event at a time, and what they become, a Scenario of the users'
 * actions and the list of recorded decisions. What each kind's event becomes:
 * decode_trace_kinds.c. Errors name the file, the line and the field:
 *     trace/watch/pods.json: line 17 (Pod shop/web): object.metadata.name: expected a string */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "io/decode_trace.h"
#include "io/events.h"
#include "io/input.h"

/* the largest watch file read (a day of a large cluster's pods is a few GiB) */
#define TRACE_MAX_FILE_BYTES ((size_t)16 << 30)
#define MANIFEST_MAX_BYTES ((size_t)1 << 20)

struct kp_trace {
    scen *s;
    int64_t start, end;
    kp_trace_decision *decs;
    size_t n_decs;
    kp_trace_stats stats;
};

static const char *const DECISION_NAMES[KP_TRACE_N_DECISIONS] = {"Scheduled", "FailedScheduling",
                                                                 "Preempted", "Evicted"};

const char *kp_trace_decision_name(kp_trace_decision_kind k) {
    return (unsigned)k < KP_TRACE_N_DECISIONS ? DECISION_NAMES[k] : "?";
}

/* ---------------------------------------------------------------- shared helpers */

kp__tstate *kp__trace_state(kp__tctx *x, const char *key) {
    kp_str id = kp__intern(&x->keys, key, strlen(key));
    if (id == UINT32_MAX) return NULL;
    if (id >= x->st_cap) {
        size_t old = x->st_cap;
        if (!kp__grow((void **)&x->st, &x->st_cap, (size_t)id + 1, sizeof *x->st, 256)) return NULL;
        memset(x->st + old, 0, (x->st_cap - old) * sizeof *x->st);
    }
    /* states live in the arena: a state found earlier stays valid while others are added */
    if (!x->st[id]) x->st[id] = kp__arena_alloc(&x->s->arena, sizeof **x->st);
    return x->st[id];
}

const char *kp__trace_dup(kp__tctx *x, const char *p, size_t n) { return kp__sc_sdup(x->s, p, n); }

int64_t kp__trace_ms(const kp__tctx *x, int64_t secs, int32_t nanos) {
    if (secs < x->start) return 0;
    int64_t d = secs - x->start;
    if (d > INT64_MAX / 1000 - 1) return INT64_MAX / 2;
    return d * 1000 + nanos / 1000000;
}

kp_scenario_action *kp__trace_action(kp__tctx *x, kp_action_type type, uint32_t rank) {
    if (!kp__grow((void **)&x->acts, &x->cap_acts, x->n_acts + 1, sizeof *x->acts, 64)) return NULL;
    kp__tact *t = &x->acts[x->n_acts];
    memset(t, 0, sizeof *t);
    t->rank = rank;
    t->seq = (uint32_t)x->n_acts++;
    t->a.at_ms = x->t_ms;
    t->a.type = type;
    t->a.ref.kind = t->a.ref.ns = t->a.ref.name = "";
    t->a.taint.key = t->a.taint.value = t->a.taint.effect = "";
    t->a.subresource = "";
    t->a.drain.concurrency = 1;
    t->a.drain.grace_period = -1;
    x->stats.actions++;
    return &t->a;
}

kp_status kp__trace_decision(kp__tctx *x, int64_t t_ms, kp_trace_decision_kind kind,
                             const char *uid, const kp_trace_pod_key *key, const char *node,
                             const char *message) {
    if (!kp__grow((void **)&x->decs, &x->cap_decs, x->n_decs + 1, sizeof *x->decs, 64))
        return kp__sc_nomem(&x->d);
    kp__tdec *t = &x->decs[x->n_decs++];
    memset(t, 0, sizeof *t);
    t->d.t_ms = t_ms;
    t->d.kind = kind;
    t->d.pod = *key;
    t->uid = uid ? uid : "";
    t->d.node = node ? node : "";
    t->d.message = message ? message : "";
    return KP_OK;
}

kp_status kp__trace_create(kp__tctx *x, const kp_tnode *obj, uint32_t rank) {
    if (x->text.oom) return kp__sc_nomem(&x->d);
    kp_error e;
    kp_error_clear(&e);
    uint32_t skipped = x->scratch->n_skipped_kinds;
    kp_status st = kp_cluster_load_buffer(x->scratch, x->src, x->text.p, x->text.n, &e);
    if (st == KP_ENOMEM) return kp__sc_nomem(&x->d);
    if (st == KP_OK && x->scratch->n_skipped_kinds != skipped)
        st = kp_error_set(&e, KP_EINVAL, "kind: not a kind kprio loads");
    if (st != KP_OK) {
        kp_error_set(x->d.err, st, "%s: object: %s", x->d.object, e.msg);
        if (x->d.err && obj && x->d.doc)
            kp__offset_to_linecol(x->d.doc->buf, x->d.doc->len, obj->off, &x->d.err->line,
                                  &x->d.err->column);
        return st;
    }
    kp_scenario_action *a = kp__trace_action(x, KP_ACT_CREATE, rank);
    kp_scenario_object *o = a ? kp__arena_alloc(&x->s->arena, sizeof *o) : NULL;
    if (!o || !(o->source = kp__sc_sdup(x->s, x->src, strlen(x->src))) ||
        !(o->text = kp__sc_sdup(x->s, x->text.p, x->text.n)))
        return kp__sc_nomem(&x->d);
    o->len = x->text.n;
    a->objects = o;
    a->n_objects = 1;
    return KP_OK;
}

/* ---------------------------------------------------------------- watch files */

typedef struct {
    kp__tctx *x;
    const char *path;
    long line; /* the line at byte `at` (counted as the documents go by) */
    uint64_t at;
    int64_t last_ms; /* the previous event's time: the time of an event without one */
} wfile;

static kp_status on_event(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    wfile *w = ctx;
    kp__tctx *x = w->x;
    (void)err;
    for (uint64_t i = w->at; i < obj->off && i < doc->len; i++)
        if (doc->buf[i] == '\n') w->line++;
    if (obj->off > w->at) w->at = obj->off;
    x->d.doc = doc;
    x->d.path_len = 0;
    x->d.path[0] = 0;
    snprintf(x->d.object, sizeof x->d.object, "line %ld", w->line);
    char src[600];
    snprintf(src, sizeof src, "%s: line %ld", w->path, w->line);
    if (!(x->src = kp__sc_sdup(x->s, src, strlen(src)))) return kp__sc_nomem(&x->d);
    if (obj->type != KP_T_OBJ)
        return kp__dctx_fail(&x->d, obj, KP_EINVAL, NULL,
                             "expected a watch event ({\"type\": ..., \"object\": {...}})");
    const char *type = NULL, *rec = NULL;
    const kp_tnode *o = NULL;
    kp_status st;
    if ((st = kp__dget_str(&x->d, obj, "type", &type, NULL)) != KP_OK ||
        (st = kp__dget_str(&x->d, obj, "recorded", &rec, NULL)) != KP_OK ||
        (st = kp__dget_obj(&x->d, obj, "object", &o)) != KP_OK)
        return st;
    if (!type) return kp__dctx_fail(&x->d, obj, KP_EINVAL, "type", "required");
    x->stats.events++;
    /* kubectl prints a watch's BOOKMARK and ERROR events too: neither is a change */
    if (strcmp(type, "BOOKMARK") == 0 || strcmp(type, "ERROR") == 0) return KP_OK;
    if (strcmp(type, "ADDED") != 0 && strcmp(type, "MODIFIED") != 0 && strcmp(type, "DELETED") != 0)
        return kp__dctx_fail(&x->d, kp__tree_get(obj, "type"), KP_EINVAL, "type",
                             "unknown watch event type \"%s\" (ADDED, MODIFIED, DELETED, BOOKMARK "
                             "or ERROR)",
                             type);
    if (!o) return kp__dctx_fail(&x->d, obj, KP_EINVAL, "object", "required");
    int64_t ms = w->last_ms;
    if (rec) {
        int64_t secs = 0;
        int32_t nanos = 0;
        if (kp__parse_time(rec, strlen(rec), &secs, &nanos) != KP_OK)
            return kp__dctx_fail(&x->d, kp__tree_get(obj, "recorded"), KP_EINVAL, "recorded",
                                 "invalid time \"%s\" (RFC 3339: 2025-11-25T17:00:00Z)", rec);
        ms = kp__trace_ms(x, secs, nanos);
    }
    w->last_ms = ms;
    x->t_ms = ms;
    size_t saved = kp__dctx_push(&x->d, "object");
    st = kp__trace_event(x, type, o);
    kp__dctx_pop(&x->d, saved);
    return st;
}

static kp_status read_watch(kp__tctx *x, const char *path) {
    char *buf = NULL;
    size_t len = 0;
    kp_status st = kp__read_file(path, TRACE_MAX_FILE_BYTES, &buf, &len, x->d.err);
    if (st == KP_OK) {
        wfile w = {x, path, 1, 0, 0};
        st = kp__tree_parse(path, buf, len, false, on_event, &w, x->d.err);
    }
    if (st != KP_OK && x->d.err && st != KP_ENOMEM)
        snprintf(x->d.err->source, sizeof x->d.err->source, "%s", path);
    kp__free(buf);
    return st;
}

/* ---------------------------------------------------------------- manifest */

typedef struct {
    kp__tctx *x;
    const char *dir;
    bool seen;
} mctx;

static char *join(const char *dir, const char *f) {
    size_t a = strlen(dir), b = strlen(f);
    char *p = kp__malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, f, b + 1);
    return p;
}

static kp_status manifest_time(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t *out) {
    bool present = false;
    kp_status st = kp__dget_time(d, obj, key, out, &present);
    if (st == KP_OK && !present) st = kp__dctx_fail(d, obj, KP_EINVAL, key, "required");
    return st;
}

static kp_status on_manifest(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    mctx *m = ctx;
    kp__tctx *x = m->x;
    kp_dctx *d = &x->d;
    (void)err;
    d->doc = doc;
    d->object[0] = 0;
    if (m->seen) return kp__dctx_fail(d, obj, KP_EINVAL, NULL, "one manifest document expected");
    m->seen = true;
    if (obj->type != KP_T_OBJ) return kp__dctx_fail(d, obj, KP_EINVAL, NULL, "expected an object");
    const char *api = NULL, *kind = NULL;
    const kp_tnode *watch = NULL;
    kp_status st;
    if ((st = kp__dget_str(d, obj, "apiVersion", &api, NULL)) != KP_OK ||
        (st = kp__dget_str(d, obj, "kind", &kind, NULL)) != KP_OK)
        return st;
    if (!api || strcmp(api, "kprio/v1alpha1") != 0)
        return kp__dctx_fail(d, obj, KP_EINVAL, "apiVersion", "expected \"kprio/v1alpha1\"");
    if (!kind || strcmp(kind, "Trace") != 0)
        return kp__dctx_fail(d, obj, KP_EINVAL, "kind", "expected \"Trace\"");
    if ((st = manifest_time(d, obj, "start", &x->start)) != KP_OK ||
        (st = manifest_time(d, obj, "end", &x->end)) != KP_OK ||
        (st = kp__dget_arr(d, obj, "watch", &watch)) != KP_OK)
        return st;
    if (x->end < x->start)
        return kp__dctx_fail(d, kp__tree_get(obj, "end"), KP_EINVAL, "end", "before start");
    /* the run starts no earlier than the snapshot's newest timestamp (kp_sim_new's rule): the
     * recording machine's clock and the API server's may differ by a few seconds */
    for (size_t i = 0; i < kp_cluster_pod_count(x->cl); i++) {
        kp_pod_info pi;
        if (kp_cluster_pod_info(x->cl, (kp_index)i, &pi) != KP_OK) continue;
        if (pi.creation_ts != KP_TIME_UNSET && pi.creation_ts > x->start) x->start = pi.creation_ts;
        if (pi.deletion_ts != KP_TIME_UNSET && pi.deletion_ts > x->start) x->start = pi.deletion_ts;
    }
    if (x->end < x->start) x->end = x->start;
    if (!watch) return kp__dctx_fail(d, obj, KP_EINVAL, "watch", "required (the watch files)");
    uint32_t i = 0;
    for (const kp_tnode *f = watch->first; f; f = f->next, i++)
        if (f->type != KP_T_STR || !f->len || f->s[0] == '/' || memchr(f->s, 0, f->len)) {
            size_t saved = kp__dctx_push(d, "watch");
            kp__dctx_push_index(d, i);
            kp_status r = kp__dctx_fail(d, f, KP_EINVAL, NULL,
                                        "expected a file name relative to the trace directory");
            kp__dctx_pop(d, saved);
            return r;
        }
    /* the kinds' order within one instant (kp__tact.rank) is the reading's: any order of files */
    for (const kp_tnode *f = watch->first; f; f = f->next) {
        char *p = join(m->dir, f->s);
        if (!p) return kp__sc_nomem(d);
        kp_dctx saved = *d;
        st = read_watch(x, p);
        kp__free(p);
        if (st != KP_OK) return st;
        *d = saved;
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- finishing */

static int key_cmp(const kp_trace_pod_key *a, const kp_trace_pod_key *b) {
    int c = strcmp(a->ns, b->ns);
    if (!c) c = strcmp(a->owner_kind, b->owner_kind);
    if (!c)
        c = strcmp(a->owner_kind[0] ? a->owner_name : a->name,
                   b->owner_kind[0] ? b->owner_name : b->name);
    if (!c) c = a->rank < b->rank ? -1 : a->rank > b->rank;
    return c;
}

static int dec_by_pod(const void *pa, const void *pb) {
    const kp_trace_decision *a = pa, *b = pb;
    int c = (int)a->kind - (int)b->kind;
    if (!c) c = key_cmp(&a->pod, &b->pod);
    if (!c) c = a->t_ms < b->t_ms ? -1 : a->t_ms > b->t_ms;
    return c;
}

static int dec_by_time(const void *pa, const void *pb) {
    const kp_trace_decision *a = pa, *b = pb;
    int c = a->t_ms < b->t_ms ? -1 : a->t_ms > b->t_ms;
    if (!c) c = (int)a->kind - (int)b->kind;
    if (!c) c = key_cmp(&a->pod, &b->pod);
    return c;
}

static int act_cmp(const void *pa, const void *pb) {
    const kp__tact *a = pa, *b = pb;
    if (a->a.at_ms != b->a.at_ms) return a->a.at_ms < b->a.at_ms ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Events name pods by uid: the pod's key as the pod watch made it (by name when the watch never
 * saw that uid); then one decision per pod and kind, the first. */
static kp_status finish(kp__tctx *x, kp_trace *tr) {
    kp_status st = kp__trace_owned_deletions(x);
    if (st != KP_OK) return st;
    size_t n = x->n_decs;
    kp_trace_decision *d = n ? kp__arena_alloc(&x->s->arena, n * sizeof *d) : NULL;
    if (n && !d) return kp__sc_nomem(&x->d);
    char key[400];
    for (size_t i = 0; i < n; i++) {
        d[i] = x->decs[i].d;
        if (!x->decs[i].uid[0]) continue;
        snprintf(key, sizeof key, "U\x1f%s", x->decs[i].uid);
        kp__tstate *s = kp__trace_state(x, key);
        if (!s) return kp__sc_nomem(&x->d);
        if (s->seen) d[i].pod = s->key;
    }
    if (n) qsort(d, n, sizeof *d, dec_by_pod);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || d[m - 1].kind != d[i].kind || key_cmp(&d[m - 1].pod, &d[i].pod) != 0)
            d[m++] = d[i];
    if (m) qsort(d, m, sizeof *d, dec_by_time);
    tr->decs = d;
    tr->n_decs = m;
    x->stats.decisions = m;
    if (x->n_acts) qsort(x->acts, x->n_acts, sizeof *x->acts, act_cmp);
    kp_scenario_action *acts =
        x->n_acts ? kp__arena_alloc(&x->s->arena, x->n_acts * sizeof *acts) : NULL;
    if (x->n_acts && !acts) return kp__sc_nomem(&x->d);
    for (size_t i = 0; i < x->n_acts; i++) acts[i] = x->acts[i].a;
    x->s->pub.actions = acts;
    x->s->pub.n_actions = x->n_acts;
    x->s->pub.has_duration = true;
    x->s->pub.duration_ms = (x->end - x->start) * 1000;
    if (x->s->pub.duration_ms <= 0) x->s->pub.duration_ms = 1;
    return KP_OK;
}

/* ---------------------------------------------------------------- public API */

kp_status kp_trace_load(const char *dir, const kp_cluster *cl, kp_trace **out, kp_error *err) {
    *out = NULL;
    kp_trace *tr = kp__calloc(1, sizeof *tr);
    scen *s = kp__calloc(1, sizeof *s);
    kp__tctx x;
    memset(&x, 0, sizeof x);
    x.d.err = err;
    char *mpath = NULL, *buf = NULL;
    size_t len = 0;
    kp_status st = KP_OK;
    if (!tr || !s) {
        kp__free(tr);
        kp__free(s);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    kp__arena_init(&s->arena);
    tr->s = s;
    x.s = s;
    x.cl = cl;
    if (!kp__intern_init(&x.keys, &s->arena) || !(x.scratch = kp_cluster_new()) ||
        !(s->pub.source = kp__sc_sdup(s, dir, strlen(dir))) ||
        !(mpath = join(dir, "manifest.json")))
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st == KP_OK) kp_cluster_set_expand(x.scratch, KP_WORKLOAD_TEMPLATES);
    if (st == KP_OK) st = kp__trace_snapshot_workloads(&x);
    if (st == KP_OK) st = kp__read_file(mpath, MANIFEST_MAX_BYTES, &buf, &len, err);
    if (st == KP_OK) {
        mctx m = {&x, dir, false};
        st = kp__tree_parse(mpath, buf, len, false, on_manifest, &m, err);
        if (st == KP_OK && !m.seen) st = kp_error_set(err, KP_EINVAL, "empty document");
        if (st != KP_OK && err && st != KP_ENOMEM && !err->source[0])
            snprintf(err->source, sizeof err->source, "%s", mpath);
    }
    if (st == KP_OK) st = finish(&x, tr);
    kp__free(buf);
    kp__free(mpath);
    kp__free(x.st);
    kp__free(x.acts);
    kp__free(x.decs);
    kp__free(x.dels);
    kp__free(x.text.p);
    kp__intern_fini(&x.keys);
    kp_cluster_free(x.scratch);
    if (st != KP_OK) {
        kp_trace_free(tr);
        return st;
    }
    tr->start = x.start;
    tr->end = x.end;
    tr->stats = x.stats;
    *out = tr;
    return KP_OK;
}

void kp_trace_free(kp_trace *tr) {
    if (!tr) return;
    if (tr->s) kp_scenario_free(&tr->s->pub);
    kp__free(tr);
}

int64_t kp_trace_start(const kp_trace *tr) { return tr->start; }
int64_t kp_trace_duration_ms(const kp_trace *tr) { return tr->s->pub.duration_ms; }
const kp_scenario *kp_trace_scenario(const kp_trace *tr) { return &tr->s->pub; }
void kp_trace_stats_get(const kp_trace *tr, kp_trace_stats *out) { *out = tr->stats; }
size_t kp_trace_decision_count(const kp_trace *tr) { return tr->n_decs; }
const kp_trace_decision *kp_trace_decision_get(const kp_trace *tr, size_t i) {
    return i < tr->n_decs ? &tr->decs[i] : NULL;
}
