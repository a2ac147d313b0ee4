/* The reference Summary API decoder over the value tree (io/tree.h): slow, but it reads every
 * member of the document, so it is what reports a bad summary. decode_summary.c parses from the
 * event stream and falls back to this decoder whenever it meets a problem, so a bad summary gets
 * exactly this decoder's diagnostics (first error in document order, field path, line/column). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/kubelet_config.h"
#include "core/summary.h"
#include "io/dctx.h"
#include "io/decode_summary_tree.h"
#include "io/summary_build.h"
#include "io/tree.h"

typedef struct {
    kp_dctx d;
    kp__ev_builder b;
    kp_evict_summary *s; /* &b.head */
    int n_docs;
} sctx;

static bool key_is(const kp_tnode *n, const char *k, size_t kl) {
    return n->key_len == kl && memcmp(n->key, k, kl) == 0;
}
#define KEY(n, lit) key_is((n), lit, sizeof(lit) - 1)

static kp_status fail_field(kp_dctx *d, const kp_tnode *n, const char *what) {
    char field[128];
    size_t kl = n->key_len < sizeof field - 1 ? n->key_len : sizeof field - 1;
    memcpy(field, n->key ? n->key : "", kl);
    field[kl] = 0;
    return kp__dctx_fail(d, n, KP_EINVAL, field, "%s", what);
}

/* Reads an unsigned integer member. *has bit set when present (null = absent). */
static kp_status get_u64(kp_dctx *d, const kp_tnode *n, uint64_t *out, uint8_t *has, uint8_t bit) {
    if (n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_NUM || n->len == 0) return fail_field(d, n, "expected an unsigned integer");
    uint64_t v = 0;
    for (uint32_t i = 0; i < n->len; i++) {
        char c = n->s[i];
        if (c < '0' || c > '9') return fail_field(d, n, "expected an unsigned integer");
        uint64_t dgt = (uint64_t)(c - '0');
        if (v > (UINT64_MAX - dgt) / 10) return fail_field(d, n, "value out of range for uint64");
        v = v * 10 + dgt;
    }
    *out = v;
    *has |= bit;
    return KP_OK;
}

static kp_status get_time(kp_dctx *d, const kp_tnode *n, int64_t *out) {
    if (n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_STR) return fail_field(d, n, "expected an RFC 3339 time string");
    int64_t secs;
    int32_t nanos;
    if (kp__parse_time(n->s, n->len, &secs, &nanos) != KP_OK ||
        secs > INT64_MAX / KP__NS_PER_SEC - 1 || secs < 0)
        return fail_field(d, n, "invalid RFC 3339 time");
    *out = secs * KP__NS_PER_SEC + nanos;
    return KP_OK;
}

static kp_status expect_obj(kp_dctx *d, const kp_tnode *n) {
    if (n->type != KP_T_OBJ) return fail_field(d, n, "expected an object");
    return KP_OK;
}

static kp_status parse_fs(kp_dctx *d, const kp_tnode *o, kp__ev_fs *fs) {
    if (o->type == KP_T_NULL) return KP_OK;
    kp_status st = expect_obj(d, o);
    if (st != KP_OK) return st;
    size_t saved = 0;
    char key[64];
    size_t kl = o->key_len < sizeof key - 1 ? o->key_len : sizeof key - 1;
    memcpy(key, o->key ? o->key : "", kl);
    key[kl] = 0;
    if (o->key) saved = kp__dctx_push(d, key);
    fs->has |= KP__EVF_PRESENT;
    for (const kp_tnode *c = o->first; c && st == KP_OK; c = c->next) {
        if (KEY(c, "time")) st = get_time(d, c, &fs->time_ns);
        else if (KEY(c, "availableBytes")) st = get_u64(d, c, &fs->avail, &fs->has, KP__EVF_AVAIL);
        else if (KEY(c, "capacityBytes")) st = get_u64(d, c, &fs->cap, &fs->has, KP__EVF_CAP);
        else if (KEY(c, "usedBytes")) st = get_u64(d, c, &fs->used, &fs->has, KP__EVF_USED);
        else if (KEY(c, "inodesFree"))
            st = get_u64(d, c, &fs->inodes_free, &fs->has, KP__EVF_IFREE);
        else if (KEY(c, "inodes")) st = get_u64(d, c, &fs->inodes, &fs->has, KP__EVF_INODES);
        else if (KEY(c, "inodesUsed"))
            st = get_u64(d, c, &fs->inodes_used, &fs->has, KP__EVF_IUSED);
    }
    if (st == KP_OK && o->key) kp__dctx_pop(d, saved);
    return st;
}

