/* `--compat VERSION` on the scheduler side: parsed once (kp_sched_new, core/compat.h) into a
 * minor version; each behaviour that differs between lines
 * asks one predicate below, named after the change and the release it landed in, so the list
 * of differences is this file (docs/compat.md "Compatibility" lists the same). */
#ifndef KP_SCHED_COMPAT_H
#define KP_SCHED_COMPAT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/compat.h" /* kp__compat_parse, KP_COMPAT_NEWEST */

/* NodeResourcesBalancedAllocation scores the change in the node's balance (kubernetes PR
 * #135573, v1.36.0); older lines score the balance after placement. */
static inline bool kp__compat_balance_delta(uint16_t minor) { return minor >= 36; }
/* TaintToleration's Filter reason no longer names the taint (PR #134740, v1.35.0; also in
 * later 1.34 patch releases); older lines print "node(s) had untolerated taint {KEY: VALUE}". */
static inline bool kp__compat_generic_taint_reason(uint16_t minor) { return minor >= 35; }
/* DynamicResources is in the default profile (DynamicResourceAllocation on by default, GA in
 * v1.34.0): its PostFilter runs before DefaultPreemption. */
static inline bool kp__compat_dra_default(uint16_t minor) { return minor >= 34; }
/* ImageLocality scores image volumes' images (PR #130231, v1.36.0) ... */
static inline bool kp__compat_image_volumes(uint16_t minor) { return minor >= 36; }
/* ... and counts them in calculatePriority's maximum threshold (PR #138951, v1.37). */
static inline bool kp__compat_image_volume_threshold(uint16_t minor) { return minor >= 37; }
/* NodeVolumeLimits refuses a node whose CSINode lacks a driver a CSIDriver object names
 * (VolumeLimitScaling, alpha in v1.35, beta and on by default in v1.37). */
static inline bool kp__compat_volume_limit_scaling(uint16_t minor) { return minor >= 37; }
/* VolumeBinding scores nodes by the utilization of the PVs a pod's claims would bind
 * (StorageCapacityScoring, alpha in v1.33, beta and on by default in v1.37; the default shape
 * {0: 10, 100: 0}). */
static inline bool kp__compat_storage_capacity_scoring(uint16_t minor) { return minor >= 37; }
/* VolumeRestrictions' ReadWriteOncePod conflict reads "node(s) unavailable due to
 * PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod" (PR
 * #129145, merged for v1.33.0); older lines print "node has pod using PersistentVolumeClaim with
 * the same name and ReadWriteOncePod access mode". */
static inline bool kp__compat_rwop_in_use_reason(uint16_t minor) { return minor >= 33; }

#endif
