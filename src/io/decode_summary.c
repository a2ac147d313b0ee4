/* Summary API (/stats/summary, k8s.io/kubelet/pkg/apis/stats/v1alpha1) decoding into the compact
 * structs of core/summary.h. Only the fields eviction reads are kept; every numeric field is
 * optional (absent or null = not reported), as the Go types are pointers. Numbers must be
 * non-negative integers (Go decodes them into *uint64 / *int64).
 *
 * A direct consumer of the JSON / YAML event stream (io/events.h): a stack of frames tracks where
 * in the document the parser is (node.memory, pods[i].containers[j].rootfs, ...); every member
 * it does not read is skipped (the JSON back end steps over it without looking inside). Members
 * the reference decoder validates are still read (a number is checked even where its value is
 * not kept) so that this parser never accepts what that decoder rejects. No value tree is built
 * and the field path of an error is only spelt out when an error occurs.
 *
 * The kept form is compact (core/summary.h): pod-side objects are read into one scratch
 * kp__ev_mem / kp__ev_fs and only the fields eviction reads are stored; elements and strings
 * collect in the builder's scratch vectors (reused from element to element, not zeroed in bulk)
 * and are copied once into the summary's single allocation at the end.
 *
 * A summary this parser cannot take as is (a wrong type, a bad number or time, a syntax error,
 * not exactly one object document, ...) is handed to the reference decoder over the value tree
 * (decode_summary_tree.c), which reads every member and reports the problem exactly as before:
 * the first error in document order, "Summary: PATH: what", line and column. That decoder also
 * has the last word on such a document: the fast path only ever accepts what it accepts.
 *
 * One difference remains by design: a member this parser skips is not looked into, so a
 * malformed number or literal (or nesting beyond 128 levels) inside, say, node.network is not
 * reported; simdjson still validates the structure, strings and UTF-8 of the whole document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/kubelet_config.h"
#include "core/summary.h"
#include "io/dctx.h"
#include "io/decode_summary.h"
#include "io/decode_summary_tree.h"
#include "io/events.h"
#include "io/input.h"
#include "io/summary_build.h"

/* frame kinds: the containers whose members the parser reads */
enum {
    K_ROOT,
    K_NODE,
    K_MEM, /* kp__ev_mem */
    K_FS, /* kp__ev_fs */
    K_CPU, /* node.cpu: its first "time" */
    K_RUNTIME,
    K_RLIMIT,
    K_SYSCS, /* node.systemContainers[] */
    K_SYSC,
    K_PODS, /* pods[] */
    K_POD,
    K_PODREF,
    K_PROC, /* process_stats */
    K_CONTS, /* containers[] */
    K_CONT,
    K_VOLS, /* volume[] */
    K_VOL
};

/* what to do with the value of the member just announced */
enum {
    A_SKIP = 0,
    A_U64, /* u64 into *u64, has bit */
    A_TIME, /* time into *i64 */
    A_STR, /* string into *str / *len */
    A_UID, /* podRef.uid (+ hash) */
    A_MAXPID,
    A_CURPROC,
    A_PROCS,
    A_SYSNAME, /* systemContainers[i].name */
    A_OBJ, /* object -> frame `sub` (null allowed unless `strict`) */
    A_CPU, /* node.cpu: object -> K_CPU, anything else ignored */
    A_ARR /* array -> frame `sub` (null allowed) */
};

typedef struct {
    uint8_t kind;
    const char *name; /* path component ("memory"), NULL for an array element */
    uint32_t index; /* element: its index; array: elements so far */
    void *t; /* K_MEM: kp__ev_mem, K_FS: kp__ev_fs, K_POD: kp__ev_pstats ... */
    void *rec; /* K_MEM / K_FS / K_VOL of a pod-side record: the record the object's */
    int8_t sink; /* compact fields go to (kp__ev_sink), -1 for node-level objects */
    /* K_SYSC: 0 name not seen yet, 1 the pods container, 2 another container */
    uint8_t sys_state;
    bool name_seen, mem_seen, mem_deferred; /* memory read (into sys_tmp) before the name */
    /* K_CPU */
    bool time_seen;
    int64_t tm;
} frame;

