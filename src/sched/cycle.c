/* CycleState for one pod: PreFilter, Filter with the two-pass nominated-pods rule, and the
 * PreFilterExtensions AddPod/RemovePod that preemption uses (mirrors frameworkImpl's
 * RunPreFilterPlugins, RunFilterPlugins, RunFilterPluginsWithNominatedPods, addGENominatedPods). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/dra.h"
#include "core/host_ports.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/sched_config.h"
#include "sched/cycle.h"
#include "sched/nominator.h"

static bool in_list(const uint8_t *l, uint8_t n, kp_plugin pl) {
    for (uint8_t i = 0; i < n; i++)
        if (l[i] == pl) return true;
    return false;
}

/* mirrors RunPreFilterPlugins for the plugins kprio models. */
kp_cycle *kp__cycle_new(kp_sched *s, uint32_t pod, kp_node_status *pre) {
    kp_cycle *c = kp__calloc(1, sizeof *c);
    if (!c) return NULL;
    c->s = s;
    c->pod = pod;
    c->p = &s->cl->pods[pod];
    kp__pairmap_init(&c->aff_counts, false);
    kp__pairmap_init(&c->anti_counts, false);
    kp__pairmap_init(&c->existing_anti, false);
    kp__status_reset(pre);
    const kp_sched_config *cfg = &s->cfg;
    for (uint8_t i = 0; i < cfg->n_filter; i++) c->run[cfg->filter[i]] = true;
    const kp_pod *p = c->p;
    const kp__plugin_ops *ops = s->plugins;
    for (uint8_t k = 0; k < KP_PL_COUNT; k++) /* NodeResourcesFit's requests, for every pod */
        if (ops[k].prepare) ops[k].prepare(c);

    /* PreFilter Skip decisions (the plugin's Filter then does not run) */
    if (!p->node_affinity || !p->node_affinity->has_required) {
        if (p->node_selector.n == 0) c->run[KP_PL_NODE_AFFINITY] = false;
    }
    if (!kp__pod_has_host_ports(p)) c->run[KP_PL_NODE_PORTS] = false;
    bool vr_skip = true, nvl_skip = true;

    /* run PreFilter in the configured order; the first rejection stops (RunPreFilterPlugins) */
    for (uint8_t i = 0; i < cfg->n_prefilter; i++) {
        kp_plugin pl = (kp_plugin)cfg->prefilter[i];
        kp_status st = KP_OK;
        switch (pl) {
        case KP_PL_NODE_AFFINITY:
            if (c->run[KP_PL_NODE_AFFINITY] || in_list(cfg->filter, cfg->n_filter, pl))
                st = ops[pl].prefilter(c, pre, NULL);
            break;
        case KP_PL_INTERPOD:
        case KP_PL_SPREAD:
            if (c->run[pl]) st = ops[pl].prefilter(c, pre, NULL);
            break;
        case KP_PL_VOLUME_ZONE: /* a pod without kept volumes has nothing to check */
        case KP_PL_VOLUME_BINDING:
            if (p->n_volumes) st = ops[pl].prefilter(c, pre, NULL);
            break;
        case KP_PL_VOLUME_RESTRICTIONS:
            if (p->n_volumes) st = ops[pl].prefilter(c, pre, &vr_skip);
            break;
        case KP_PL_NODE_VOLUME_LIMITS:
            if (p->n_volumes) st = ops[pl].prefilter(c, pre, &nvl_skip);
            break;
        default: break;
        }
        if (st != KP_OK) {
            kp__cycle_free(c);
            return NULL;
        }
        if (pre->code != KP_CODE_SUCCESS) {
            pre->plugin = kp__plugin_name(pl);
            break;
        }
    }
    /* DynamicResources, last as in the default order, for a pod with claims (sched_config.h) */
    c->run[KP_PL_DYNAMIC_RESOURCES] = false;
    if (cfg->dra_prefilter && (p->n_claims || kp__dra_ext_wanted(s->cl, p)) &&
        pre->code == KP_CODE_SUCCESS) {
        bool skip = true;
        if (ops[KP_PL_DYNAMIC_RESOURCES].prefilter(c, pre, &skip) != KP_OK) {
            kp__cycle_free(c);
            return NULL;
        }
        if (pre->code != KP_CODE_SUCCESS) pre->plugin = kp__plugin_name(KP_PL_DYNAMIC_RESOURCES);
        c->run[KP_PL_DYNAMIC_RESOURCES] = !skip && cfg->dra_filter;
    }
    if (!c->ipa) c->run[KP_PL_INTERPOD] = false;
    if (!c->n_spread) c->run[KP_PL_SPREAD] = false;
    if (!c->n_vz) c->run[KP_PL_VOLUME_ZONE] = false;
    if (!c->n_vb_bound && !c->n_vb_unbound) c->run[KP_PL_VOLUME_BINDING] = false;
    if (vr_skip) c->run[KP_PL_VOLUME_RESTRICTIONS] = false;
    if (nvl_skip) c->run[KP_PL_NODE_VOLUME_LIMITS] = false;
    for (uint8_t i = 0; i < cfg->n_filter; i++) {
        /* NodeName.Filter succeeds on every node for a pod without spec.nodeName: not run (it still
         * shows as run in --explain, which reads c->run) */
        if (cfg->filter[i] == KP_PL_NODE_NAME && !p->node_name) continue;
        if (c->run[cfg->filter[i]]) c->active[c->n_active++] = cfg->filter[i];
    }
    if (c->run[KP_PL_DYNAMIC_RESOURCES]) c->active[c->n_active++] = KP_PL_DYNAMIC_RESOURCES;
    return c;
}

