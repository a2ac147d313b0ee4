/* --explain: the recorder the scheduling attempt calls for the explained pod only, and the
 * public accessors over what it recorded (explain.h). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/sched_config.h"
#include "core/taints.h"
#include "kprio/preempt.h"
#include "sched/cycle.h"
#include "sched/framework.h"
#include "sched/plugins/node_volume_limits.h"
#include "sched/plugins/taint_toleration.h"

/* ---- the recorder ---- */

void kp__explain_begin(kp_explain *e, uint32_t n_nodes) {
    if (e->has_preempt) kp__preempt_result_fini(&e->preempt);
    memset(e->nodes, 0, (n_nodes + 1) * sizeof *e->nodes);
    e->attempted = true;
    e->has_preempt = false;
    e->selected = -1;
    e->nominated_first = false;
    e->text.len = 0;
    e->prefilter_msg = kp__textbuf_add(&e->text, "", NULL);
    e->pre_enqueue_msg = KP_TEXT_NONE;
    e->enomem = e->prefilter_msg == KP_TEXT_NONE;
}

void kp__explain_prefilter(kp_explain *e, const kp_node_status *pre) {
    e->prefilter_msg = kp__textbuf_add(&e->text, NULL, pre);
    if (e->prefilter_msg == KP_TEXT_NONE) e->enomem = true;
}

/* TaintToleration's reason no longer names the taint (PR #134740): --explain names it, in
 * kubectl taint's syntax: "node(s) had untolerated taint(s) (KEY=VALUE:EFFECT)". */
static void explain_taint(kp_sched *s, const kp_pod *p, uint32_t node, kp_explain_filter *f) {
    const kp_cluster *cl = s->cl;
    const kp_node *n = &cl->nodes[node];
    int i = kp__first_untolerated_taint(p, n);
    if (i < 0) return;
    const kp_taint *t = &n->taints[i];
    const char *key = kp__s(cl, t->key), *val = kp__s(cl, t->value);
    const char *eff = t->effect == KP_EFFECT_NOEXECUTE ? "NoExecute" : "NoSchedule";
    size_t len = strlen(KP_REASON_UNTOLERATED_TAINTS) + strlen(key) + strlen(val) + 32;
    char *txt = kp__malloc(len);
    if (!txt) {
        s->explain->enomem = true;
        return;
    }
    snprintf(txt, len, "%s (%s%s%s:%s)", KP_REASON_UNTOLERATED_TAINTS, key, *val ? "=" : "", val,
             eff);
    f->reason = kp__textbuf_add(&s->explain->text, txt, NULL);
    if (f->reason == KP_TEXT_NONE) s->explain->enomem = true;
    kp__free(txt);
}

void kp__explain_filters(kp_sched *s, kp_cycle *c, uint32_t node, const kp_node_status *overall) {
    kp_explain_node *en = &s->explain->nodes[node];
    en->evaluated = true;
    en->overall = *overall;
    kp__cycle_explain_filters(c, node, en, s->explain);
    if (!s->reasons.generic_taint) return;
    const kp_pod *p = &s->cl->pods[s->explain->pod];
    for (uint8_t i = 0; i < en->n_filters; i++)
        if (en->filters[i].plugin == KP_PL_TAINT_TOLERATION &&
            en->filters[i].code != KP_CODE_SUCCESS)
            explain_taint(s, p, node, &en->filters[i]);
}

void kp__explain_plugin_scores(kp_sched *s, kp_plugin pl, uint32_t n_feas, int64_t weight) {
    for (uint32_t i = 0; i < n_feas; i++)
        s->explain->nodes[s->feasible[i]].plugin_score[pl] =
            weight ? s->plug_scores[i] * weight : 0;
}

void kp__explain_totals(kp_sched *s, uint32_t n_feas) {
    for (uint32_t i = 0; i < n_feas; i++) {
        s->explain->nodes[s->feasible[i]].scored = true;
        s->explain->nodes[s->feasible[i]].total = s->scores[i];
    }
}