#define MAX_FRAMES 16

typedef struct {
    uint8_t act, sub;
    bool strict; /* A_OBJ: null is an error too (podRef) */
    int8_t sink; /* A_OBJ: kp__ev_sink of a pod-side object, -1 none */
    const char *name;
    void *p; /* target */
    uint8_t *has; /* A_U64, A_STR (optional): has byte, bit */
    uint8_t bit;
    uint32_t *lenp; /* A_STR: length (p: the string's offset) */
} member;

typedef struct {
    kp__ev_builder b;
    kp_evict_summary *s; /* &b.head: node-level fields */
    bool failed; /* not for the fast path: the reference decoder takes over */
    kp__ev_mem sys_tmp; /* systemContainers[i].memory read before its name */
    kp__ev_mem tmp_mem; /* the pod-side memory object being read (they never nest) */
    kp__ev_fs tmp_fs; /* the pod-side filesystem object or volume being read */

    frame f[MAX_FRAMES];
    int depth; /* frames in use (0 = outside the root) */
    member m; /* pending member (object frames) */
    bool have_member;
    bool skip_pending;
    int skip_depth;

    int n_docs; /* object documents seen */
    int root_ev; /* event that opened the current document's root (-1: none yet) */
} sctx;

/* ---------------------------------------------------------------- scalars */

/* u64 member value (a non-negative integer); false = absent (null) or not acceptable */
static bool get_u64(sctx *x, kp_ev ev, const char *s, size_t len, uint64_t *out) {
    if (ev == KP_EV_NULL) return false;
    if (ev != KP_EV_NUM || len == 0) {
        x->failed = true;
        return false;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        uint64_t dgt = (uint64_t)(c - '0');
        if (c < '0' || c > '9' || v > (UINT64_MAX - dgt) / 10) {
            x->failed = true;
            return false;
        }
        v = v * 10 + dgt;
    }
    *out = v;
    return true;
}

static void get_time(sctx *x, kp_ev ev, const char *s, size_t len, int64_t *out) {
    if (ev == KP_EV_NULL) return;
    int64_t secs;
    int32_t nanos;
    if (ev != KP_EV_STR || kp__parse_time(s, len, &secs, &nanos) != KP_OK ||
        secs > INT64_MAX / KP__NS_PER_SEC - 1 || secs < 0) {
        x->failed = true;
        return;
    }
    *out = secs * KP__NS_PER_SEC + nanos;
}

static bool get_str(sctx *x, kp_ev ev, const char *s, size_t len, uint32_t *off, uint32_t *olen) {
    if (ev == KP_EV_NULL) return false;
    if (ev != KP_EV_STR || len > UINT32_MAX - 1) {
        x->failed = true;
        return false;
    }
    if (!kp__ev_build_str(&x->b, s, len, off)) return false;
    *olen = (uint32_t)len;
    return true;
}

/* ---------------------------------------------------------------- members */

#define KEYIS(lit) (len == sizeof(lit) - 1 && memcmp(s, lit, sizeof(lit) - 1) == 0)

static void m_set(member *m, uint8_t act, const char *name, void *p) {
    m->act = act;
    m->name = name;
    m->p = p;
    m->strict = false;
    m->sink = -1;
    m->has = NULL;
}

static void m_str(member *m, const char *name, uint32_t *off, uint32_t *len, uint8_t *has,
                  uint8_t bit) {
    m_set(m, A_STR, name, off);
    m->lenp = len;
    m->has = has;
    m->bit = bit;
}

static void m_u64(member *m, const char *name, uint64_t *p, uint8_t *has, uint8_t bit) {
    m_set(m, A_U64, name, p);
    m->has = has;
    m->bit = bit;
}

static void m_obj(member *m, uint8_t act, uint8_t sub, const char *name, void *p) {
    m_set(m, act, name, p);
    m->sub = sub;
}

