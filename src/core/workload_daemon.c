/* The DaemonSet rules core keeps once (upstream's component-helpers and the controller's pod
 * shape), for src/ctrl/daemonset.c and kp_cluster_create_daemon_pod: which
 * nodes should run a daemon pod, the tolerations it gets and the node affinity that pins it to
 * its node. */
#include <string.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "kprio/cluster.h"

/* util.AddOrUpdateDaemonPodTolerations' keys: not-ready and unreachable NoExecute, then
 * NoSchedule for the pressures and unschedulable, and network-unavailable for hostNetwork. */
static const char *const daemon_keys[] = {
    "node.kubernetes.io/not-ready",          "node.kubernetes.io/unreachable",
    "node.kubernetes.io/disk-pressure",      "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/pid-pressure",       "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/network-unavailable"};

static int n_defaults(const kp_workload *w) { return w->template_host_network ? 7 : 6; }

/* mirrors AddOrUpdateDaemonPodTolerations: the template's tolerations with the DaemonSet
 * controller's defaults added (v1helper.AddOrUpdateTolerationInPodSpec replaces a toleration of
 * the same key, operator, value and effect). */
kp_status kp__daemon_tolerations(kp_cluster *cl, const kp_workload *w, kp_toleration **out,
                                 uint16_t *n_out) {
    const kp_pod *t = w->template;
    if ((uint32_t)t->n_tolerations + 7 > UINT16_MAX) {
        *out = t->tolerations;
        *n_out = t->n_tolerations;
        return KP_OK; /* (65,528 tolerations: the decoder's limit leaves no room; kept as is) */
    }
    kp_toleration *v = kp__arena_alloc(&cl->arena, ((size_t)t->n_tolerations + 7) * sizeof *v);
    if (!v) return KP_ENOMEM;
    uint16_t n = t->n_tolerations;
    if (n) memcpy(v, t->tolerations, n * sizeof *v);
    for (int k = 0; k < n_defaults(w); k++) {
        kp_str key = kp__intern(&cl->strs, daemon_keys[k], strlen(daemon_keys[k]));
        if (key == UINT32_MAX) return KP_ENOMEM;
        kp_toleration d = {
            key, 0, KP_TOL_EXISTS, k < 2 ? KP_EFFECT_NOEXECUTE : KP_EFFECT_NOSCHEDULE, false, 0};
        uint16_t i = 0;
        while (i < n && !(v[i].key == key && v[i].op == KP_TOL_EXISTS && !v[i].value &&
                          v[i].effect == d.effect))
            i++;
        v[i] = d; /* replaces a matching one (dropping its tolerationSeconds) or appends */
        if (i == n) n++;
    }
    *out = v;
    *n_out = n;
    return KP_OK;
}

/* Whether the template's tolerations with the controller's defaults tolerate the taint (a
 * replaced toleration differs only in tolerationSeconds, which toleration does not read). */
static bool daemon_tolerates(const kp_cluster *cl, const kp_workload *w, const kp_taint *taint) {
    if (kp__tolerations_tolerate(w->template, taint)) return true;
    for (int k = 0; k < n_defaults(w); k++) {
        kp_str key = kp__intern_find(&cl->strs, daemon_keys[k], strlen(daemon_keys[k]));
        kp_toleration d = {
            key, 0, KP_TOL_EXISTS, k < 2 ? KP_EFFECT_NOEXECUTE : KP_EFFECT_NOSCHEDULE, false, 0};
        if (key != UINT32_MAX && kp__toleration_tolerates(&d, taint)) return true;
    }
    return false;
}

/* mirrors NodeShouldRunDaemonPod (daemon_controller.go) with its predicates: the template's
 * spec.nodeName, its node selector and required node affinity must fit the node; every NoSchedule
 * and NoExecute taint must be tolerated to run (should_run), every NoExecute one to keep running
 * (should_continue). */
void kp__daemon_should_run(const kp_cluster *cl, const kp_workload *w, const kp_node *node,
                           bool *should_run, bool *should_continue) {
    *should_run = *should_continue = false;
    const kp_pod *t = w->template;
    if (!t || (t->node_name && t->node_name != node->name)) return;
    if (!kp__pod_matches_node_selector_and_affinity(cl, t, node)) return;
    bool run = true, cont = true;
    for (uint16_t k = 0; k < node->n_taints; k++) {
        const kp_taint *taint = &node->taints[k];
        if (taint->effect != KP_EFFECT_NOSCHEDULE && taint->effect != KP_EFFECT_NOEXECUTE) continue;
        if (daemon_tolerates(cl, w, taint)) continue;
        run = false;
        if (taint->effect == KP_EFFECT_NOEXECUTE) cont = false;
    }
    *should_run = run;
    *should_continue = cont;
}

/* mirrors ReplaceDaemonSetPodNodeNameNodeAffinity: the template's node affinity with its required
 * terms replaced by one term, matchFields metadata.name In [node]; preferred terms kept. */
kp_node_affinity *kp__daemon_pin(kp_cluster *cl, const kp_pod *t, kp_str node) {
    kp_arena *a = &cl->arena;
    kp_node_affinity *na = kp__arena_alloc(a, sizeof *na);
    kp_nsterm *term = kp__arena_alloc(a, sizeof *term);
    kp_selreq *req = kp__arena_alloc(a, sizeof *req);
    kp_str *val = kp__arena_alloc(a, sizeof *val);
    kp_str key = kp__intern(&cl->strs, "metadata.name", 13);
    if (!na || !term || !req || !val || key == UINT32_MAX) return NULL;
    memset(na, 0, sizeof *na);
    memset(term, 0, sizeof *term);
    if (t->node_affinity) *na = *t->node_affinity;
    *val = node;
    *req = (kp_selreq){key, KP_OP_IN, 1, val};
    term->n_fields = 1;
    term->fields = req;
    na->has_required = true;
    na->n_required = 1;
    na->required = term;
    return na;
}

/* GetTargetNodeName: spec.nodeName, else the required node affinity's matchFields
 * metadata.name In [one node] (a pending DaemonSet pod). */
kp_str kp__pod_target_node(const kp_cluster *cl, const kp_pod *p) {
    if (p->node_name) return p->node_name;
    const kp_node_affinity *a = p->node_affinity;
    for (uint16_t t = 0; a && t < a->n_required; t++)
        for (uint16_t f = 0; f < a->required[t].n_fields; f++) {
            const kp_selreq *r = &a->required[t].fields[f];
            if (r->op == KP_OP_IN && r->n_values == 1 &&
                strcmp(kp__s(cl, r->key), "metadata.name") == 0)
                return r->values[0];
        }
    return 0;
}

kp_index kp_cluster_pod_target_node(const kp_cluster *cl, kp_index pod) {
    if (pod < 0 || (size_t)pod >= cl->n_pods) return -1;
    kp_str name = kp__pod_target_node(cl, &cl->pods[pod]);
    if (!name) return -1;
    kp_index n = kp_cluster_find_node(cl, kp__s(cl, name));
    return n >= 0 ? n : -2;
}