/* ---- accessors ---- */

const char *kp_filter_code_name(kp_filter_code c) {
    switch (c) {
    case KP_FILTER_SUCCESS: return "Success";
    case KP_FILTER_UNSCHEDULABLE: return "Unschedulable";
    case KP_FILTER_UNRESOLVABLE: return "UnschedulableAndUnresolvable";
    case KP_FILTER_ERROR: return "Error";
    }
    return "?";
}

/* The explained pod's profile (the first when no explanation was asked for, or when no profile
 * serves the pod). */
static const kp_sched_config *explain_profile(const kp_sched *s) {
    int32_t k = s->explain ? kp__sched_profile_of(s, &s->cl->pods[s->explain->pod]) : -1;
    return &s->prof[k < 0 ? 0 : k].cfg;
}

bool kp_sched_explanation_get(const kp_sched *s, kp_sched_explanation *out) {
    const kp_explain *x = s->explain;
    if (!x) return false;
    out->pod = x->pod;
    out->attempted = x->attempted;
    out->prefilter_message = kp__textbuf_get(&x->text, x->prefilter_msg);
    out->pre_enqueue_message = kp__textbuf_get(&x->text, x->pre_enqueue_msg);
    out->nominated_node_first = x->nominated_first;
    out->selected_node = x->selected;
    out->n_nodes = x->n_nodes;
    out->has_preemption = x->has_preempt;
    int32_t k = kp__sched_profile_of(s, &s->cl->pods[x->pod]);
    out->scheduler_name = k < 0 ? "" : s->prof[k].cfg.scheduler_name;
    return true;
}

static const kp_explain_node *explain_node(const kp_sched *s, kp_index node) {
    if (!s->explain || node < 0 || (uint32_t)node >= s->explain->n_nodes) return NULL;
    return &s->explain->nodes[node];
}

kp_status kp_sched_explain_node_get(const kp_sched *s, kp_index node, kp_sched_explain_node *out) {
    const kp_explain_node *n = explain_node(s, node);
    if (!n) return KP_EINVAL;
    out->evaluated = n->evaluated;
    out->code = (kp_filter_code)n->overall.code;
    out->plugin = n->overall.plugin;
    out->n_reasons = n->overall.n_reasons;
    out->n_filters = n->n_filters;
    out->scored = n->scored;
    out->total_score = n->total;
    return KP_OK;
}

const char *kp_sched_explain_node_reason(const kp_sched *s, kp_index node, size_t i) {
    const kp_explain_node *n = explain_node(s, node);
    return n && i < n->overall.n_reasons ? n->overall.reasons[i] : "";
}

kp_status kp_sched_explain_filter_get(const kp_sched *s, kp_index node, size_t i,
                                      kp_sched_explain_filter *out) {
    const kp_explain_node *n = explain_node(s, node);
    if (!n || i >= n->n_filters) return KP_EINVAL;
    if (n->filters[i].reason == KP_TEXT_NONE) return KP_ENOMEM;
    out->plugin = kp__plugin_name((kp_plugin)n->filters[i].plugin);
    out->code = (kp_filter_code)n->filters[i].code;
    out->reason = kp__textbuf_get(&s->explain->text, n->filters[i].reason);
    return KP_OK;
}

size_t kp_sched_score_plugin_count(const kp_sched *s) { return explain_profile(s)->n_score; }

const char *kp_sched_score_plugin_name(const kp_sched *s, size_t k) {
    const kp_sched_config *c = explain_profile(s);
    return k < c->n_score ? kp__plugin_name((kp_plugin)c->score[k]) : "";
}

int64_t kp_sched_explain_score(const kp_sched *s, kp_index node, size_t k) {
    const kp_explain_node *n = explain_node(s, node);
    const kp_sched_config *c = explain_profile(s);
    return n && k < c->n_score ? n->plugin_score[c->score[k]] : 0;
}

