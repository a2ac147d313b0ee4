/* Score helpers shared by plugins. */
#ifndef KP_SCHED_PLUGINS_HELPER_H
#define KP_SCHED_PLUGINS_HELPER_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/framework.h"

/* mirrors helper.DefaultNormalizeScore (max -> 100; reverse: 100 - score) */
void kp__default_normalize_score(int64_t *sc, uint32_t n, bool reverse);

#endif