/* a pod-side memory or filesystem object of record rec */
static void m_sink(member *m, uint8_t sub, const char *name, void *rec, kp__ev_sink sink) {
    m_obj(m, A_OBJ, sub, name, rec);
    m->sink = (int8_t)sink;
}

static void fs_member(member *m, kp__ev_fs *fs, const char *s, size_t len) {
    switch (len) {
    case 4:
        if (KEYIS("time")) m_set(m, A_TIME, "time", &fs->time_ns);
        break;
    case 6:
        if (KEYIS("inodes")) m_u64(m, "inodes", &fs->inodes, &fs->has, KP__EVF_INODES);
        break;
    case 9:
        if (KEYIS("usedBytes")) m_u64(m, "usedBytes", &fs->used, &fs->has, KP__EVF_USED);
        break;
    case 10:
        if (KEYIS("inodesFree")) m_u64(m, "inodesFree", &fs->inodes_free, &fs->has, KP__EVF_IFREE);
        else if (KEYIS("inodesUsed"))
            m_u64(m, "inodesUsed", &fs->inodes_used, &fs->has, KP__EVF_IUSED);
        break;
    case 13:
        if (KEYIS("capacityBytes")) m_u64(m, "capacityBytes", &fs->cap, &fs->has, KP__EVF_CAP);
        break;
    case 14:
        if (KEYIS("availableBytes"))
            m_u64(m, "availableBytes", &fs->avail, &fs->has, KP__EVF_AVAIL);
        break;
    default: break;
    }
}

static void mem_member(member *m, kp__ev_mem *mem, const char *s, size_t len) {
    if (KEYIS("time")) m_set(m, A_TIME, "time", &mem->time_ns);
    else if (KEYIS("availableBytes"))
        m_u64(m, "availableBytes", &mem->avail, &mem->has, KP__EVM_AVAIL);
    else if (KEYIS("usageBytes")) m_u64(m, "usageBytes", &mem->usage, &mem->has, KP__EVM_USAGE);
    else if (KEYIS("workingSetBytes")) m_u64(m, "workingSetBytes", &mem->ws, &mem->has, KP__EVM_WS);
}

