/* The in-tree plugins' table (mirrors plugins.NewInTreeRegistry): what the scheduler hands to the
 * framework so that the framework calls the plugins without naming them. */
#ifndef KP_SCHED_REGISTRY_H
#define KP_SCHED_REGISTRY_H

#include "sched/framework.h"

/* The entry points of every plugin kprio models, indexed by kp_plugin (KP_PL_COUNT entries,
 * static storage, NULL members where a plugin has no such extension point). */
extern const kp__plugin_ops kp__plugin_registry[KP_PL_COUNT];

#endif