void kp__cycle_free(kp_cycle *c) {
    if (!c) return;
    for (uint8_t k = 0; k < KP_PL_COUNT; k++) /* each plugin's own CycleState */
        if (c->s->plugins[k].fini) c->s->plugins[k].fini(c);
    kp__pairmap_fini(&c->aff_counts);
    kp__pairmap_fini(&c->anti_counts);
    kp__pairmap_fini(&c->existing_anti);
    kp__free(c->allowed);
    if (c->vz) kp__free(c->vz);
    if (c->rwop) kp__free(c->rwop);
    if (c->vb_bound) kp__free(c->vb_bound);
    if (c->vb_unbound) kp__free(c->vb_unbound);
    kp__free(c);
}

/* kp__status_reset, inlined: the filter loop resets once per node, not once per plugin */
static inline void status_clear(kp_node_status *st) {
    st->code = KP_CODE_SUCCESS;
    st->plugin = NULL;
    st->n_reasons = 0;
}

/* PreFilterExtensions AddPod (sign 1) / RemovePod (-1) of pod q on node n: the plugins whose
 * PreFilter state counts pods (InterPodAffinity, PodTopologySpread, VolumeRestrictions) */
static void update_pod(kp_cycle *c, const kp__plugin_ops *ops, const kp_pod *q, const kp_node *n,
                       int sign) {
    if (c->ipa) ops[KP_PL_INTERPOD].update(c, q, n, sign);
    if (c->n_spread) ops[KP_PL_SPREAD].update(c, q, n, sign);
    if (c->n_rwop) ops[KP_PL_VOLUME_RESTRICTIONS].update(c, q, n, sign);
}

/* One filter plugin on node (with c->extra pods virtually present); st must be clear (Success, no
 * reasons) on entry: a plugin writes only when it rejects the node. */
static void filter_one(const kp_cycle *c, kp_plugin pl, uint32_t node, kp_node_status *st) {
    const kp_node *n = &c->s->cl->nodes[node];
    const kp__plugin_ops *ops = &c->s->plugins[pl];
    if (ops->filter) ops->filter(c, node, n, st);
    if (st->code != KP_CODE_SUCCESS) st->plugin = kp__plugin_name(pl);
}

static void run_plugin(const kp_cycle *c, kp_plugin pl, uint32_t node, kp_node_status *st) {
    status_clear(st);
    filter_one(c, pl, node, st);
}

/* mirrors RunFilterPlugins: the first non-success status wins. NodeUnschedulable and
 * TaintToleration are not called on nodes where they cannot reject (schedulable node, no taints).
 */
static void run_filters(const kp_cycle *c, uint32_t node, kp_node_status *out) {
    const kp_node *n = &c->s->cl->nodes[node];
    status_clear(out);
    for (uint8_t i = 0; i < c->n_active; i++) {
        kp_plugin pl = (kp_plugin)c->active[i];
        if (pl == KP_PL_NODE_UNSCHEDULABLE && !n->unschedulable) continue;
        if (pl == KP_PL_TAINT_TOLERATION && n->n_taints == 0) continue;
        filter_one(c, pl, node, out);
        if (out->code != KP_CODE_SUCCESS) return;
    }
}

/* Pass 1 from the nominator's sums when no filter of this pod needs the nominated pods
 * themselves (NodeResourcesFit only counts them and adds their requests; NodePorts,
 * InterPodAffinity, PodTopologySpread, NodeVolumeLimits and VolumeRestrictions read the pods): a
 * lookup instead of a walk. */
static void filter_with_sums(kp_cycle *c, uint32_t node, kp_node_status *out) {
    uint32_t n = kp__sched_nominated_sum(c->s, node, c->p->priority, c->pod, c->nom_sum);
    if (n > 0) {
        c->extra_sum = c->nom_sum;
        c->n_extra = n;
        run_filters(c, node, out);
        c->extra_sum = NULL;
        c->n_extra = 0;
        if (out->code != KP_CODE_SUCCESS) return;
    }
    run_filters(c, node, out);
}

