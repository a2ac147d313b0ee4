/* Summary API (/stats/summary, k8s.io/kubelet/pkg/apis/stats/v1alpha1) decoding into the compact
 * structs of evict_types.h. Only the fields eviction reads are kept; every numeric field is
 * optional (absent or null = not reported), as the Go types are pointers. Numbers must be
 * non-negative integers (Go decodes them into *uint64 / *int64).
 *
 * A direct consumer of the JSON / YAML event stream (io/events.h): a stack of frames tracks where
 * in the document the parser is (node.memory, pods[i].containers[j].rootfs, ...); every member
 * it does not read is skipped (the JSON back end steps over it without looking inside). No value
 * tree is built and the field path of an error is only spelt out when an error occurs.
 *
 * A summary this parser cannot take as is (a wrong type, a bad number or time, a syntax error,
 * not exactly one object document, ...) is handed to the reference decoder over the value tree
 * (evict_summary_tree.c), which reads every member and reports the problem exactly as before:
 * the first error in document order, "Summary: PATH: what", line and column. That decoder also
 * has the last word on such a document: the fast path only ever accepts what it accepts.
 *
 * One difference remains by design: a member this parser skips is not looked into, so a
 * malformed number or literal (or nesting beyond 128 levels) inside, say, node.network is not
 * reported; simdjson still validates the structure, strings and UTF-8 of the whole document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/events.h"
#include "io/tree.h"
#include "kubelet/evict_summary_tree.h"
#include "kubelet/evict_types.h"

/* frame kinds: the containers whose members the parser reads */
enum {
    K_ROOT,
    K_NODE,
    K_MEM,     /* kp__ev_mem */
    K_FS,      /* kp__ev_fs */
    K_CPU,     /* node.cpu: its first "time" */
    K_RUNTIME,
    K_RLIMIT,
    K_SYSCS,   /* node.systemContainers[] */
    K_SYSC,
    K_PODS,    /* pods[] */
    K_POD,
    K_PODREF,
    K_PROC,    /* process_stats */
    K_CONTS,   /* containers[] */
    K_CONT,
    K_VOLS,    /* volume[] */
    K_VOL
};

/* what to do with the value of the member just announced */
enum {
    A_SKIP = 0,
    A_U64,     /* u64 into *u64, has bit */
    A_TIME,    /* time into *i64 */
    A_STR,     /* string into *str / *len */
    A_UID,     /* podRef.uid (+ hash) */
    A_MAXPID,
    A_CURPROC,
    A_PROCS,
    A_SYSNAME, /* systemContainers[i].name */
    A_OBJ,     /* object -> frame `sub` (null allowed unless `strict`) */
    A_CPU,     /* node.cpu: object -> K_CPU, anything else ignored */
    A_ARR      /* array -> frame `sub` (null allowed) */
};

typedef struct {
    uint8_t kind;
    const char *name; /* path component ("memory"), NULL for an array element */
    uint32_t index;   /* element: its index; array: elements so far */
    void *t;          /* K_MEM: kp__ev_mem, K_FS / K_VOL: kp__ev_fs (K_VOL: kp__ev_vstats) ... */
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
    const char *name;
    void *p;      /* target */
    uint8_t *has; /* A_U64: has byte, bit */
    uint8_t bit;
    uint32_t *lenp; /* A_STR: length */
} member;

/* growable scratch vector; copied into the arena when its array ends */
typedef struct {
    char *p;
    uint32_t n, cap;
} vec;

typedef struct {
    kp_evict_summary *s;
    bool failed;        /* not for the fast path: the reference decoder takes over */
    kp__ev_mem sys_tmp; /* systemContainers[i].memory read before its name */

    frame f[MAX_FRAMES];
    int depth;          /* frames in use (0 = outside the root) */
    member m;           /* pending member (object frames) */
    bool have_member;
    bool skip_pending;
    int skip_depth;

    int n_docs;         /* object documents seen */
    int root_ev;        /* event that opened the current document's root (-1: none yet) */
    bool oom;
    vec pods, conts, vols;
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

static bool get_str(sctx *x, kp_ev ev, const char *s, size_t len, const char **out, uint32_t *olen) {
    if (ev == KP_EV_NULL) return false;
    if (ev != KP_EV_STR) {
        x->failed = true;
        return false;
    }
    char *p = kp__arena_dup(&x->s->arena, s, len); /* NUL-terminated, not zeroed first */
    if (!p) {
        x->oom = true;
        return false;
    }
    *out = p;
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
        else if (KEYIS("inodesUsed")) m_u64(m, "inodesUsed", &fs->inodes_used, &fs->has, KP__EVF_IUSED);
        break;
    case 13:
        if (KEYIS("capacityBytes")) m_u64(m, "capacityBytes", &fs->cap, &fs->has, KP__EVF_CAP);
        break;
    case 14:
        if (KEYIS("availableBytes")) m_u64(m, "availableBytes", &fs->avail, &fs->has, KP__EVF_AVAIL);
        break;
    default: break;
    }
}

