/* Building a decoded Summary API document: scratch vectors, the single allocation of the
 * result, and the compact fields of pod-side objects (summary_build.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/summary.h"
#include "io/summary_build.h"
#include "kprio/summary_builder.h"

/* ---------------------------------------------------------------- builder */

void kp__ev_build_init(kp__ev_builder *b) { memset(b, 0, sizeof *b); }

void kp__ev_build_fini(kp__ev_builder *b) {
    kp__free(b->pods.p);
    kp__free(b->conts.p);
    kp__free(b->vols.p);
    kp__free(b->strs.p);
    memset(b, 0, sizeof *b);
}

/* room for `more` elements of size sz */
static bool vec_reserve(kp__ev_builder *b, kp__ev_vec *v, size_t more, size_t sz) {
    if (more <= (size_t)(v->cap - v->n)) return true;
    if (kp__grow32((void **)&v->p, &v->cap, (size_t)v->n + more, sz, 64)) return true;
    b->oom = true; /* out of memory, or past 4 Gi elements */
    return false;
}

void *kp__ev_build_push(kp__ev_builder *b, kp__ev_vec *v, size_t sz) {
    if (!vec_reserve(b, v, 1, sz)) return NULL;
    void *e = v->p + (size_t)v->n++ * sz;
    memset(e, 0, sz);
    return e;
}

bool kp__ev_build_str(kp__ev_builder *b, const char *s, size_t len, uint32_t *off) {
    if (len >= UINT32_MAX - b->strs.n) {
        b->oom = true;
        return false;
    }
    if (!vec_reserve(b, &b->strs, len + 1, 1)) return false;
    *off = b->strs.n;
    if (len) memcpy(b->strs.p + b->strs.n, s, len);
    b->strs.p[b->strs.n + len] = 0;
    b->strs.n += (uint32_t)len + 1;
    return true;
}

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

kp_evict_summary *kp__ev_build_finish(kp__ev_builder *b) {
    size_t o_pods = round8(sizeof(kp_evict_summary));
    size_t o_conts = o_pods + round8((size_t)b->pods.n * sizeof(kp__ev_pstats));
    size_t o_vols = o_conts + round8((size_t)b->conts.n * sizeof(kp__ev_cstats));
    size_t o_strs = o_vols + round8((size_t)b->vols.n * sizeof(kp__ev_vstats));
    char *block = kp__malloc(o_strs + b->strs.n);
    if (!block) return NULL;
    /* every byte is written once: no zeroing first */
    kp_evict_summary *s = (kp_evict_summary *)(void *)block;
    *s = b->head;
    s->n_pods = b->pods.n;
    s->n_conts = b->conts.n;
    s->n_vols = b->vols.n;
    s->strs_len = b->strs.n;
    s->pods = b->pods.n
                  ? memcpy(block + o_pods, b->pods.p, (size_t)b->pods.n * sizeof(kp__ev_pstats))
                  : NULL;
    s->conts = b->conts.n
                   ? memcpy(block + o_conts, b->conts.p, (size_t)b->conts.n * sizeof(kp__ev_cstats))
                   : NULL;
    s->vols = b->vols.n
                  ? memcpy(block + o_vols, b->vols.p, (size_t)b->vols.n * sizeof(kp__ev_vstats))
                  : NULL;
    s->strs = b->strs.n ? memcpy(block + o_strs, b->strs.p, b->strs.n) : "";
    return s;
}

void kp__ev_summary_newest(kp_evict_summary *s, int64_t t) {
    if (t == 0) return;
    if (!s->has_time || t > s->time_ns) s->time_ns = t;
    s->has_time = true;
}

void kp__ev_summary_times(kp_evict_summary *s) {
    kp__ev_summary_newest(s, s->node_mem.time_ns);
    kp__ev_summary_newest(s, s->node_fs.time_ns);
    kp__ev_summary_newest(s, s->imagefs.time_ns);
    kp__ev_summary_newest(s, s->containerfs.time_ns);
    kp__ev_summary_newest(s, s->rlimit_time_ns);
    kp__ev_summary_newest(s, s->pods_mem.time_ns);
}

/* ---------------------------------------------------------------- compact fields */

static uint8_t bit_if(bool c, uint8_t bit) { return c ? bit : 0; }

