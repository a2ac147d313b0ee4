/* The cluster model shared by every engine (internal; the public face is include/kprio/cluster.h).
 *
 * An umbrella over the per-object headers, for code that reads the whole model; new code includes
 * just the headers it needs:
 *   core/resources.h       resource names, sparse resource lists (kp_resv)
 *   core/labels.h          label maps
 *   core/selector.h        label selectors, node selector terms, (anti-)affinity terms, matching
 *   core/taints.h          taints, tolerations
 *   core/meta.h            conditions, KP_TIME_NONE
 *   core/pod.h             pods (containers, ports, volumes, spread constraints, owners)
 *   core/node.h            nodes and their aggregates (kp__node_add_pod / kp__node_remove_pod)
 *   core/priority_class.h, core/pdb.h, core/namespace.h, core/workload.h
 *   core/cluster.h         the kp_cluster struct, kp__s, warnings, construction helpers */
#ifndef KP_CORE_MODEL_H
#define KP_CORE_MODEL_H

#include "core/cluster.h"
#include "core/labels.h"
#include "core/meta.h"
#include "core/namespace.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/resources.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/workload.h"

#endif