static void mem_member(member *m, kp__ev_mem *mem, const char *s, size_t len) {
    if (KEYIS("time")) m_set(m, A_TIME, "time", &mem->time_ns);
    else if (KEYIS("availableBytes")) m_u64(m, "availableBytes", &mem->avail, &mem->has, KP__EVM_AVAIL);
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
        break;
    case K_NODE:
        if (KEYIS("memory")) m_obj(m, A_OBJ, K_MEM, "memory", &sum->node_mem);
        else if (KEYIS("fs")) m_obj(m, A_OBJ, K_FS, "fs", &sum->node_fs);
        else if (KEYIS("cpu")) m_obj(m, A_CPU, K_CPU, "cpu", NULL);
        else if (KEYIS("runtime")) m_obj(m, A_OBJ, K_RUNTIME, "runtime", NULL);
        else if (KEYIS("rlimit")) m_obj(m, A_OBJ, K_RLIMIT, "rlimit", NULL);
        else if (KEYIS("systemContainers")) m_obj(m, A_ARR, K_SYSCS, "systemContainers", NULL);
        break;
    case K_MEM: mem_member(m, f->t, s, len); break;
    case K_FS: fs_member(m, f->t, s, len); break;
    case K_VOL: {
        kp__ev_vstats *v = f->t;
        if (KEYIS("name")) {
            m_set(m, A_STR, "name", &v->name);
            m->lenp = &v->name_len;
        } else {
            fs_member(m, &v->fs, s, len);
        }
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
            m_obj(m, A_OBJ, K_MEM, "memory", &p->mem);
        } else if (KEYIS("ephemeral-storage")) {
            m_obj(m, A_OBJ, K_FS, "ephemeral-storage", &p->eph);
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
            m_set(m, A_STR, "name", &p->name);
            m->lenp = &p->name_len;
        } else if (KEYIS("namespace")) {
            m_set(m, A_STR, "namespace", &p->ns);
            m->lenp = &p->ns_len;
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
            m_set(m, A_STR, "name", &c->name);
            m->lenp = &c->name_len;
        } else if (KEYIS("memory")) {
            m_obj(m, A_OBJ, K_MEM, "memory", &c->mem);
        } else if (KEYIS("rootfs")) {
            m_obj(m, A_OBJ, K_FS, "rootfs", &c->rootfs);
        } else if (KEYIS("logs")) {
            m_obj(m, A_OBJ, K_FS, "logs", &c->logs);
        }
        break;
    }
    default: break;
    }
}

/* ---------------------------------------------------------------- frames */

static void *vec_push(sctx *x, vec *v, size_t sz) {
    if (v->n == v->cap) {
        uint32_t ncap = v->cap ? v->cap * 2 : 16;
        char *np = realloc(v->p, (size_t)ncap * sz);
        if (!np) {
            x->oom = true;
            return NULL;
        }
        v->p = np;
        v->cap = ncap;
    }
    void *e = v->p + (size_t)v->n++ * sz;
    memset(e, 0, sz);
    return e;
}

/* the vector's elements into the summary arena (NULL when empty, as a zero-length array) */
static void *vec_commit(sctx *x, vec *v, size_t sz, uint32_t *count) {
    *count = v->n;
    if (v->n == 0) return NULL;
    void *a = kp__arena_alloc(&x->s->arena, (size_t)v->n * sz);
    if (!a) {
        x->oom = true;
        return NULL;
    }
    memcpy(a, v->p, (size_t)v->n * sz);
    return a;
}