static void mem_init(kp__ev_mem *m, uint8_t has, uint64_t ws) {
    m->has = has;
    m->time_ns = 0;
    m->avail = m->usage = 0;
    m->ws = ws;
}

static void fs_init(kp__ev_fs *fs, uint8_t has, uint64_t used, uint64_t inodes_used) {
    fs->has = has;
    fs->time_ns = 0;
    fs->avail = fs->cap = fs->inodes_free = fs->inodes = 0;
    fs->used = used;
    fs->inodes_used = inodes_used;
}

void kp__ev_sink_load(kp__ev_sink k, const void *rec, kp__ev_mem *mem, kp__ev_fs *fs) {
    switch (k) {
    case KP__EVSINK_POD_MEM: {
        const kp__ev_pstats *p = rec;
        mem_init(mem,
                 bit_if(p->has & KP__EVP_MEM, KP__EVM_PRESENT) |
                     bit_if(p->has & KP__EVP_WS, KP__EVM_WS),
                 p->ws);
        return;
    }
    case KP__EVSINK_POD_EPH: {
        const kp__ev_pstats *p = rec;
        fs_init(fs,
                bit_if(p->has & KP__EVP_EPH_USED, KP__EVF_USED) |
                    bit_if(p->has & KP__EVP_EPH_IUSED, KP__EVF_IUSED),
                p->eph_used, p->eph_iused);
        return;
    }
    case KP__EVSINK_CONT_MEM: {
        const kp__ev_cstats *c = rec;
        mem_init(mem, bit_if(c->has & KP__EVC_WS, KP__EVM_WS), c->ws);
        return;
    }
    case KP__EVSINK_CONT_ROOT:
    case KP__EVSINK_CONT_LOGS: {
        const kp__ev_cstats *c = rec;
        bool root = k == KP__EVSINK_CONT_ROOT;
        fs_init(
            fs,
            bit_if(c->has & (root ? KP__EVC_ROOT_USED : KP__EVC_LOGS_USED), KP__EVF_USED) |
                bit_if(c->has & (root ? KP__EVC_ROOT_IUSED : KP__EVC_LOGS_IUSED), KP__EVF_IUSED),
            root ? c->root_used : c->logs_used, root ? c->root_iused : c->logs_iused);
        return;
    }
    case KP__EVSINK_VOL: {
        const kp__ev_vstats *v = rec;
        fs_init(fs,
                KP__EVF_PRESENT | bit_if(v->has & KP__EVV_USED, KP__EVF_USED) |
                    bit_if(v->has & KP__EVV_IUSED, KP__EVF_IUSED),
                v->used, v->iused);
        return;
    }
    }
}

void kp__ev_sink_store(kp__ev_sink k, void *rec, const kp__ev_mem *mem, const kp__ev_fs *fs) {
    switch (k) {
    case KP__EVSINK_POD_MEM: {
        kp__ev_pstats *p = rec;
        p->has |= bit_if(mem->has & KP__EVM_PRESENT, KP__EVP_MEM) |
                  bit_if(mem->has & KP__EVM_WS, KP__EVP_WS);
        p->ws = mem->ws;
        return;
    }
    case KP__EVSINK_POD_EPH: {
        kp__ev_pstats *p = rec;
        p->has |= bit_if(fs->has & KP__EVF_USED, KP__EVP_EPH_USED) |
                  bit_if(fs->has & KP__EVF_IUSED, KP__EVP_EPH_IUSED);
        p->eph_used = fs->used;
        p->eph_iused = fs->inodes_used;
        return;
    }
    case KP__EVSINK_CONT_MEM: {
        kp__ev_cstats *c = rec;
        c->has |= bit_if(mem->has & KP__EVM_WS, KP__EVC_WS);
        c->ws = mem->ws;
        return;
    }
    case KP__EVSINK_CONT_ROOT:
    case KP__EVSINK_CONT_LOGS: {
        kp__ev_cstats *c = rec;
        bool root = k == KP__EVSINK_CONT_ROOT;
        c->has |= bit_if(fs->has & KP__EVF_USED, root ? KP__EVC_ROOT_USED : KP__EVC_LOGS_USED) |
                  bit_if(fs->has & KP__EVF_IUSED, root ? KP__EVC_ROOT_IUSED : KP__EVC_LOGS_IUSED);
        *(root ? &c->root_used : &c->logs_used) = fs->used;
        *(root ? &c->root_iused : &c->logs_iused) = fs->inodes_used;
        return;
    }
    case KP__EVSINK_VOL: {
        kp__ev_vstats *v = rec;
        v->has |= bit_if(fs->has & KP__EVF_USED, KP__EVV_USED) |
                  bit_if(fs->has & KP__EVF_IUSED, KP__EVV_IUSED);
        v->used = fs->used;
        v->iused = fs->inodes_used;
        return;
    }
    }
}

