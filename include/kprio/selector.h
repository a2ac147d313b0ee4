/* Label selector strings, as kubectl's -l / --selector reads them (labels.Parse): requirements
 * separated by commas, each `key=value`, `key==value`, `key!=value`, `key in (a,b)`,
 * `key notin (a,b)`, `key` (exists) or `!key` (does not exist); "" selects everything. Keys are
 * qualified names and values label values, checked as the API server checks them. The same
 * parser reads a scenario's `nodeSelector` and `podSelector` (docs/scenario.md). */
#ifndef KP_SELECTOR_H
#define KP_SELECTOR_H

#include <stddef.h>

#include "kprio/cluster.h"
#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_selector kp_selector;

/* Parses text into *out (release with kp_selector_free). Errors: KP_EINVAL with the message
 * `invalid label selector "TEXT": REASON` (no source), KP_ENOMEM. */
kp_status kp_selector_parse(const char *text, kp_selector **out, kp_error *err);
/* The requirements, in the order written (*n may be 0: everything); borrowed from s. */
const kp_selector_req *kp_selector_reqs(const kp_selector *s, size_t *n);
/* Whether the pod's labels satisfy s (kp_cluster_pod_matches). */
bool kp_selector_matches_pod(const kp_selector *s, const kp_cluster *cl, kp_index pod);
void kp_selector_free(kp_selector *s); /* NULL: no-op */

#ifdef __cplusplus
}
#endif
#endif