static frame *push(sctx *x, uint8_t kind, const char *name, void *t) {
    if (x->depth >= MAX_FRAMES) return NULL; /* cannot happen: the frame kinds nest < 8 deep */
    frame *f = &x->f[x->depth++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->name = name;
    f->t = t;
    return f;
}

static void newest(kp_evict_summary *s, int64_t t) {
    if (t == 0) return;
    if (!s->has_time || t > s->time_ns) s->time_ns = t;
    s->has_time = true;
}

/* an element of the array frame f begins (ev: its first event) */
static void element(sctx *x, frame *arr, kp_ev ev) {
    uint32_t i = arr->index++;
    if (ev != KP_EV_OBJ_BEGIN) {
        x->failed = true;
        return;
    }
    void *t = NULL;
    uint8_t kind;
    switch (arr->kind) {
    case K_PODS:
        kind = K_POD;
        t = vec_push(x, &x->pods, sizeof(kp__ev_pstats));
        break;
    case K_CONTS:
        kind = K_CONT;
        t = vec_push(x, &x->conts, sizeof(kp__ev_cstats));
        break;
    case K_VOLS:
        kind = K_VOL;
        t = vec_push(x, &x->vols, sizeof(kp__ev_vstats));
        if (t) ((kp__ev_vstats *)t)->fs.has = KP__EVF_PRESENT;
        break;
    default:
        kind = K_SYSC;
        break;
    }
    if (x->oom) return;
    frame *f = push(x, kind, NULL, t);
    if (f) f->index = i;
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
            p->has_procs = true;
        }
        break;
    }
    case A_TIME: get_time(x, ev, s, len, m->p); break;
    case A_STR: (void)get_str(x, ev, s, len, m->p, m->lenp); break;
    case A_UID: {
        kp__ev_pstats *p = m->p;
        (void)get_str(x, ev, s, len, &p->uid, &p->uid_len);
        if (p->uid) p->uid_hash = kp__ev_hash(p->uid, p->uid_len);
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
            (void)push(x, m->sub, m->name, m->p);
            if (m->sub == K_MEM) ((kp__ev_mem *)m->p)->has |= KP__EVM_PRESENT;
            else if (m->sub == K_FS) ((kp__ev_fs *)m->p)->has |= KP__EVF_PRESENT;
            else if (m->sub == K_RLIMIT) sum->has_rlimit = true;
            return;
        }
        if (ev == KP_EV_NULL && !m->strict) break;
        x->failed = true;
        break;
    case A_ARR:
        if (ev == KP_EV_ARR_BEGIN) {
            frame *f = push(x, m->sub, m->name, m->p);
            if (f && m->sub == K_PODS) x->pods.n = 0;
            else if (f && m->sub == K_CONTS) x->conts.n = 0;
            else if (f && m->sub == K_VOLS) x->vols.n = 0;
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
    switch (f->kind) {
    case K_CPU: newest(sum, f->tm); break;
    case K_PODS: {
        void *a = vec_commit(x, &x->pods, sizeof(kp__ev_pstats), &sum->n_pods);
        sum->pods = a;
        break;
    }
    case K_CONTS: {
        kp__ev_pstats *p = f->t;
        void *a = vec_commit(x, &x->conts, sizeof(kp__ev_cstats), &p->n_containers);
        p->containers = a;
        break;
    }
    case K_VOLS: {
        kp__ev_pstats *p = f->t;
        void *a = vec_commit(x, &x->vols, sizeof(kp__ev_vstats), &p->n_volumes);
        p->volumes = a;
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
        if (x->root_ev >= 0 && x->root_ev != KP_EV_OBJ_BEGIN && x->root_ev != KP_EV_ARR_BEGIN && x->root_ev != KP_EV_NULL)
            return -1;
        return 0;
    case KP_EV_KEY:
        if (x->depth == 0) return 1;
        on_key(x, s, len);
        if (x->m.act == A_SKIP) {
            x->skip_pending = true;
            return 1;
        }
        x->have_member = true;
        return 0;
    case KP_EV_OBJ_END:
    case KP_EV_ARR_END:
        if (x->depth > 0) pop(x);
        return x->oom || x->failed ? -1 : 0;
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
        return x->oom || x->failed ? -1 : 0;
    }
    if (!x->have_member) { /* cannot happen: every value in an object follows its key */
        if (ev == KP_EV_OBJ_BEGIN || ev == KP_EV_ARR_BEGIN) x->skip_depth = 1;
        return 0;
    }
    x->have_member = false;
    value(x, ev, s, len);
    return x->oom || x->failed ? -1 : 0;
}

kp_status kp_evict_summary_parse(const char *source, const char *buf, size_t len,
                                 kp_evict_summary **out, kp_error *err) {
    *out = NULL;
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
    kp_evict_summary *s = calloc(1, sizeof *s);
    sctx *x = calloc(1, sizeof *x);
    if (!s || !x) {
        free(s);
        free(x);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    kp__arena_init(&s->arena);
    x->s = s;
    char msg[256] = "";
    uint64_t eoff = 0;
    int rc = -1; /* empty input: the reference decoder words the error */
    if (i < len) {
        if (buf[i] == '{' || buf[i] == '[') rc = kp__json_events(buf, len, on_event, x, msg, sizeof msg, &eoff);
        else rc = kp__yaml_events(buf, len, on_event, x, msg, sizeof msg, &eoff);
    }
    bool ok = rc == 0 && !x->failed && !x->oom && x->n_docs == 1;
    bool oom = x->oom;
    free(x->pods.p);
    free(x->conts.p);
    free(x->vols.p);
    free(x);
    if (!ok) {
        kp_evict_summary_free(s);
        if (oom) return kp_error_set(err, KP_ENOMEM, "out of memory");
        return kp__ev_summary_parse_tree(source, buf, len, out, err);
    }
    newest(s, s->node_mem.time_ns);
    newest(s, s->node_fs.time_ns);
    newest(s, s->imagefs.time_ns);
    newest(s, s->containerfs.time_ns);
    newest(s, s->rlimit_time_ns);
    newest(s, s->pods_mem.time_ns);
    *out = s;
    return KP_OK;
}

void kp_evict_summary_free(kp_evict_summary *s) {
    if (!s) return;
    kp__arena_fini(&s->arena);
    free(s);
}

bool kp_evict_summary_time(const kp_evict_summary *s, int64_t *unix_ns) {
    if (s->has_time) *unix_ns = s->time_ns;
    return s->has_time;
}

size_t kp_evict_summary_pod_count(const kp_evict_summary *s) { return s->n_pods; }
