/* Label maps (internal): metadata.labels, annotations, nodeSelector, Service selectors. */
#ifndef KP_CORE_LABELS_H
#define KP_CORE_LABELS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"

typedef struct {
    kp_str key, val;
} kp_label;
/* Label map, sorted by key id (binary search by id). */
typedef struct {
    uint32_t n;
    kp_label *items;
} kp_labels;

/* Label value lookup; returns true and sets *val if key is present. */
bool kp__labels_get(const kp_labels *l, kp_str key, kp_str *val);

#endif
