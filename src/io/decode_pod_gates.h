/* spec.schedulingGates of a Pod (internal): names validated as the API server does. */
#ifndef KP_IO_DECODE_POD_GATES_H
#define KP_IO_DECODE_POD_GATES_H

#include "core/cluster.h"
#include "core/pod.h"
#include "io/dctx.h"
#include "io/tree.h"

/* IsQualifiedName: NULL when s[0..len) is a qualified name, else upstream's first message (label
 * keys, selector keys, gate names). */
const char *kp__qualified_name_error(const char *s, size_t len);
/* Reads spec.schedulingGates into p (qualified names, no duplicates). */
kp_status kp__decode_pod_gates(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p);

#endif