/* ---------------------------------------------------------------- the public builder */

/* kprio/summary_builder.h: the same scratch vectors and compact fields the decoders fill, from
 * values instead of text, so a built summary and a decoded one cannot drift apart. */
struct kp_summary_builder {
    kp__ev_builder b;
    kp_status st; /* the first error (sticks until reset) */
    char msg[200];
    uint8_t side; /* what a pod-side error is about: SIDE_* */
};

enum { SIDE_NODE, SIDE_POD, SIDE_CONT, SIDE_VOL };

kp_summary_builder *kp_summary_builder_new(void) {
    kp_summary_builder *sb = kp__malloc(sizeof *sb);
    if (!sb) return NULL;
    kp__ev_build_init(&sb->b);
    sb->st = KP_OK;
    sb->msg[0] = 0;
    sb->side = SIDE_NODE;
    return sb;
}

void kp_summary_builder_free(kp_summary_builder *sb) {
    if (!sb) return;
    kp__ev_build_fini(&sb->b);
    kp__free(sb);
}

void kp_summary_builder_reset(kp_summary_builder *sb) {
    memset(&sb->b.head, 0, sizeof sb->b.head);
    sb->b.pods.n = sb->b.conts.n = sb->b.vols.n = sb->b.strs.n = 0;
    sb->b.oom = false;
    sb->st = KP_OK;
    sb->msg[0] = 0;
    sb->side = SIDE_NODE;
}

/* The first error, its field named as the decoder names it ("pods[2].containers[0].rootfs.
 * usedBytes: must not be negative"). */
static kp_status fail(kp_summary_builder *sb, kp_status st, const char *where, const char *field,
                      const char *what) {
    if (sb->st != KP_OK) return sb->st;
    sb->st = st;
    char at[64] = "";
    uint32_t pod = sb->b.pods.n ? sb->b.pods.n - 1 : 0;
    const kp__ev_pstats *p =
        sb->b.pods.n ? (const kp__ev_pstats *)(const void *)sb->b.pods.p + pod : NULL;
    if (sb->side == SIDE_POD) snprintf(at, sizeof at, "pods[%u]", pod);
    else if (sb->side == SIDE_CONT && p)
        snprintf(at, sizeof at, "pods[%u].containers[%u]", pod, p->n_containers - 1);
    else if (sb->side == SIDE_VOL && p)
        snprintf(at, sizeof at, "pods[%u].volume[%u]", pod, p->n_volumes - 1);
    snprintf(sb->msg, sizeof sb->msg, "Summary: %s%s%s%s%s: %s", at, *at && *where ? "." : "",
             where, *field ? "." : "", field, what);
    return st;
}

static kp_status nomem(kp_summary_builder *sb) {
    sb->side = SIDE_NODE;
    return fail(sb, KP_ENOMEM, "", "", "out of memory");
}

/* Go's *uint64 holds no negative value: the decoder refuses "-1", the builder refuses -1 */
static bool neg(kp_summary_builder *sb, int64_t v, const char *where, const char *field) {
    if (v >= 0) return false;
    fail(sb, KP_ERANGE, where, field, "must not be negative");
    return true;
}

/* a time the decoder reads back: unix seconds from 0 to INT64_MAX / 1e9 - 1 (get_time) */
static bool bad_time(kp_summary_builder *sb, int64_t t, const char *where) {
    if (t >= 0 && t / KP__NS_PER_SEC <= INT64_MAX / KP__NS_PER_SEC - 1) return false;
    fail(sb, KP_ERANGE, where, "time", "out of range");
    return true;
}

