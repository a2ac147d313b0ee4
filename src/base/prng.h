/* Deterministic PRNG (splitmix64-seeded xoshiro256**), seeded from --seed. Every random choice
 * upstream makes (candidate offset, host ties) is drawn from one of these, so the same input and
 * seed give the same decisions. Shared by the scheduler and the simulator. */
#ifndef KP_BASE_PRNG_H
#define KP_BASE_PRNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} kp_prng;

void kp__prng_seed(kp_prng *r, uint64_t seed);
uint64_t kp__prng_next(kp_prng *r);
/* Uniform integer in [0, n) (n > 0), unbiased (Lemire's multiply-shift with rejection). */
uint32_t kp__prng_below(kp_prng *r, uint32_t n);

#endif