/* Sets x->m for key s in the innermost frame (A_SKIP: not read). */
static void on_key(sctx *x, const char *s, size_t len) {
    frame *f = &x->f[x->depth - 1];
    member *m = &x->m;
    kp_evict_summary *sum = x->s;
    m->act = A_SKIP;
    switch (f->kind) {
    case K_ROOT:
        if (KEYIS("node")) m_obj(m, A_OBJ, K_NODE, "node", NULL);
        else if (KEYIS("pods")) m_obj(m, A_ARR, K_PODS, "pods", NULL);
        else if (KEYIS("kind")) x->failed = true; /* a Kubernetes object: the tree words it */
        break;
    case K_NODE:
        if (KEYIS("nodeName")) m_str(m, "nodeName", &sum->node_name, &sum->node_name_len, NULL, 0);
        else if (KEYIS("memory")) m_obj(m, A_OBJ, K_MEM, "memory", &sum->node_mem);
        else if (KEYIS("fs")) m_obj(m, A_OBJ, K_FS, "fs", &sum->node_fs);
        else if (KEYIS("cpu")) m_obj(m, A_CPU, K_CPU, "cpu", NULL);
        else if (KEYIS("runtime")) m_obj(m, A_OBJ, K_RUNTIME, "runtime", NULL);
        else if (KEYIS("rlimit")) m_obj(m, A_OBJ, K_RLIMIT, "rlimit", NULL);
        else if (KEYIS("systemContainers")) m_obj(m, A_ARR, K_SYSCS, "systemContainers", NULL);
        break;
    case K_MEM: mem_member(m, f->t, s, len); break;
    case K_FS: fs_member(m, f->t, s, len); break;
    case K_VOL: {
        kp__ev_vstats *v = f->rec;
        if (KEYIS("name")) m_str(m, "name", &v->name, &v->name_len, &v->has, KP__EVV_NAME);
        else fs_member(m, f->t, s, len);
        break;
    }
    case K_CPU:
        if (!f->time_seen && KEYIS("time")) {
            f->time_seen = true;
            m_set(m, A_TIME, "time", &f->tm);
        }
        break;
    case K_RUNTIME:
        if (KEYIS("imageFs")) m_obj(m, A_OBJ, K_FS, "imageFs", &sum->imagefs);
        else if (KEYIS("containerFs")) m_obj(m, A_OBJ, K_FS, "containerFs", &sum->containerfs);
        break;
    case K_RLIMIT:
        if (KEYIS("time")) m_set(m, A_TIME, "time", &sum->rlimit_time_ns);
        else if (KEYIS("maxpid")) m_set(m, A_MAXPID, "maxpid", NULL);
        else if (KEYIS("curproc")) m_set(m, A_CURPROC, "curproc", NULL);
        break;
    case K_SYSC:
        /* getSysContainer reads the first "name" and, for the first container named "pods",
         * its first "memory" */
        if (KEYIS("name")) {
            if (!f->name_seen) {
                f->name_seen = true;
                m_set(m, A_SYSNAME, "name", NULL);
            }
        } else if (KEYIS("memory") && !f->mem_seen) {
            f->mem_seen = true;
            if (f->sys_state == 1) {
                m_obj(m, A_OBJ, K_MEM, "memory", &sum->pods_mem);
            } else if (f->sys_state == 0) {
                memset(&x->sys_tmp, 0, sizeof x->sys_tmp);
                f->mem_deferred = true;
                m_obj(m, A_OBJ, K_MEM, "memory", &x->sys_tmp);
            }
        }
        break;
    case K_POD: {
        kp__ev_pstats *p = f->t;
        if (KEYIS("podRef")) {
            m_obj(m, A_OBJ, K_PODREF, "podRef", p);
            m->strict = true;
        } else if (KEYIS("memory")) {
            m_sink(m, K_MEM, "memory", p, KP__EVSINK_POD_MEM);
        } else if (KEYIS("ephemeral-storage")) {
            m_sink(m, K_FS, "ephemeral-storage", p, KP__EVSINK_POD_EPH);
        } else if (KEYIS("process_stats")) {
            m_obj(m, A_OBJ, K_PROC, "process_stats", p);
        } else if (KEYIS("containers")) {
            m_obj(m, A_ARR, K_CONTS, "containers", p);
        } else if (KEYIS("volume")) {
            m_obj(m, A_ARR, K_VOLS, "volume", p);
        }
        break;
    }
    case K_PODREF: {
        kp__ev_pstats *p = f->t;
        if (KEYIS("name")) {
            m_str(m, "name", &p->name, &p->name_len, NULL, 0);
        } else if (KEYIS("namespace")) {
            m_str(m, "namespace", &p->ns, &p->ns_len, NULL, 0);
        } else if (KEYIS("uid")) {
            m_set(m, A_UID, "uid", p);
        }
        break;
    }
    case K_PROC:
        if (KEYIS("process_count")) m_set(m, A_PROCS, "process_count", f->t);
        break;
    case K_CONT: {
        kp__ev_cstats *c = f->t;
        if (KEYIS("name")) {
            m_str(m, "name", &c->name, &c->name_len, &c->has, KP__EVC_NAME);
        } else if (KEYIS("memory")) {
            m_sink(m, K_MEM, "memory", c, KP__EVSINK_CONT_MEM);
        } else if (KEYIS("rootfs")) {
            m_sink(m, K_FS, "rootfs", c, KP__EVSINK_CONT_ROOT);
        } else if (KEYIS("logs")) {
            m_sink(m, K_FS, "logs", c, KP__EVSINK_CONT_LOGS);
        }
        break;
    }
    default: break;
    }
}

/* ---------------------------------------------------------------- frames */

static frame *push(sctx *x, uint8_t kind, const char *name, void *t) {
    if (x->depth >= MAX_FRAMES) return NULL; /* cannot happen: the frame kinds nest < 8 deep */
    frame *f = &x->f[x->depth++];
    /* field by field: a memset here compiles to `rep stos`, slow to start, once per object */
    f->kind = kind;
    f->name = name;
    f->index = 0;
    f->t = t;
    f->rec = NULL;
    f->sink = -1;
    f->sys_state = 0;
    f->name_seen = f->mem_seen = f->mem_deferred = f->time_seen = false;
    f->tm = 0;
    if (kind == K_NODE) x->s->has_node = true;
    return f;
}