static bool mem_of(kp_summary_builder *sb, const kp_summary_memory *m, const char *where,
                   kp__ev_mem *out) {
    if (bad_time(sb, m->time_ns, where)) return false;
    out->has = KP__EVM_PRESENT;
    out->time_ns = m->time_ns;
    out->avail = out->usage = out->ws = 0;
    if (m->has & KP_SUMMARY_AVAILABLE) {
        if (neg(sb, m->available, where, "availableBytes")) return false;
        out->has |= KP__EVM_AVAIL;
        out->avail = (uint64_t)m->available;
    }
    if (m->has & KP_SUMMARY_USAGE) {
        if (neg(sb, m->usage, where, "usageBytes")) return false;
        out->has |= KP__EVM_USAGE;
        out->usage = (uint64_t)m->usage;
    }
    if (m->has & KP_SUMMARY_WORKING_SET) {
        if (neg(sb, m->working_set, where, "workingSetBytes")) return false;
        out->has |= KP__EVM_WS;
        out->ws = (uint64_t)m->working_set;
    }
    return true;
}

static bool fs_field(kp_summary_builder *sb, const kp_summary_fs *fs, unsigned bit, int64_t v,
                     uint8_t ibit, uint64_t *dst, kp__ev_fs *out, const char *where,
                     const char *field) {
    if (!(fs->has & bit)) return true;
    if (neg(sb, v, where, field)) return false;
    out->has |= ibit;
    *dst = (uint64_t)v;
    return true;
}

static bool fs_of(kp_summary_builder *sb, const kp_summary_fs *fs, const char *where,
                  kp__ev_fs *out) {
    if (bad_time(sb, fs->time_ns, where)) return false;
    memset(out, 0, sizeof *out);
    out->has = KP__EVF_PRESENT;
    out->time_ns = fs->time_ns;
    return fs_field(sb, fs, KP_SUMMARY_AVAILABLE, fs->available, KP__EVF_AVAIL, &out->avail, out,
                    where, "availableBytes") &&
           fs_field(sb, fs, KP_SUMMARY_CAPACITY, fs->capacity, KP__EVF_CAP, &out->cap, out, where,
                    "capacityBytes") &&
           fs_field(sb, fs, KP_SUMMARY_USED, fs->used, KP__EVF_USED, &out->used, out, where,
                    "usedBytes") &&
           fs_field(sb, fs, KP_SUMMARY_INODES_FREE, fs->inodes_free, KP__EVF_IFREE,
                    &out->inodes_free, out, where, "inodesFree") &&
           fs_field(sb, fs, KP_SUMMARY_INODES, fs->inodes, KP__EVF_INODES, &out->inodes, out, where,
                    "inodes") &&
           fs_field(sb, fs, KP_SUMMARY_INODES_USED, fs->inodes_used, KP__EVF_IUSED,
                    &out->inodes_used, out, where, "inodesUsed");
}

/* a string into the summary's strings (NULL: absent, *len 0) */
static bool str_of(kp_summary_builder *sb, const char *s, uint32_t *off, uint32_t *len) {
    size_t n = s ? strlen(s) : 0;
    *off = 0;
    *len = 0;
    if (!s) return true;
    if (!kp__ev_build_str(&sb->b, s, n, off)) {
        nomem(sb);
        return false;
    }
    *len = (uint32_t)n;
    return true;
}

kp_status kp_summary_builder_node(kp_summary_builder *sb, const char *name) {
    if (sb->st != KP_OK) return sb->st;
    sb->side = SIDE_NODE;
    sb->b.head.has_node = true;
    return str_of(sb, name, &sb->b.head.node_name, &sb->b.head.node_name_len) ? KP_OK : sb->st;
}

kp_status kp_summary_builder_node_memory(kp_summary_builder *sb, const kp_summary_memory *m) {
    if (sb->st != KP_OK) return sb->st;
    sb->side = SIDE_NODE;
    sb->b.head.has_node = true;
    return mem_of(sb, m, "node.memory", &sb->b.head.node_mem) ? KP_OK : sb->st;
}

