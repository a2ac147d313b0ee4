/* `--compat VERSION`: the upstream release line whose decisions and texts kprio reproduces,
 * parsed into a minor version. Shared by the scheduler (sched/compat.h), the kubelet side
 * (kubelet/compat.h) and the feature gates' per-line defaults (feature_gates.c); docs/compat.md
 * "Compatibility" lists what each line changes. */
#ifndef KP_CORE_COMPAT_H
#define KP_CORE_COMPAT_H

#include <stdbool.h>
#include <stdint.h>

/* The minor version of KP_KUBERNETES_VERSION ("1.37"): the newest line kprio mirrors. A
 * --compat newer than this behaves as this one. */
#define KP_COMPAT_NEWEST 37

/* "[v]1.MINOR[.PATCH]" -> MINOR (0..999, capped at KP_COMPAT_NEWEST). False if v is not such a
 * version. */
bool kp__compat_parse(const char *v, uint16_t *minor);

#endif