/* an element of the array frame f begins (ev: its first event) */
static void element(sctx *x, frame *arr, kp_ev ev) {
    uint32_t i = arr->index++;
    if (ev != KP_EV_OBJ_BEGIN) {
        x->failed = true;
        return;
    }
    void *t = NULL, *rec = NULL;
    uint8_t kind;
    switch (arr->kind) {
    case K_PODS:
        kind = K_POD;
        t = kp__ev_build_push(&x->b, &x->b.pods, sizeof(kp__ev_pstats));
        break;
    case K_CONTS:
        kind = K_CONT;
        t = kp__ev_build_push(&x->b, &x->b.conts, sizeof(kp__ev_cstats));
        break;
    case K_VOLS:
        /* the volume's own members are filesystem stats: read into tmp_fs */
        kind = K_VOL;
        rec = kp__ev_build_push(&x->b, &x->b.vols, sizeof(kp__ev_vstats));
        t = &x->tmp_fs;
        if (rec) kp__ev_sink_load(KP__EVSINK_VOL, rec, NULL, &x->tmp_fs);
        break;
    default: kind = K_SYSC; break;
    }
    if (x->b.oom) return;
    frame *f = push(x, kind, NULL, t);
    if (f) {
        f->index = i;
        if (rec) {
            f->rec = rec;
            f->sink = KP__EVSINK_VOL;
        }
    }
}

/* the value of member x->m (ev: its first event) */
static void value(sctx *x, kp_ev ev, const char *s, size_t len) {
    member *m = &x->m;
    kp_evict_summary *sum = x->s;
    bool begin = ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN;
    switch (m->act) {
    case A_U64: {
        uint64_t v;
        if (get_u64(x, ev, s, len, &v)) {
            *(uint64_t *)m->p = v;
            *m->has |= m->bit;
        }
        break;
    }
    case A_MAXPID:
    case A_CURPROC:
    case A_PROCS: {
        uint64_t v;
        if (!get_u64(x, ev, s, len, &v)) break;
        if (m->act == A_MAXPID) {
            sum->has_maxpid = true;
            sum->maxpid = kp__ev_u2i(v);
        } else if (m->act == A_CURPROC) {
            sum->has_curproc = true;
            sum->curproc = kp__ev_u2i(v);
        } else {
            kp__ev_pstats *p = m->p;
            p->procs = v;
            p->has |= KP__EVP_PROCS;
        }
        break;
    }
    case A_TIME: get_time(x, ev, s, len, m->p); break;
    case A_STR:
        if (get_str(x, ev, s, len, m->p, m->lenp) && m->has) *m->has |= m->bit;
        break;
    case A_UID: {
        kp__ev_pstats *p = m->p;
        if (get_str(x, ev, s, len, &p->uid, &p->uid_len)) p->uid_hash = kp__ev_hash(s, len);
        break;
    }
    case A_SYSNAME: {
        frame *f = &x->f[x->depth - 1];
        bool pods = ev == KP_EV_STR && len == 4 && memcmp(s, "pods", 4) == 0;
        if (pods && !sum->has_pods_container) {
            f->sys_state = 1;
            if (!f->mem_deferred) sum->has_pods_container = true; /* else at the element's end */
        } else {
            f->sys_state = 2;
        }
        break;
    }
    case A_CPU:
        if (ev == KP_EV_OBJ_BEGIN) {
            (void)push(x, K_CPU, "cpu", NULL);
            return;
        }
        break;
    case A_OBJ:
        if (ev == KP_EV_OBJ_BEGIN) {
            void *t = m->p;
            if (m->sink >= 0) { /* pod-side: read into the scratch object, kept at its end */
                t = m->sub == K_MEM ? (void *)&x->tmp_mem : (void *)&x->tmp_fs;
                kp__ev_sink_load((kp__ev_sink)m->sink, m->p, &x->tmp_mem, &x->tmp_fs);
            }
            frame *f = push(x, m->sub, m->name, t);
            if (f && m->sink >= 0) {
                f->rec = m->p;
                f->sink = m->sink;
            }
            if (m->sub == K_MEM) ((kp__ev_mem *)t)->has |= KP__EVM_PRESENT;
            else if (m->sub == K_FS) ((kp__ev_fs *)t)->has |= KP__EVF_PRESENT;
            else if (m->sub == K_RLIMIT) sum->has_rlimit = true;
            return;
        }
        if (ev == KP_EV_NULL && !m->strict) break;
        x->failed = true;
        break;
    case A_ARR:
        if (ev == KP_EV_ARR_BEGIN) {
            /* a repeated key replaces the earlier array (its elements stay unreferenced) */
            frame *f = push(x, m->sub, m->name, m->p);
            if (f && m->sub == K_PODS) x->b.pods.n = 0;
            else if (f && m->sub == K_CONTS) ((kp__ev_pstats *)m->p)->c0 = x->b.conts.n;
            else if (f && m->sub == K_VOLS) ((kp__ev_pstats *)m->p)->v0 = x->b.vols.n;
            return;
        }
        if (ev == KP_EV_NULL) break;
        x->failed = true;
        break;
    default: break;
    }
    if (begin) x->skip_depth = 1; /* a container where a scalar was wanted (or ignored) */
}

