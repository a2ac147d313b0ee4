/* `--compat VERSION` on the kubelet side (evict, admit): the release line is the one of the
 * cluster's feature gates (kp_feature_gates.line, set by kp_feature_gates_init_compat), so one
 * flag moves the gate defaults and the rules below together. Each rule that differs between
 * lines and is not behind a gate is one predicate here; docs/compat.md "Compatibility" lists
 * the same (gates: feature_gates.c). */
#ifndef KP_KUBELET_COMPAT_H
#define KP_KUBELET_COMPAT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/compat.h"

/* containerEphemeralStorageLimitEviction also enforces restartable init (sidecar) containers'
 * ephemeral-storage limits (kubernetes PR #138462, v1.37); older lines check regular
 * containers only. */
static inline bool kp__compat_sidecar_storage_limits(uint16_t line) { return line >= 37; }

#endif
