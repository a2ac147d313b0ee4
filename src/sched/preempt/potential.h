/* The potential nodes of a preemption attempt from the compact Filter codes
 * (kp_preempt_opts.codes): counted, and produced in visiting order on demand (preempt.c's dry
 * run). Header-only: the scan is the PostFilter's per-node hot path. */
#ifndef KP_SCHED_PREEMPT_POTENTIAL_H
#define KP_SCHED_PREEMPT_POTENTIAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sched/preempt/preempt.h"

/* With the compact codes (kp_preempt_opts.codes) the potential nodes (code exactly
 * Unschedulable) are counted and the one of rank `offset` found 8 codes at a time; the dry run
 * then takes them in visiting order from there (kp__preempt_pot_fill), so only the nodes it reaches
 * are examined one by one. */
static inline bool kp__preempt_is_potential(uint8_t code) {
    return (code & ~KP_PREEMPT_CODE_FIT) == KP_CODE_UNSCHEDULABLE;
}

/* 0x80 in every byte of the 8 codes at p that kp__preempt_is_potential, 0 elsewhere (exact: no
 * carries). */
static inline uint64_t kp__preempt_pot_mask8(const uint8_t *p) {
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t w;
    memcpy(&w, p, sizeof w);
    uint64_t v = (w & low7) ^ 0x0101010101010101ull; /* zero byte where the code matches */
    return ~((v + low7) | v) & 0x8080808080808080ull;
}

/* Number of 0x80 bytes in a kp__preempt_pot_mask8 value (bytes summed by one multiplication). */
static inline uint32_t kp__preempt_mask8_count(uint64_t m) {
    return (uint32_t)(((m >> 7) * 0x0101010101010101ull) >> 56);
}

static inline uint32_t kp__preempt_pot_count(const uint8_t *codes, uint32_t nn) {
    uint32_t n = 0, i = 0;
    for (; i + 8 <= nn; i += 8) n += kp__preempt_mask8_count(kp__preempt_pot_mask8(codes + i));
    for (; i < nn; i++) n += kp__preempt_is_potential(codes[i]);
    return n;
}

/* Node index of the potential node of rank r (r < the number of potential nodes). */
static inline uint32_t kp__preempt_pot_find(const uint8_t *codes, uint32_t nn, uint32_t r) {
    uint32_t i = 0;
    for (; i + 8 <= nn; i += 8) {
        uint32_t c = kp__preempt_mask8_count(kp__preempt_pot_mask8(codes + i));
        if (c > r) break;
        r -= c;
    }
    for (;; i++)
        if (kp__preempt_is_potential(codes[i]) && r-- == 0) return i;
}

/* Appends potential nodes in visiting order to seq[*filled..want) (want <= the number of
 * potential nodes), scanning from node *next and wrapping at nn. */
static inline void kp__preempt_pot_fill(const uint8_t *codes, uint32_t nn, uint32_t *seq,
                                        uint32_t *filled, uint32_t want, uint32_t *next) {
    uint32_t n = *filled, i = *next;
    while (n < want) {
        if (kp__preempt_is_potential(codes[i])) seq[n++] = i;
        if (++i == nn) i = 0;
    }
    *filled = n;
    *next = i;
}

#endif
