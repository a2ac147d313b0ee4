/* DynamicResources' binding conditions and PostFilter's deallocation (dynamic_resources_bind.c). */
#ifndef KP_SCHED_PLUGINS_DYNAMIC_RESOURCES_BIND_H
#define KP_SCHED_PLUGINS_DYNAMIC_RESOURCES_BIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dra.h"
#include "sched/framework.h"

/* ---- binding conditions and PostFilter's deallocation (dynamic_resources_bind.c) ---- */
/* DynamicResourcesArgs.bindingTimeout in seconds (600 when not configured). */
int64_t kp__dra_binding_timeout(const kp_sched *s);
/* Filter: is the pod's allocated claim unavailable on node (its allocation's node selector; a
 * binding failure condition or the binding timeout: everywhere)? */
bool kp__dra_claim_unavailable(const kp_cycle *c, const kp_dra_claim *claim, uint32_t node);
/* PostFilter: the claim's reservations, allocation and device status cleared through core. */
void kp__dra_deallocate(const kp_cycle *c, uint32_t claim);
/* PreBind, once the pod's claims are allocated and reserved on node: true (buf: the
 * BindingConditionsPending text) when a device's binding conditions are not all True yet. */
bool kp__dra_prebind_waits(const kp_cycle *c, uint32_t node, char *buf, size_t cap);

#endif
