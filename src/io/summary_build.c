/* Building a decoded Summary API document: scratch vectors, the single allocation of the
 * result, and the compact fields of pod-side objects (summary_build.h). */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "core/summary.h"
#include "io/summary_build.h"

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
    size_t need = (size_t)v->n + more, ncap = v->cap ? v->cap : 64;
    while (ncap < need) ncap *= 2;
    if (ncap > UINT32_MAX || ncap > SIZE_MAX / sz) {
        b->oom = true;
        return false;
    }
    char *np = kp__realloc(v->p, ncap * sz);
    if (!np) {
        b->oom = true;
        return false;
    }
    v->p = np;
    v->cap = (uint32_t)ncap;
    return true;
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
        fs_init(fs, bit_if(p->has & KP__EVP_EPH_USED, KP__EVF_USED), p->eph_used, 0);
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
        p->has |= bit_if(fs->has & KP__EVF_USED, KP__EVP_EPH_USED);
        p->eph_used = fs->used;
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