static kp_status parse_mem(kp_dctx *d, const kp_tnode *o, kp__ev_mem *m) {
    if (o->type == KP_T_NULL) return KP_OK;
    kp_status st = expect_obj(d, o);
    if (st != KP_OK) return st;
    size_t saved = kp__dctx_push(d, "memory");
    m->has |= KP__EVM_PRESENT;
    for (const kp_tnode *c = o->first; c && st == KP_OK; c = c->next) {
        if (KEY(c, "time")) st = get_time(d, c, &m->time_ns);
        else if (KEY(c, "availableBytes")) st = get_u64(d, c, &m->avail, &m->has, KP__EVM_AVAIL);
        else if (KEY(c, "usageBytes")) st = get_u64(d, c, &m->usage, &m->has, KP__EVM_USAGE);
        else if (KEY(c, "workingSetBytes")) st = get_u64(d, c, &m->ws, &m->has, KP__EVM_WS);
    }
    if (st == KP_OK) kp__dctx_pop(d, saved);
    return st;
}

static kp_status oom(sctx *x) { return kp_error_set(x->d.err, KP_ENOMEM, "out of memory"); }

/* a string member into the summary's strings; *has |= bit when present (has optional) */
static kp_status dup_str(sctx *x, const kp_tnode *n, uint32_t *off, uint32_t *len, uint8_t *has,
                         uint8_t bit) {
    if (n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_STR) return fail_field(&x->d, n, "expected a string");
    if (!kp__ev_build_str(&x->b, n->s, n->len, off)) return oom(x);
    *len = n->len;
    if (has) *has |= bit;
    return KP_OK;
}

/* a pod-side memory or filesystem object: decoded in full, its compact fields kept in rec */
static kp_status parse_sink(sctx *x, const kp_tnode *o, void *rec, kp__ev_sink k) {
    kp__ev_mem mem;
    kp__ev_fs fs;
    bool is_mem = k == KP__EVSINK_POD_MEM || k == KP__EVSINK_CONT_MEM;
    if (o->type == KP_T_NULL) return KP_OK;
    kp__ev_sink_load(k, rec, &mem, &fs);
    kp_status st = is_mem ? parse_mem(&x->d, o, &mem) : parse_fs(&x->d, o, &fs);
    if (st == KP_OK) kp__ev_sink_store(k, rec, &mem, &fs);
    return st;
}

static kp_status parse_container(sctx *x, const kp_tnode *o, kp__ev_cstats *cs) {
    kp_status st = KP_OK;
    for (const kp_tnode *c = o->first; c && st == KP_OK; c = c->next) {
        if (KEY(c, "name")) st = dup_str(x, c, &cs->name, &cs->name_len, &cs->has, KP__EVC_NAME);
        else if (KEY(c, "memory")) st = parse_sink(x, c, cs, KP__EVSINK_CONT_MEM);
        else if (KEY(c, "rootfs")) st = parse_sink(x, c, cs, KP__EVSINK_CONT_ROOT);
        else if (KEY(c, "logs")) st = parse_sink(x, c, cs, KP__EVSINK_CONT_LOGS);
    }
    return st;
}

/* The elements of array a appended to v (element size sz, each decoded by `each`); *first and
 * *count (optional) say where they are. */