/* the innermost frame ends */
static void pop(sctx *x) {
    frame *f = &x->f[--x->depth];
    kp_evict_summary *sum = x->s;
    if (f->sink >= 0) kp__ev_sink_store((kp__ev_sink)f->sink, f->rec, &x->tmp_mem, &x->tmp_fs);
    switch (f->kind) {
    case K_CPU: kp__ev_summary_newest(sum, f->tm); break;
    case K_CONTS: {
        kp__ev_pstats *p = f->t;
        p->n_containers = x->b.conts.n - p->c0;
        break;
    }
    case K_VOLS: {
        kp__ev_pstats *p = f->t;
        p->n_volumes = x->b.vols.n - p->v0;
        break;
    }
    case K_SYSC:
        if (f->mem_deferred && f->sys_state == 1) {
            /* the pods container, its memory read before its name */
            sum->has_pods_container = true;
            sum->pods_mem = x->sys_tmp;
        }
        break;
    default: break;
    }
}

/* ---------------------------------------------------------------- events */

static int on_event(void *ctx, kp_ev ev, const char *s, size_t len, uint64_t off) {
    sctx *x = ctx;
    (void)off;
    if (x->skip_depth > 0) {
        if (ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN) x->skip_depth++;
        else if (ev == KP_EV_OBJ_END || ev == KP_EV_ARR_END) x->skip_depth--;
        return 0;
    }
    if (x->skip_pending) {
        x->skip_pending = false;
        if (ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN) {
            x->skip_depth = 1;
            return 0;
        }
        if (ev != KP_EV_KEY && ev != KP_EV_OBJ_END) return 0; /* a skipped scalar (YAML) */
        /* the JSON back end already stepped over the value */
    }
    switch (ev) {
    case KP_EV_DOC_BEGIN:
        x->depth = 0;
        x->root_ev = -1;
        x->have_member = false;
        return 0;
    case KP_EV_DOC_END:
        /* one object document (an empty YAML document, e.g. a trailing ---, is a null root) */
        if (x->root_ev == KP_EV_OBJ_BEGIN && ++x->n_docs > 1) return -1;
        if (x->root_ev >= 0 && x->root_ev != KP_EV_OBJ_BEGIN && x->root_ev != KP_EV_ARR_BEGIN &&
            x->root_ev != KP_EV_NULL)
            return -1;
        return 0;
    case KP_EV_KEY:
        /* Skipped members are still checked by the JSON back end: the kubelet's decoder
         * (encoding/json) rejects a malformed document wherever the error is, and so does the
         * reference decoder this one must agree with. */
        if (x->depth == 0) return KP_EV_SKIP_CHECKED;
        on_key(x, s, len);
        if (x->m.act == A_SKIP) {
            x->skip_pending = true;
            return KP_EV_SKIP_CHECKED;
        }
        x->have_member = true;
        return 0;
    case KP_EV_OBJ_END:
    case KP_EV_ARR_END:
        if (x->depth > 0) pop(x);
        return x->b.oom || x->failed ? -1 : 0;
    default: break;
    }
    /* a value: the document's root, an array element, or a member's value */
    if (x->depth == 0) {
        x->root_ev = (int)ev;
        if (ev == KP_EV_OBJ_BEGIN && x->n_docs == 0) (void)push(x, K_ROOT, NULL, NULL);
        else if (ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN) x->skip_depth = 1;
        return 0;
    }
    frame *f = &x->f[x->depth - 1];
    if (f->kind == K_PODS || f->kind == K_CONTS || f->kind == K_VOLS || f->kind == K_SYSCS) {
        element(x, f, ev);
        return x->b.oom || x->failed ? -1 : 0;
    }
    if (!x->have_member) { /* cannot happen: every value in an object follows its key */
        if (ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN) x->skip_depth = 1;
        return 0;
    }
    x->have_member = false;
    value(x, ev, s, len);
    return x->b.oom || x->failed ? -1 : 0;
}

