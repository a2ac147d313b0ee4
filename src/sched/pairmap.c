/* Open-addressing count map for plugin PreFilter/PreScore state (see pairmap.h). */
#include "sched/pairmap.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (uint32_t)k;
}

void kp__pairmap_init(kp_pairmap *m, bool keep_zero) {
    memset(m, 0, sizeof *m);
    m->keep_zero = keep_zero;
}

void kp__pairmap_fini(kp_pairmap *m) {
    kp__free(m->keys);
    kp__free(m->vals);
    kp__free(m->present);
    bool kz = m->keep_zero;
    memset(m, 0, sizeof *m);
    m->keep_zero = kz;
}

void kp__pairmap_clear(kp_pairmap *m) {
    if (m->cap) {
        memset(m->keys, 0, m->cap * sizeof *m->keys);
        memset(m->present, 0, m->cap * sizeof *m->present);
    }
    m->used = m->live = 0;
}

static uint32_t find_slot(const kp_pairmap *m, uint64_t key) {
    uint32_t mask = m->cap - 1, i = hash64(key) & mask;
    while (m->keys[i] && m->keys[i] != key + 1) i = (i + 1) & mask;
    return i;
}

int64_t kp__pairmap_get(const kp_pairmap *m, uint64_t key) {
    if (!m->cap) return 0;
    uint32_t i = find_slot(m, key);
    return m->keys[i] && m->present[i] ? m->vals[i] : 0;
}

bool kp__pairmap_has(const kp_pairmap *m, uint64_t key) {
    if (!m->cap) return false;
    uint32_t i = find_slot(m, key);
    return m->keys[i] && m->present[i];
}

static kp_status grow(kp_pairmap *m) {
    uint32_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *nk = kp__calloc(ncap, sizeof *nk);
    int64_t *nv = kp__calloc(ncap, sizeof *nv);
    bool *np = kp__calloc(ncap, sizeof *np);
    if (!nk || !nv || !np) {
        kp__free(nk);
        kp__free(nv);
        kp__free(np);
        return KP_ENOMEM;
    }
    uint32_t used = 0;
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->keys[i] || !m->present[i]) continue; /* drop tombstones of deleted entries */
        uint32_t j = hash64(m->keys[i] - 1) & (ncap - 1);
        while (nk[j]) j = (j + 1) & (ncap - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
        np[j] = true;
        used++;
    }
    kp__free(m->keys);
    kp__free(m->vals);
    kp__free(m->present);
    m->keys = nk;
    m->vals = nv;
    m->present = np;
    m->cap = ncap;
    m->used = used;
    return KP_OK;
}

kp_status kp__pairmap_add(kp_pairmap *m, uint64_t key, int64_t delta) {
    if ((m->used + 1) * 4 >= m->cap * 3) {
        kp_status st = grow(m);
        if (st != KP_OK) return st;
    }
    uint32_t i = find_slot(m, key);
    if (!m->keys[i]) {
        m->keys[i] = key + 1;
        m->vals[i] = 0;
        m->used++;
    }
    if (!m->present[i]) {
        m->present[i] = true;
        m->vals[i] = 0;
        m->live++;
    }
    m->vals[i] += delta;
    if (m->vals[i] == 0 && !m->keep_zero) {
        /* upstream deletes the entry; the slot stays as a tombstone until the next grow */
        m->present[i] = false;
        m->live--;
    }
    return KP_OK;
}