static kp_status parse_array(sctx *x, const kp_tnode *a, kp__ev_vec *v, size_t sz, uint32_t *first,
                             uint32_t *count, kp_status (*each)(sctx *, const kp_tnode *, void *)) {
    if (a->type == KP_T_NULL) return KP_OK;
    if (a->type != KP_T_ARR) return fail_field(&x->d, a, "expected an array");
    char key[64];
    size_t kl = a->key_len < sizeof key - 1 ? a->key_len : sizeof key - 1;
    memcpy(key, a->key, kl);
    key[kl] = 0;
    size_t saved = kp__dctx_push(&x->d, key);
    uint32_t start = v->n, i = 0;
    for (const kp_tnode *e = a->first; e; e = e->next, i++) {
        size_t s2 = kp__dctx_push_index(&x->d, i);
        if (e->type != KP_T_OBJ)
            return kp__dctx_fail(&x->d, e, KP_EINVAL, NULL, "expected an object");
        void *el = kp__ev_build_push(&x->b, v, sz);
        if (!el) return oom(x);
        kp_status st = each(x, e, el);
        if (st != KP_OK) return st;
        kp__dctx_pop(&x->d, s2);
    }
    kp__dctx_pop(&x->d, saved);
    if (first) *first = start;
    if (count) *count = i;
    return KP_OK;
}

static kp_status each_container(sctx *x, const kp_tnode *o, void *out) {
    return parse_container(x, o, out);
}

static kp_status each_volume(sctx *x, const kp_tnode *o, void *out) {
    kp__ev_vstats *v = out;
    kp_status st = KP_OK;
    kp__ev_fs fs;
    kp__ev_sink_load(KP__EVSINK_VOL, v, NULL, &fs);
    for (const kp_tnode *c = o->first; c && st == KP_OK; c = c->next) {
        if (KEY(c, "name")) st = dup_str(x, c, &v->name, &v->name_len, &v->has, KP__EVV_NAME);
        else if (KEY(c, "time")) st = get_time(&x->d, c, &fs.time_ns);
        else if (KEY(c, "availableBytes"))
            st = get_u64(&x->d, c, &fs.avail, &fs.has, KP__EVF_AVAIL);
        else if (KEY(c, "capacityBytes")) st = get_u64(&x->d, c, &fs.cap, &fs.has, KP__EVF_CAP);
        else if (KEY(c, "usedBytes")) st = get_u64(&x->d, c, &fs.used, &fs.has, KP__EVF_USED);
        else if (KEY(c, "inodesFree"))
            st = get_u64(&x->d, c, &fs.inodes_free, &fs.has, KP__EVF_IFREE);
        else if (KEY(c, "inodes")) st = get_u64(&x->d, c, &fs.inodes, &fs.has, KP__EVF_INODES);
        else if (KEY(c, "inodesUsed"))
            st = get_u64(&x->d, c, &fs.inodes_used, &fs.has, KP__EVF_IUSED);
    }
    if (st == KP_OK) kp__ev_sink_store(KP__EVSINK_VOL, v, NULL, &fs);
    return st;
}

static kp_status each_pod(sctx *x, const kp_tnode *o, void *out) {
    kp__ev_pstats *p = out;
    kp_status st = KP_OK;
    for (const kp_tnode *c = o->first; c && st == KP_OK; c = c->next) {
        if (KEY(c, "podRef")) {
            if ((st = expect_obj(&x->d, c)) != KP_OK) break;
            size_t saved = kp__dctx_push(&x->d, "podRef");
            for (const kp_tnode *r = c->first; r && st == KP_OK; r = r->next) {
                if (KEY(r, "name")) st = dup_str(x, r, &p->name, &p->name_len, NULL, 0);
                else if (KEY(r, "namespace")) st = dup_str(x, r, &p->ns, &p->ns_len, NULL, 0);
                else if (KEY(r, "uid")) {
                    st = dup_str(x, r, &p->uid, &p->uid_len, NULL, 0);
                    if (st == KP_OK && r->type == KP_T_STR) p->uid_hash = kp__ev_hash(r->s, r->len);
                }
            }
            if (st == KP_OK) kp__dctx_pop(&x->d, saved);
        } else if (KEY(c, "memory")) {
            st = parse_sink(x, c, p, KP__EVSINK_POD_MEM);
        } else if (KEY(c, "ephemeral-storage")) {
            st = parse_sink(x, c, p, KP__EVSINK_POD_EPH);
        } else if (KEY(c, "process_stats")) {
            if (c->type == KP_T_NULL) continue;
            if ((st = expect_obj(&x->d, c)) != KP_OK) break;
            size_t saved = kp__dctx_push(&x->d, "process_stats");
            for (const kp_tnode *r = c->first; r && st == KP_OK; r = r->next) {
                uint8_t has = 0;
                if (KEY(r, "process_count")) {
                    st = get_u64(&x->d, r, &p->procs, &has, 1);
                    if (has) p->has |= KP__EVP_PROCS;
                }
            }
            if (st == KP_OK) kp__dctx_pop(&x->d, saved);
        } else if (KEY(c, "containers")) {
            /* p stays valid: only the container vector grows meanwhile */
            st = parse_array(x, c, &x->b.conts, sizeof(kp__ev_cstats), &p->c0, &p->n_containers,
                             each_container);
        } else if (KEY(c, "volume")) {
            st = parse_array(x, c, &x->b.vols, sizeof(kp__ev_vstats), &p->v0, &p->n_volumes,
                             each_volume);
        }
    }
    return st;
}