kp_status kp__summary_decode_events(const char *buf, size_t len, kp_evict_summary **out) {
    *out = NULL;
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
    sctx *x = kp__calloc(1, sizeof *x);
    if (!x) return KP_ENOMEM;
    kp__ev_build_init(&x->b);
    x->s = &x->b.head;
    char msg[256] = "";
    uint64_t eoff = 0;
    int rc = -1; /* empty input: the reference decoder words the error */
    /* JSON only (what the kubelet serves): a YAML summary goes to the tree decoder, which holds
     * YAML's rules (duplicate keys are an error in every mapping) in one place */
    if (i < len && (buf[i] == '{' || buf[i] == '['))
        rc = kp__json_events(buf, len, on_event, x, msg, sizeof msg, &eoff);
    /* not a Summary (no node object): the reference decoder words the error */
    bool ok = rc == 0 && !x->failed && !x->b.oom && x->n_docs == 1 && x->s->has_node;
    bool oom = x->b.oom;
    kp_evict_summary *s = ok ? kp__ev_build_finish(&x->b) : NULL;
    if (ok && !s) oom = true;
    kp__ev_build_fini(&x->b);
    kp__free(x);
    if (oom) return KP_ENOMEM;
    if (!s) return KP_EINVAL;
    kp__ev_summary_times(s);
    *out = s;
    return KP_OK;
}

kp_status kp__summary_load_padded(const char *source, const char *buf, size_t len,
                                  kp_evict_summary **out, kp_error *err) {
    kp_status st = kp__summary_decode_events(buf, len, out);
    if (st == KP_ENOMEM) return kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st != KP_OK) return kp__summary_decode_tree(source, buf, len, out, err);
    return KP_OK;
}

/* The caller's bytes carry no padding contract: one copy with the decoder's zeroed tail. */
kp_status kp_evict_summary_load_buffer(const char *source, const char *buf, size_t len,
                                       kp_evict_summary **out, kp_error *err) {
    *out = NULL;
    char *copy = kp__malloc(len + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    if (len) memcpy(copy, buf, len);
    memset(copy + len, 0, KP_JSON_PADDING);
    kp_status st = kp__summary_load_padded(source, copy, len, out, err);
    kp__free(copy);
    return st;
}

kp_status kp_evict_summary_load_path(const char *path, kp_evict_summary **out, kp_error *err) {
    char *buf = NULL;
    size_t len = 0;
    *out = NULL;
    kp_status st = kp__read_file(path, KP_SUMMARY_MAX_BYTES, &buf, &len, err);
    if (st != KP_OK) return st;
    st = kp__summary_load_padded(path, buf, len, out, err);
    kp__free(buf);
    return st;
}
