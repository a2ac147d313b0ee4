/* Taints and tolerations (internal; mirrors v1helper.TolerationsTolerateTaint). */
#ifndef KP_CORE_TAINTS_H
#define KP_CORE_TAINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"

typedef enum {
    KP_EFFECT_NONE = 0,
    KP_EFFECT_NOSCHEDULE,
    KP_EFFECT_PREFERNOSCHEDULE,
    KP_EFFECT_NOEXECUTE
} kp_effect;
typedef struct {
    kp_str key, value;
    kp_effect effect;
    int64_t time_added; /* timeAdded (unix seconds), 0 when unset */
} kp_taint;
typedef enum { KP_TOL_EQUAL = 0, KP_TOL_EXISTS } kp_tolop;
typedef struct {
    kp_str key, value;
    kp_tolop op;
    kp_effect effect; /* NONE = all effects */
    bool has_seconds;
    int64_t seconds;
} kp_toleration;

struct kp_pod;

/* v1helper.TolerationsTolerateTaint. */
bool kp__toleration_tolerates(const kp_toleration *t, const kp_taint *taint);
bool kp__tolerations_tolerate(const struct kp_pod *p, const kp_taint *taint);

#endif