static kp_status parse_node(sctx *x, const kp_tnode *o) {
    kp_evict_summary *s = x->s;
    kp_status st = expect_obj(&x->d, o);
    if (st != KP_OK) return st;
    s->has_node = true;
    size_t saved = kp__dctx_push(&x->d, "node");
    for (const kp_tnode *c = o->first; c && st == KP_OK; c = c->next) {
        if (KEY(c, "nodeName")) {
            st = dup_str(x, c, &s->node_name, &s->node_name_len, NULL, 0);
        } else if (KEY(c, "memory")) {
            st = parse_mem(&x->d, c, &s->node_mem);
        } else if (KEY(c, "fs")) {
            st = parse_fs(&x->d, c, &s->node_fs);
        } else if (KEY(c, "cpu") && c->type == KP_T_OBJ) {
            const kp_tnode *t = kp__tree_get(c, "time");
            int64_t tm = 0;
            if (t) {
                size_t s2 = kp__dctx_push(&x->d, "cpu");
                st = get_time(&x->d, t, &tm);
                if (st == KP_OK) kp__dctx_pop(&x->d, s2);
            }
            kp__ev_summary_newest(s, tm);
        } else if (KEY(c, "runtime")) {
            if (c->type == KP_T_NULL) continue;
            if ((st = expect_obj(&x->d, c)) != KP_OK) break;
            size_t s2 = kp__dctx_push(&x->d, "runtime");
            for (const kp_tnode *r = c->first; r && st == KP_OK; r = r->next) {
                if (KEY(r, "imageFs")) st = parse_fs(&x->d, r, &s->imagefs);
                else if (KEY(r, "containerFs")) st = parse_fs(&x->d, r, &s->containerfs);
            }
            if (st == KP_OK) kp__dctx_pop(&x->d, s2);
        } else if (KEY(c, "rlimit")) {
            if (c->type == KP_T_NULL) continue;
            if ((st = expect_obj(&x->d, c)) != KP_OK) break;
            size_t s2 = kp__dctx_push(&x->d, "rlimit");
            s->has_rlimit = true;
            for (const kp_tnode *r = c->first; r && st == KP_OK; r = r->next) {
                uint8_t has = 0;
                uint64_t v = 0;
                if (KEY(r, "time")) st = get_time(&x->d, r, &s->rlimit_time_ns);
                else if (KEY(r, "maxpid")) {
                    st = get_u64(&x->d, r, &v, &has, 1);
                    if (has) {
                        s->has_maxpid = true;
                        s->maxpid = kp__ev_u2i(v);
                    }
                } else if (KEY(r, "curproc")) {
                    st = get_u64(&x->d, r, &v, &has, 1);
                    if (has) {
                        s->has_curproc = true;
                        s->curproc = kp__ev_u2i(v);
                    }
                }
            }
            if (st == KP_OK) kp__dctx_pop(&x->d, s2);
        } else if (KEY(c, "systemContainers")) {
            if (c->type == KP_T_NULL) continue;
            if (c->type != KP_T_ARR) {
                st = fail_field(&x->d, c, "expected an array");
                break;
            }
            size_t s2 = kp__dctx_push(&x->d, "systemContainers");
            uint32_t i = 0;
            for (const kp_tnode *e = c->first; e && st == KP_OK; e = e->next, i++) {
                size_t s3 = kp__dctx_push_index(&x->d, i);
                if (e->type != KP_T_OBJ) {
                    st = kp__dctx_fail(&x->d, e, KP_EINVAL, NULL, "expected an object");
                    break;
                }
                const kp_tnode *nm = kp__tree_get(e, "name");
                /* getSysContainer: the first entry named "pods" */
                if (!s->has_pods_container && nm && nm->type == KP_T_STR && nm->len == 4 &&
                    memcmp(nm->s, "pods", 4) == 0) {
                    s->has_pods_container = true;
                    const kp_tnode *mem = kp__tree_get(e, "memory");
                    if (mem) st = parse_mem(&x->d, mem, &s->pods_mem);
                }
                if (st == KP_OK) kp__dctx_pop(&x->d, s3);
            }
            if (st == KP_OK) kp__dctx_pop(&x->d, s2);
        }
    }
    if (st == KP_OK) kp__dctx_pop(&x->d, saved);
    return st;
}