size_t kp_sched_profile_count(const kp_sched *s) { return s->n_prof; }

const char *kp_sched_profile_name(const kp_sched *s, size_t i) {
    return i < s->n_prof ? s->prof[i].cfg.scheduler_name : "";
}

kp_status kp_sched_explain_preemption_get(const kp_sched *s, kp_sched_preemption_explain *out) {
    if (!s->explain || !s->explain->has_preempt) return KP_EINVAL;
    const kp_preempt_result *pr = &s->explain->preempt;
    out->outcome = pr->outcome == KP_PREEMPT_NOMINATED      ? KP_PREEMPTION_NOMINATED
                   : pr->outcome == KP_PREEMPT_NOT_ELIGIBLE ? KP_PREEMPTION_NOT_ELIGIBLE
                                                            : KP_PREEMPTION_NO_CANDIDATES;
    out->node = pr->node;
    out->decided_by = pr->decided_by ? pr->decided_by : "";
    out->message = pr->message ? pr->message : "";
    out->n_nodes = pr->n_nodes;
    return KP_OK;
}

static const kp_preempt_node *preempt_node(const kp_sched *s, size_t i) {
    if (!s->explain || !s->explain->has_preempt || i >= s->explain->preempt.n_nodes) return NULL;
    return &s->explain->preempt.nodes[i];
}

kp_status kp_sched_explain_preemption_node_get(const kp_sched *s, size_t i,
                                               kp_sched_preemption_node *out) {
    const kp_preempt_node *pn = preempt_node(s, i);
    if (!pn) return KP_EINVAL;
    out->node = pn->node;
    out->filter_code = (kp_filter_code)pn->filter_code;
    out->considered = pn->considered;
    out->candidate = pn->candidate;
    out->n_reasons = pn->dry_status.n_reasons;
    out->n_victims = pn->n_victims;
    out->pdb_violations = pn->pdb_violations;
    return KP_OK;
}

kp_index kp_sched_explain_preemption_victim(const kp_sched *s, size_t i, size_t v) {
    const kp_preempt_node *pn = preempt_node(s, i);
    return pn && v < pn->n_victims ? (kp_index)pn->victims[v] : -1;
}

const char *kp_sched_explain_preemption_reason(const kp_sched *s, size_t i, size_t r) {
    const kp_preempt_node *pn = preempt_node(s, i);
    return pn && r < pn->dry_status.n_reasons ? pn->dry_status.reasons[r] : "";
}

/* NodeVolumeLimits' counts for the pod on every node, from a cycle of its own (RunPreFilterPlugins
 * then the plugin's rule, kp__node_volume_limits_slots: the one --explain prints) */
kp_status kp_sched_attach_slots_get(kp_sched *s, kp_index pod, kp_sched_attach_slots *out,
                                    size_t n_out, kp_error *err) {
    const kp_cluster *cl = s->cl;
    if (pod < 0 || (size_t)pod >= cl->n_pods)
        return kp_error_set(err, KP_EINVAL, "attach slots: pod index %ld out of range", pod);
    if (n_out < cl->n_nodes)
        return kp_error_set(err, KP_EINVAL, "attach slots: %zu entries for %u nodes", n_out,
                            cl->n_nodes);
    memset(out, 0, n_out * sizeof *out);
    kp__sched_use_profile(s, (uint32_t)pod);
    kp_node_status pre;
    kp_cycle *c = kp__cycle_new(s, (uint32_t)pod, &pre);
    if (!c) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = kp__cycle_status(c);
    for (uint32_t i = 0; st == KP_OK && c->run[KP_PL_NODE_VOLUME_LIMITS] && i < cl->n_nodes; i++)
        kp__node_volume_limits_slots(c, &cl->nodes[i], &out[i]);
    kp__cycle_free(c);
    return st == KP_OK ? KP_OK : kp_error_set(err, st, "out of memory");
}
