/* Label selectors, node selector terms and (anti-)affinity terms, and their matching (internal;
 * mirrors apimachinery labels.Selector and component-helpers nodeaffinity). */
#ifndef KP_CORE_SELECTOR_H
#define KP_CORE_SELECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/labels.h"
#include "kprio/cluster.h"

typedef enum {
    KP_OP_IN,
    KP_OP_NOTIN,
    KP_OP_EXISTS,
    KP_OP_DOESNOTEXIST,
    KP_OP_GT,
    KP_OP_LT
} kp_selop;
typedef struct {
    kp_str key;
    kp_selop op;
    uint16_t n_values;
    kp_str *values;
} kp_selreq;
/* metav1.LabelSelector. is_set false = nil selector. */
typedef struct {
    bool is_set;
    kp_labels match_labels;
    uint16_t n_exprs;
    kp_selreq *exprs;
} kp_label_selector;

/* v1.NodeSelectorTerm: matchExpressions over labels, matchFields over metadata.name. */
typedef struct {
    uint16_t n_exprs, n_fields;
    kp_selreq *exprs, *fields;
} kp_nsterm;
typedef struct {
    int32_t weight;
    kp_nsterm term;
} kp_pref_nsterm;
typedef struct {
    bool has_required; /* requiredDuringSchedulingIgnoredDuringExecution present */
    uint16_t n_required; /* nodeSelectorTerms (ORed) */
    kp_nsterm *required;
    uint16_t n_preferred;
    kp_pref_nsterm *preferred;
} kp_node_affinity;

typedef struct {
    kp_label_selector selector;
    uint16_t n_namespaces;
    kp_str *namespaces;
    kp_label_selector ns_selector; /* is_set false = nil */
    kp_str topology_key;
    uint16_t n_match_label_keys, n_mismatch_label_keys;
    kp_str *match_label_keys, *mismatch_label_keys;
} kp_pod_affinity_term;
typedef struct {
    int32_t weight;
    kp_pod_affinity_term term;
} kp_weighted_pat;
typedef struct {
    uint16_t n_required, n_preferred;
    kp_pod_affinity_term *required;
    kp_weighted_pat *preferred;
} kp_pod_affinity;

struct kp_node;
struct kp_pod;

/* metav1.LabelSelectorAsSelector(...).Matches. A nil selector matches nothing; an empty one
 * matches everything (callers decide which applies in their context). */
bool kp__selector_matches(const kp_cluster *cl, const kp_label_selector *sel, const kp_labels *l);
/* One NodeSelectorRequirement against labels (Gt/Lt parse integers as upstream). */
bool kp__selreq_matches(const kp_cluster *cl, const kp_selreq *r, const kp_labels *l);
/* v1.NodeSelectorTerm against a node (matchExpressions AND matchFields). Empty term matches
 * nothing. */
bool kp__nsterm_matches(const kp_cluster *cl, const kp_nsterm *t, const struct kp_node *n);
/* Required node affinity + nodeSelector (component-helpers GetRequiredNodeAffinity.Match). */
bool kp__pod_matches_node_selector_and_affinity(const kp_cluster *cl, const struct kp_pod *p,
                                                const struct kp_node *n);

#endif
