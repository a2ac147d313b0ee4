/* Small open-addressing map from a 64-bit key (topology pair: key id << 32 | value id, or a
 * plain value id) to an int64 count. Mirrors the Go maps the scheduler plugins keep in their
 * PreFilter state (topologyToMatchedTermCount, TpValueToMatchNum). `live` counts the entries
 * present in the Go map: upstream deletes an entry whose count drops to zero in some maps
 * (interpodaffinity) and keeps it in others (podtopologyspread); `keep_zero` selects which. */
#ifndef KP_SCHED_PAIRMAP_H
#define KP_SCHED_PAIRMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kprio/common.h"

typedef struct {
    uint64_t *keys; /* key+1, 0 = empty slot */
    int64_t *vals;
    bool *present; /* entry exists in the mirrored Go map */
    uint32_t cap; /* power of two (0 = not allocated) */
    uint32_t used; /* occupied slots */
    uint32_t live; /* entries present */
    bool keep_zero;
} kp_pairmap;

static inline uint64_t kp__pair(uint32_t key, uint32_t val) { return ((uint64_t)key << 32) | val; }

void kp__pairmap_init(kp_pairmap *m, bool keep_zero);
void kp__pairmap_fini(kp_pairmap *m);
void kp__pairmap_clear(kp_pairmap *m);
/* Value for key (0 if absent). */
int64_t kp__pairmap_get(const kp_pairmap *m, uint64_t key);
bool kp__pairmap_has(const kp_pairmap *m, uint64_t key);
/* m[key] += delta (entry created if absent). KP_ENOMEM on allocation failure. */
kp_status kp__pairmap_add(kp_pairmap *m, uint64_t key, int64_t delta);
/* Iteration over present entries: i from 0 while i < cap. */
static inline bool kp__pairmap_slot(const kp_pairmap *m, uint32_t i, uint64_t *key, int64_t *val) {
    if (!m->keys[i] || !m->present[i]) return false;
    *key = m->keys[i] - 1;
    *val = m->vals[i];
    return true;
}

#endif