kp_status kp_summary_builder_node_fs(kp_summary_builder *sb, kp_summary_fs_kind which,
                                     const kp_summary_fs *fs) {
    if (sb->st != KP_OK) return sb->st;
    sb->side = SIDE_NODE;
    kp_evict_summary *h = &sb->b.head;
    h->has_node = true;
    switch (which) {
    case KP_SUMMARY_NODE_FS: return fs_of(sb, fs, "node.fs", &h->node_fs) ? KP_OK : sb->st;
    case KP_SUMMARY_IMAGE_FS:
        return fs_of(sb, fs, "node.runtime.imageFs", &h->imagefs) ? KP_OK : sb->st;
    case KP_SUMMARY_CONTAINER_FS:
        return fs_of(sb, fs, "node.runtime.containerFs", &h->containerfs) ? KP_OK : sb->st;
    }
    return fail(sb, KP_EINVAL, "node", "", "unknown filesystem");
}

kp_status kp_summary_builder_rlimit(kp_summary_builder *sb, int64_t time_ns, bool has_maxpid,
                                    int64_t maxpid, bool has_curproc, int64_t curproc) {
    if (sb->st != KP_OK) return sb->st;
    sb->side = SIDE_NODE;
    kp_evict_summary *h = &sb->b.head;
    if (bad_time(sb, time_ns, "node.rlimit") ||
        (has_maxpid && neg(sb, maxpid, "node.rlimit", "maxpid")) ||
        (has_curproc && neg(sb, curproc, "node.rlimit", "curproc")))
        return sb->st;
    h->has_node = h->has_rlimit = true;
    h->rlimit_time_ns = time_ns;
    h->has_maxpid = has_maxpid;
    h->maxpid = has_maxpid ? maxpid : 0;
    h->has_curproc = has_curproc;
    h->curproc = has_curproc ? curproc : 0;
    return KP_OK;
}

kp_status kp_summary_builder_pods_memory(kp_summary_builder *sb, const kp_summary_memory *m) {
    if (sb->st != KP_OK) return sb->st;
    sb->side = SIDE_NODE;
    kp_evict_summary *h = &sb->b.head;
    if (!mem_of(sb, m, "node.systemContainers[pods].memory", &h->pods_mem)) return sb->st;
    h->has_node = h->has_pods_container = true;
    return KP_OK;
}

/* A pod-side memory or filesystem object kept through the decoders' sink (no `has` bit: not
 * reported): only the fields the compact form keeps are read (a working set; used bytes and
 * inodes), times are not kept there. */
static bool side_mem(kp_summary_builder *sb, const kp_summary_memory *m, kp__ev_sink k, void *rec,
                     const char *where) {
    if (!m->has) return true;
    kp__ev_mem mem = {KP__EVM_PRESENT, 0, 0, 0, 0};
    if (m->has & KP_SUMMARY_WORKING_SET) {
        if (neg(sb, m->working_set, where, "workingSetBytes")) return false;
        mem.has |= KP__EVM_WS;
        mem.ws = (uint64_t)m->working_set;
    }
    kp__ev_sink_store(k, rec, &mem, NULL);
    return true;
}

static bool side_fs(kp_summary_builder *sb, const kp_summary_fs *fs, kp__ev_sink k, void *rec,
                    const char *where) {
    if (!fs->has) return true;
    kp__ev_fs f = {KP__EVF_PRESENT, 0, 0, 0, 0, 0, 0, 0};
    if (fs->has & KP_SUMMARY_USED) {
        if (neg(sb, fs->used, where, "usedBytes")) return false;
        f.has |= KP__EVF_USED;
        f.used = (uint64_t)fs->used;
    }
    if (fs->has & KP_SUMMARY_INODES_USED) {
        if (neg(sb, fs->inodes_used, where, "inodesUsed")) return false;
        f.has |= KP__EVF_IUSED;
        f.inodes_used = (uint64_t)fs->inodes_used;
    }
    kp__ev_sink_store(k, rec, NULL, &f);
    return true;
}

static kp__ev_pstats *last_pod(kp_summary_builder *sb) {
    if (!sb->b.pods.n) return NULL;
    return (kp__ev_pstats *)(void *)sb->b.pods.p + (sb->b.pods.n - 1);
}