static kp_status summary_cb(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    sctx *x = ctx;
    x->d.err = err;
    x->d.doc = doc;
    if (++x->n_docs > 1)
        return kp__dctx_fail(&x->d, obj, KP_EINVAL, NULL, "expected one Summary document");
    if (obj->type != KP_T_OBJ)
        return kp__dctx_fail(&x->d, obj, KP_EINVAL, NULL, "expected an object");
    /* not a Summary API document: a Kubernetes object (it has a kind), or no node stats */
    const kp_tnode *kind = kp__tree_get(obj, "kind");
    if (kind && kind->type == KP_T_STR)
        return kp__dctx_fail(&x->d, kind, KP_EINVAL, NULL,
                             "this is a %.*s, not a kubelet Summary API document (what kubectl "
                             "get --raw /api/v1/nodes/NODE/proxy/stats/summary prints)",
                             (int)(kind->len > 80 ? 80 : kind->len), kind->s);
    kp_status st = KP_OK;
    for (const kp_tnode *c = obj->first; c && st == KP_OK; c = c->next) {
        if (KEY(c, "node")) {
            if (c->type != KP_T_NULL) st = parse_node(x, c);
        } else if (KEY(c, "pods")) {
            if (c->type == KP_T_ARR)
                x->b.pods.n = 0; /* a repeated key replaces the earlier array */
            st = parse_array(x, c, &x->b.pods, sizeof(kp__ev_pstats), NULL, NULL, each_pod);
        }
    }
    if (st == KP_OK && !x->s->has_node)
        return kp__dctx_fail(&x->d, obj, KP_EINVAL, "node",
                             "missing: not a kubelet Summary API document (what kubectl get --raw "
                             "/api/v1/nodes/NODE/proxy/stats/summary prints)");
    return st;
}

kp_status kp__summary_decode_tree(const char *source, const char *buf, size_t len,
                                  kp_evict_summary **out, kp_error *err) {
    *out = NULL;
    sctx *x = kp__calloc(1, sizeof *x);
    if (!x) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp__ev_build_init(&x->b);
    x->s = &x->b.head;
    snprintf(x->d.object, sizeof x->d.object, "Summary");
    kp_status st = kp__tree_parse(source, buf, len, false, summary_cb, x, err);
    if (st == KP_OK && x->n_docs == 0) st = kp_error_set(err, KP_EINVAL, "empty summary document");
    kp_evict_summary *s = NULL;
    if (st == KP_OK && !(s = kp__ev_build_finish(&x->b)))
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    kp__ev_build_fini(&x->b);
    kp__free(x);
    if (st != KP_OK) {
        if (err && err->source[0] == 0) snprintf(err->source, sizeof err->source, "%s", source);
        return st;
    }
    kp__ev_summary_times(s);
    *out = s;
    return KP_OK;
}