/* mirrors RunFilterPluginsWithNominatedPods + addGENominatedPods */
void kp__cycle_filter(kp_cycle *c, uint32_t node, kp_node_status *out) {
    kp_sched *s = c->s;
    kp_cluster *cl = s->cl;
    if (s->nom_n[node] == 0) {
        run_filters(c, node, out);
        return;
    }
    if (!c->ipa && !c->n_spread && !c->run[KP_PL_NODE_PORTS] && !c->run[KP_PL_NODE_VOLUME_LIMITS] &&
        !c->run[KP_PL_VOLUME_RESTRICTIONS]) {
        filter_with_sums(c, node, out);
        return;
    }
    /* every nominated pod counts (no cap): the scratch is as long as the longest list */
    uint32_t *extra = s->nom_scratch, n_extra = 0;
    for (uint32_t i = 0; i < s->nom_n[node]; i++) {
        uint32_t q = s->nom_pods[node][i];
        if (q == c->pod || cl->pods[q].node >= 0) continue;
        if (cl->pods[q].priority >= c->p->priority) extra[n_extra++] = q;
    }
    if (n_extra == 0) {
        run_filters(c, node, out);
        return;
    }
    /* pass 1: a virtual NodeInfo with the nominated pods added (Fit and NodePorts read
     * c->extra; the PreFilter state gets AddPod, undone afterwards) */
    const kp__plugin_ops *ops = s->plugins;
    ops[KP_PL_SPREAD].save(c);
    const kp_node *n = &cl->nodes[node];
    for (uint32_t i = 0; i < n_extra; i++) update_pod(c, ops, &cl->pods[extra[i]], n, 1);
    c->extra = extra;
    c->n_extra = n_extra;
    run_filters(c, node, out);
    c->extra = NULL;
    c->n_extra = 0;
    for (uint32_t i = 0; i < n_extra; i++) update_pod(c, ops, &cl->pods[extra[i]], n, -1);
    ops[KP_PL_SPREAD].restore(c);
    if (out->code != KP_CODE_SUCCESS) return;
    /* pass 2: the real node */
    run_filters(c, node, out);
}

/* PreFilterExtensions.RemovePod / AddPod of InterPodAffinity, PodTopologySpread and
 * VolumeRestrictions */
void kp__cycle_remove_pod(kp_cycle *c, uint32_t victim, uint32_t node) {
    const kp_node *n = &c->s->cl->nodes[node];
    update_pod(c, c->s->plugins, &c->s->cl->pods[victim], n, -1);
}

void kp__cycle_add_pod(kp_cycle *c, uint32_t victim, uint32_t node) {
    const kp_node *n = &c->s->cl->nodes[node];
    update_pod(c, c->s->plugins, &c->s->cl->pods[victim], n, 1);
}

/* A rejection's reason with the detail behind it: NodeVolumeLimits' counts
 * (plugins/node_volume_limits.c), DynamicResources' devices and their holders */
static void explain_note(const kp_cycle *c, kp_plugin pl, uint32_t node, kp_explain_filter *f,
                         kp_explain *x) {
    char note[1024];
    c->s->plugins[pl].note(c, &c->s->cl->nodes[node], note, sizeof note);
    if (!note[0] || f->reason == KP_TEXT_NONE) return;
    const char *r = kp__textbuf_get(&x->text, f->reason);
    size_t lr = strlen(r), ln = strlen(note);
    char *both = kp__malloc(lr + ln + 4);
    if (!both) {
        x->enomem = true;
        return;
    }
    memcpy(both, r, lr);
    memcpy(both + lr, " (", 2);
    memcpy(both + lr + 2, note, ln);
    memcpy(both + lr + 2 + ln, ")", 2);
    f->reason = kp__textbuf_add(&x->text, both, NULL);
    kp__free(both);
}

/* --explain: every enabled filter's own verdict on the real node (no early stop). */
void kp__cycle_explain_filters(const kp_cycle *c, uint32_t node, kp_explain_node *en,
                               kp_explain *x) {
    const kp_sched_config *cfg = &c->s->cfg;
    en->n_filters = 0;
    for (uint8_t i = 0; i < cfg->n_filter; i++) {
        kp_plugin pl = (kp_plugin)cfg->filter[i];
        kp_explain_filter *f = &en->filters[en->n_filters++];
        f->plugin = (uint8_t)pl;
        if (!c->run[pl]) {
            f->code = KP_CODE_SUCCESS;
            f->reason = kp__textbuf_add(&x->text, "skipped (nothing to check for this pod)", NULL);
        } else {
            kp_node_status st;
            run_plugin(c, pl, node, &st);
            f->code = st.code;
            f->reason = kp__textbuf_add(&x->text, NULL, &st); /* every reason, whole */
            if (pl == KP_PL_NODE_VOLUME_LIMITS && st.code != KP_CODE_SUCCESS)
                explain_note(c, KP_PL_NODE_VOLUME_LIMITS, node, f, x);
        }
        if (f->reason == KP_TEXT_NONE) x->enomem = true;
    }
    if (c->run[KP_PL_DYNAMIC_RESOURCES] && en->n_filters < KP_PL_COUNT) {
        kp_explain_filter *f = &en->filters[en->n_filters++];
        kp_node_status st;
        f->plugin = KP_PL_DYNAMIC_RESOURCES;
        run_plugin(c, KP_PL_DYNAMIC_RESOURCES, node, &st);
        f->code = st.code;
        f->reason = kp__textbuf_add(&x->text, NULL, &st);
        if (f->reason == KP_TEXT_NONE) x->enomem = true;
        else if (st.code != KP_CODE_SUCCESS) explain_note(c, KP_PL_DYNAMIC_RESOURCES, node, f, x);
    }
}
