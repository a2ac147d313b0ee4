/* Reference Summary API decoder over the value tree (evict_summary_tree.c): the slow path that
 * evict_summary.c falls back to for a summary its event-stream parser cannot take as is. Same
 * contract as kp_evict_summary_parse. */
#ifndef KP_KUBELET_EVICT_SUMMARY_TREE_H
#define KP_KUBELET_EVICT_SUMMARY_TREE_H

#include <stddef.h>

#include "kubelet/evict_types.h"

kp_status kp__ev_summary_parse_tree(const char *source, const char *buf, size_t len,
                                    kp_evict_summary **out, kp_error *err);

#endif
