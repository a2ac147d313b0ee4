/* Namespace objects (internal): their labels, for namespaceSelector of affinity terms. */
#ifndef KP_CORE_NAMESPACE_H
#define KP_CORE_NAMESPACE_H

#include "base/arena.h"
#include "core/labels.h"

typedef struct {
    kp_str name;
    kp_labels labels;
} kp_namespace;

#endif