kp_status kp_summary_builder_pod(kp_summary_builder *sb, const char *ns, const char *name,
                                 const char *uid) {
    if (sb->st != KP_OK) return sb->st;
    kp__ev_pstats *ps = kp__ev_build_push(&sb->b, &sb->b.pods, sizeof *ps);
    if (!ps) return nomem(sb);
    sb->side = SIDE_POD;
    ps->c0 = sb->b.conts.n;
    ps->v0 = sb->b.vols.n;
    if (!str_of(sb, ns, &ps->ns, &ps->ns_len) || !str_of(sb, name, &ps->name, &ps->name_len) ||
        !str_of(sb, uid && uid[0] ? uid : NULL, &ps->uid, &ps->uid_len))
        return sb->st;
    if (ps->uid_len) ps->uid_hash = kp__ev_hash(uid, ps->uid_len);
    return KP_OK;
}

kp_status kp_summary_builder_pod_stats(kp_summary_builder *sb, const kp_summary_pod *p) {
    if (sb->st != KP_OK) return sb->st;
    kp__ev_pstats *ps = last_pod(sb);
    if (!ps) {
        sb->side = SIDE_NODE;
        return fail(sb, KP_EINVAL, "pods", "", "pod stats before any pod");
    }
    sb->side = SIDE_POD;
    ps->has = 0;
    ps->ws = ps->procs = ps->eph_used = ps->eph_iused = 0;
    if (!side_mem(sb, &p->memory, KP__EVSINK_POD_MEM, ps, "memory") ||
        !side_fs(sb, &p->ephemeral_storage, KP__EVSINK_POD_EPH, ps, "ephemeral-storage"))
        return sb->st;
    if (p->has_processes) {
        if (neg(sb, p->processes, "process_stats", "process_count")) return sb->st;
        ps->procs = (uint64_t)p->processes;
        ps->has |= KP__EVP_PROCS;
    }
    return KP_OK;
}

kp_status kp_summary_builder_container(kp_summary_builder *sb, const char *name,
                                       const kp_summary_container *c) {
    if (sb->st != KP_OK) return sb->st;
    if (!last_pod(sb)) {
        sb->side = SIDE_NODE;
        return fail(sb, KP_EINVAL, "pods", "", "a container before any pod");
    }
    kp__ev_cstats *cs = kp__ev_build_push(&sb->b, &sb->b.conts, sizeof *cs);
    if (!cs) return nomem(sb);
    last_pod(sb)->n_containers++;
    sb->side = SIDE_CONT;
    if (!str_of(sb, name, &cs->name, &cs->name_len)) return sb->st;
    if (name) cs->has |= KP__EVC_NAME;
    if (c && (!side_mem(sb, &c->memory, KP__EVSINK_CONT_MEM, cs, "memory") ||
              !side_fs(sb, &c->rootfs, KP__EVSINK_CONT_ROOT, cs, "rootfs") ||
              !side_fs(sb, &c->logs, KP__EVSINK_CONT_LOGS, cs, "logs")))
        return sb->st;
    return KP_OK;
}

kp_status kp_summary_builder_volume(kp_summary_builder *sb, const char *name,
                                    const kp_summary_fs *fs) {
    if (sb->st != KP_OK) return sb->st;
    if (!last_pod(sb)) {
        sb->side = SIDE_NODE;
        return fail(sb, KP_EINVAL, "pods", "", "a volume before any pod");
    }
    kp__ev_vstats *vs = kp__ev_build_push(&sb->b, &sb->b.vols, sizeof *vs);
    if (!vs) return nomem(sb);
    last_pod(sb)->n_volumes++;
    sb->side = SIDE_VOL;
    if (!str_of(sb, name, &vs->name, &vs->name_len)) return sb->st;
    if (name) vs->has |= KP__EVV_NAME;
    if (fs && !side_fs(sb, fs, KP__EVSINK_VOL, vs, "")) return sb->st;
    return KP_OK;
}

kp_status kp_summary_builder_finish(kp_summary_builder *sb, kp_evict_summary **out, kp_error *err) {
    *out = NULL;
    if (sb->st == KP_OK && !sb->b.head.has_node) {
        sb->side = SIDE_NODE;
        fail(sb, KP_EINVAL, "node", "", "missing (not a Summary)");
    }
    if (sb->st != KP_OK) return kp_error_set(err, sb->st, "%s", sb->msg);
    kp_evict_summary *s = kp__ev_build_finish(&sb->b);
    if (!s) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp__ev_summary_times(s);
    *out = s;
    return KP_OK;
}
