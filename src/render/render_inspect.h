/* Rendering of an inspection (kprio/inspect.h): kubectl-style tables, or a kprio/v1alpha1
 * ClusterInspection document in JSON or YAML (keys: summary, nodes[], priorityClasses[],
 * podDisruptionBudgets[], warnings[]).
 *
 * Typical use:
 *     kp_inspection *in;
 *     if (kp_inspection_new(cl, &in, &err) == KP_OK) {
 *         kp_status st = kp_render_inspection(stdout, in, KP_OUT_JSON);   // KP_ENOMEM: nothing
 * written kp_inspection_free(in);
 *     } */
#ifndef KP_RENDER_RENDER_INSPECT_H
#define KP_RENDER_RENDER_INSPECT_H

#include <stdio.h>

#include "kprio/common.h"
#include "kprio/inspect.h"
#include "render/emit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the inspection to f in fmt. Everything that allocates happens before the first byte is
 * written, so KP_ENOMEM means nothing was written. */
kp_status kp_render_inspection(FILE *f, const kp_inspection *in, kp_outfmt fmt);

#ifdef __cplusplus
}
#endif
#endif
