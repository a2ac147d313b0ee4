/* The feature gates that differ from the mirrored line's defaults, as `--explain` shows them
 * (schedule and evict): one copy for the table and the JSON/YAML forms. */
#ifndef KP_RENDER_RENDER_GATES_H
#define KP_RENDER_RENDER_GATES_H

#include <stdio.h>

#include "kprio/cluster.h"
#include "render/emit.h"

/* A "featureGates" object of the differing gates; nothing when every gate is at its default. */
void kp__render_emit_gates(kp_emit *e, const kp_cluster *cl);
/* One line "<lead>Gate=bool,Gate=bool\n"; nothing when every gate is at its default. */
void kp__render_print_gates(FILE *f, const kp_cluster *cl, const char *lead);

#endif
