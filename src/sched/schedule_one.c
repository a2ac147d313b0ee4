/* One scheduling attempt: findNodesThatFitPod (nominated node first, then the full pass from
 * nextStartNodeIndex until numFeasibleNodesToFind), prioritizeNodes, selectHost, bind; on
 * failure the FitError and the DefaultPreemption PostFilter (pkg/scheduler/schedule_one.go). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/prng.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_state.h"
#include "core/sched_config.h"
#include "sched/cycle.h"
#include "sched/diagnosis.h"
#include "sched/explain.h"
#include "sched/framework.h"
#include "sched/memo.h"
#include "sched/nominator.h"
#include "sched/plugins/dynamic_resources.h"
#include "sched/plugins/dynamic_resources_enqueue.h"
#include "sched/plugins/inter_pod_affinity.h"
#include "sched/plugins/scheduling_gates.h"
#include "sched/preempt/preempt.h"
#include "sched/queueing_hints.h"
#include "sched/schedule_one.h"
#include "sched/score.h"

/* mirrors numFeasibleNodesToFind (minFeasibleNodesToFind 100, minFeasibleNodesPercentageToFind 5)
 */
uint32_t kp__num_feasible_to_find(int32_t pct, uint32_t n_all) {
    if (n_all < 100) return n_all;
    int64_t p = pct;
    if (p == 0) {
        p = 50 - (int64_t)n_all / 125;
        if (p < 5) p = 5;
    }
    int64_t k = (int64_t)n_all * p / 100;
    return k < 100 ? 100 : (uint32_t)k;
}

/* mirrors selectHost (reservoir sampling among the nodes with the maximum total score; the PRNG
 * replaces Go's global rand) */
uint32_t kp__select_host(kp_sched *s, const uint32_t *nodes, const int64_t *totals, uint32_t n) {
    uint32_t sel = nodes[0], cnt = 1;
    int64_t mx = totals[0];
    for (uint32_t i = 1; i < n; i++) {
        if (totals[i] > mx) {
            mx = totals[i];
            sel = nodes[i];
            cnt = 1;
        } else if (totals[i] == mx) {
            cnt++;
            if (kp__prng_below(&s->prng, cnt) == 0) sel = nodes[i];
        }
    }
    return sel;
}

/* mirrors FitError.Error(): "0/N nodes are available: <PreFilterMsg>." or the sorted histogram
 * of the reasons of every node with a status; *out is a heap string (kp__free) */
kp_status kp__fit_error_message(const kp_sched *s, const kp_node_status *prefilter, char **out) {
    uint32_t nn = s->cl->n_nodes;
    *out = NULL;
    size_t pre_len = prefilter ? kp__status_join(prefilter, NULL, 0) : 0;
    if (pre_len) { /* PreFilterMsg: every reason, whole */
        size_t cap = pre_len + 48;
        if (!(*out = kp__malloc(cap))) return KP_ENOMEM;
        int n = snprintf(*out, cap, "0/%u nodes are available: ", kp__cluster_live_nodes(s->cl));
        kp__status_join(prefilter, *out + n, cap - (size_t)n);
        strcat(*out + n + pre_len, ".");
        return KP_OK;
    }
    kp_diagnosis d;
    kp__diagnosis_init(&d);
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < nn && st == KP_OK; i++)
        if (s->has_status[i]) st = kp__diagnosis_add_status(&d, &s->statuses[i]);
    if (st == KP_OK) st = kp__diagnosis_text(&d, "", kp__cluster_live_nodes(s->cl), false, out);
    kp__diagnosis_fini(&d);
    return st;
}

/* ---- results ---- */

static kp_result_int *result_for(kp_sched *s, uint32_t pod) {
    if (s->res_of_pod[pod] >= 0) return &s->res[s->res_of_pod[pod]];
    if (s->n_res == s->cap_res &&
        !kp__grow32((void **)&s->res, &s->cap_res, (size_t)s->n_res + 1, sizeof *s->res, 64))
        return NULL;
    kp_result_int *r = &s->res[s->n_res];
    memset(r, 0, sizeof *r);
    r->pub.pod = pod;
    r->pub.priority = s->cl->pods[pod].priority;
    r->pub.node = r->pub.nominated_node = -1;
    r->pub.message = "";
    r->pub.decided_by = "";
    r->pub.scheduler_name = s->prof[s->cur].cfg.scheduler_name; /* the pod's (active) profile */
    s->res_of_pod[pod] = (int32_t)s->n_res++;
    return r;
}

static kp_status set_message(kp_result_int *r, const char *msg) {
    kp__free(r->message);
    r->message = NULL;
    r->pub.message = "";
    if (!msg || !*msg) return KP_OK;
    size_t len = strlen(msg);
    r->message = kp__malloc(len + 1);
    if (!r->message) return KP_ENOMEM;
    memcpy(r->message, msg, len + 1);
    r->pub.message = r->message;
    return KP_OK;
}

static kp_status add_victims(kp_result_int *r, const uint32_t *v, uint32_t n, int32_t node) {
    if (!n) return KP_OK;
    size_t have = r->pub.n_victims;
    if (have + n > r->cap_victims) { /* two arrays of one capacity: it moves once both grew */
        size_t cv = r->cap_victims, cn = r->cap_victims;
        bool ok = kp__grow((void **)&r->victims, &cv, have + n, sizeof *r->victims, 8);
        r->pub.victims = r->victims;
        ok = ok && kp__grow((void **)&r->victim_nodes, &cn, have + n, sizeof *r->victim_nodes, 8);
        r->pub.victim_nodes = r->victim_nodes;
        if (!ok) return KP_ENOMEM;
        r->cap_victims = cn;
    }
    for (uint32_t i = 0; i < n; i++) {
        r->victims[have + i] = v[i];
        r->victim_nodes[have + i] = node;
    }
    r->pub.n_victims = have + n;
    return KP_OK;
}

/* assume + bind: the pod joins the node through core's writer (later pods see it) and leaves
 * the nominator */
static kp_status bind(kp_sched *s, kp_cycle *c, uint32_t pod, uint32_t node) {
    kp_cluster *cl = s->cl;
    kp_status st = kp__pod_bind(cl, pod, node);
    if (st != KP_OK) return st;
    /* DynamicResources' Reserve and PreBind: the claims' allocation and reservation */
    if (c->dra && (st = kp__dra_bind(c, node)) != KP_OK) return st;
    const kp_pod *p = &cl->pods[pod];
    s->memo_mut++; /* the failed-attempt memo's state (memo.h) */
    kp__sched_hot_update(s, pod);
    kp__sched_nominate(s, pod, -1);
    if (kp__pod_has_required_anti(p)) s->n_anti_pods++;
    if (p->pod_affinity || p->pod_anti_affinity) return kp__sched_track_affinity_pod(s, pod);
    return KP_OK;
}

/* prioritizeNodes: weighted sum of the normalised plugin scores */
static kp_status prioritize(kp_sched *s, const kp_pod *p, uint32_t n_feas, bool explain) {
    const kp_sched_config *cfg = &s->cfg;
    memset(s->scores, 0, n_feas * sizeof *s->scores);
    for (uint8_t k = 0; k < cfg->n_score; k++) {
        kp_plugin pl = (kp_plugin)cfg->score[k];
        int scored = kp__score_plugin(s, pl, p, s->feasible, n_feas, s->plug_scores);
        if (scored < 0) return (kp_status)scored;
        if (!scored) {
            if (explain) kp__explain_plugin_scores(s, pl, n_feas, 0);
            continue;
        }
        int64_t w = cfg->score_weight[pl];
        for (uint32_t i = 0; i < n_feas; i++) s->scores[i] += s->plug_scores[i] * w;
        if (explain) kp__explain_plugin_scores(s, pl, n_feas, w);
    }
    /* DynamicResources' Score, last in the default order, for a pod with claims to allocate */
    if (cfg->dra_score && s->dra_cur) {
        kp_plugin pl = KP_PL_DYNAMIC_RESOURCES;
        int scored = kp__score_plugin(s, pl, p, s->feasible, n_feas, s->plug_scores);
        if (scored < 0) return (kp_status)scored;
        int64_t w = scored ? cfg->score_weight[pl] : 0;
        for (uint32_t i = 0; i < n_feas && scored; i++) s->scores[i] += s->plug_scores[i] * w;
        if (explain && scored) kp__explain_plugin_scores(s, pl, n_feas, w);
    }
    if (explain) kp__explain_totals(s, n_feas);
    return KP_OK;
}

#if defined(__GNUC__)
__attribute__((noinline)) /* the rejection path: kept out of the filter loop */
#endif
static void
record(kp_sched *s, uint32_t node, const kp_node_status *st) {
    if (!s->has_status[node]) {
        s->has_status[node] = true;
        s->n_statuses++;
    }
    /* only the reasons in use: every node of a failed pass records one */
    kp_node_status *d = &s->statuses[node];
    d->code = st->code;
    d->plugin = st->plugin;
    d->n_reasons = st->n_reasons;
    for (uint8_t r = 0; r < st->n_reasons; r++) d->reasons[r] = st->reasons[r];
}

/* The PreFilter rejection (the FitError's PreFilterMsg); every node gets the status. */
static void record_prefilter_failure(kp_sched *s, const kp_node_status *pre, bool explain) {
    for (uint32_t i = 0; i < s->cl->n_nodes; i++)
        if (!s->cl->nodes[i].deleted) record(s, i, pre);
    if (explain) kp__explain_prefilter(s->explain, pre);
}

/* mirrors evaluateNominatedNode: true when the pod's nominated node passes the Filter */
static bool evaluate_nominated_node(kp_sched *s, kp_cycle *c, uint32_t pod, bool explain) {
    if (s->nom_of[pod] < 0) return false;
    uint32_t nd = (uint32_t)s->nom_of[pod];
    kp_node_status nst;
    kp__cycle_filter(c, nd, &nst);
    if (explain) kp__explain_filters(s, c, nd, &nst);
    if (nst.code == KP_CODE_SUCCESS) {
        if (explain) s->explain->nominated_first = true;
        return true;
    }
    record(s, nd, &nst);
    return false;
}

/* mirrors findNodesThatPassFilters: nodes in zone round-robin order from next_start, until
 * numFeasibleNodesToFind are feasible (s->feasible); the others get a status. Nodes outside a
 * PreFilterResult are absent ("didn't satisfy plugin(s) [NodeAffinity]"). */
static kp_status find_nodes_that_pass_filters(kp_sched *s, kp_cycle *c, bool explain,
                                              uint32_t *n_feas_out) {
    uint32_t nn = s->cl->n_nodes;
    uint32_t *list = s->order, n_list = s->n_order, n_feas = 0;
    uint32_t *sub = NULL;
    if (c->allowed) {
        sub = kp__malloc((nn + 1) * sizeof *sub);
        if (!sub) return KP_ENOMEM;
        n_list = 0;
        for (uint32_t i = 0; i < s->n_order; i++)
            if (c->allowed[s->order[i]]) sub[n_list++] = s->order[i];
        list = sub;
    }
    uint32_t to_find = kp__num_feasible_to_find(s->cfg.pct_nodes_to_score, n_list);
    if (s->cfg.n_score == 0) to_find = 1;
    /* visit list[(next_start + i) % n_list] for i = 0, 1, ...; the index wraps without a
     * division per node */
    uint32_t at = n_list ? s->next_start % n_list : 0;
    for (uint32_t i = 0; i < n_list && n_feas < to_find; i++) {
        uint32_t nd = list[at];
        if (++at == n_list) at = 0;
        kp_node_status nst;
        kp__cycle_filter(c, nd, &nst);
        if (explain) kp__explain_filters(s, c, nd, &nst);
        if (nst.code == KP_CODE_SUCCESS) {
            s->feasible[n_feas++] = nd;
            if (explain) s->explain->nodes[nd].feasible = true;
        } else {
            record(s, nd, &nst);
        }
    }
    /* processedNodes = feasible + statuses recorded (incl. a failed nominated node) */
    if (nn) s->next_start = (uint32_t)(((uint64_t)s->next_start + n_feas + s->n_statuses) % nn);
    kp__free(sub);
    if (c->allowed && n_feas == 0) {
        kp_node_status ab;
        kp__status_reset(&ab);
        ab.code = KP_CODE_UNRESOLVABLE;
        /* the plugins whose PreFilterResult narrowed the nodes (NodeAffinity, VolumeBinding) */
        ab.plugin =
            kp__plugin_name(c->vb_narrowed == 1 ? KP_PL_VOLUME_BINDING : KP_PL_NODE_AFFINITY);
        kp__status_add_reason(
            &ab, c->vb_narrowed == 2   ? "node(s) didn't satisfy plugin(s) [NodeAffinity "
                                         "VolumeBinding]"
                 : c->vb_narrowed == 1 ? "node(s) didn't satisfy plugin(s) [VolumeBinding]"
                                       : "node(s) didn't satisfy plugin(s) [NodeAffinity]");
        for (uint32_t i = 0; i < nn; i++)
            if (!c->allowed[i] && !s->has_status[i]) record(s, i, &ab);
    }
    *n_feas_out = n_feas;
    return KP_OK;
}

/* The pod is bound to node: result and explain record. */
static kp_status record_bound(kp_sched *s, kp_cycle *c, kp_result_int *res, uint32_t pod,
                              uint32_t node, bool explain, bool *changed) {
    kp_status st = bind(s, c, pod, node);
    if (st != KP_OK) return st;
    if (explain) s->explain->selected = (int32_t)node;
    res->pub.outcome = KP_OUTCOME_BOUND;
    res->pub.node = node;
    res->pub.nominated_node = -1;
    *changed = true;
    /* DynamicResources' PreBind waiting for the devices' binding conditions */
    char wait[320];
    if (c->dra && kp__dra_prebind_waits(c, node, wait, sizeof wait)) return set_message(res, wait);
    return set_message(res, "");
}

/* schedulingCycle's clearNominatedNode (NominatingInfo ModeOverride, no node): an attempt that
 * failed with ErrNoNodesAvailable, with no PostFilter plugin, or whose preemption found no
 * candidate removes the pod's nomination, in the nominator and in status.nominatedNodeName
 * (core's writer), even when the nominator dropped it already because its node is gone: the
 * status keeps a deleted node's name until this attempt (handleSchedulingFailure's updatePod). */
static void clear_nominated_node(kp_sched *s, uint32_t pod) {
    if (s->nom_of[pod] >= 0 || s->cl->pods[pod].nominated_node) kp__sched_nominate(s, pod, -1);
}

/* mirrors runPostFilterPlugins with DefaultPreemption: every node has a status (unvisited ones
 * are absent: unresolvable); a nominated result is actuated; msg gains the preemption text. */
static kp_status post_filter(kp_sched *s, kp_cycle *c, kp_result_int *res, uint32_t pod,
                             bool explain, char **msg, bool *changed, uint32_t *n_drawn,
                             kp_error *err) {
    kp_cluster *cl = s->cl;
    for (uint32_t i = 0; i < cl->n_nodes; i++) {
        if (s->has_status[i]) continue;
        kp__status_reset(&s->statuses[i]);
        s->statuses[i].code = KP_CODE_UNRESOLVABLE;
    }
    kp_preempt_opts o;
    kp__preempt_opts_default(&o);
    o.compat = s->preempt_compat;
    o.protect_pod = s->protect_pod;
    o.now = s->now; /* KP_TIME_NONE outside a simulation */
    kp_preempt_result pr;
    memset(&pr, 0, sizeof pr);
    kp_status st = kp__preempt_postfilter_ex(s, c, pod, s->statuses, explain, &o, &pr, err);
    *n_drawn = pr.n_drawn;
    if (st == KP_OK && (st = kp__cycle_status(c)) != KP_OK)
        kp_error_set(err, st, "preemption: out of memory");
    if (st != KP_OK) {
        kp__preempt_result_fini(&pr);
        return st;
    }
    /* the FitError text, then the PostFilter reasons (DynamicResources', preemption's) */
    if (kp__postfilter_join(msg, s->postfilter_dra ? kp__dra_postfilter(c) : NULL,
                            s->cfg.dra_before_preemption, pr.message,
                            pr.outcome == KP_PREEMPT_NOMINATED) != KP_OK) {
        kp__preempt_result_fini(&pr);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    if (pr.outcome == KP_PREEMPT_NOMINATED) {
        st = kp__preempt_actuate(s, pod, &pr, err);
        if (st == KP_OK) {
            res->pub.outcome = KP_OUTCOME_NOMINATED;
            res->pub.nominated_node = pr.node;
            res->pub.decided_by = pr.decided_by ? pr.decided_by : "";
            res->pub.pdb_violations += pr.pdb_violations;
            st = add_victims(res, pr.victims, pr.n_victims, pr.node);
            if (st != KP_OK) kp_error_set(err, st, "out of memory");
            if (pr.n_victims) *changed = true;
            if (s->until_settled) {
                /* victims terminate at once: they leave their node */
                s->memo_mut++;
                for (uint32_t v = 0; v < pr.n_victims; v++) {
                    kp__pod_unbind(cl, pr.victims[v]);
                    kp__sched_hot_update(s, pr.victims[v]);
                }
            }
        }
    } else {
        res->pub.nominated_node = -1;
        /* Evaluator.Preempt: no candidate: NewPostFilterResultWithNominatedNode(""); not
         * eligible: no result, the nomination stays (ModeNoop) */
        if (pr.outcome == KP_PREEMPT_NO_CANDIDATES) clear_nominated_node(s, pod);
    }
    if (explain) {
        s->explain->preempt = pr;
        s->explain->has_preempt = true;
    } else {
        kp__preempt_result_fini(&pr);
    }
    return st;
}

/* mirrors handleSchedulingFailure after a FitError: the FitError text, then PostFilter. */
static kp_status handle_scheduling_failure(kp_sched *s, kp_cycle *c, kp_result_int *res,
                                           uint32_t pod, const kp_node_status *prefilter,
                                           bool explain, bool *changed, uint32_t *n_drawn,
                                           kp_error *err) {
    char *msg = NULL;
    kp_status st = kp__fit_error_message(s, prefilter, &msg);
    if (st != KP_OK) return kp_error_set(err, st, "out of memory");
    res->pub.outcome = KP_OUTCOME_UNSCHEDULABLE;
    res->pub.node = -1;
    if (s->cfg.postfilter_preemption &&
        (st = post_filter(s, c, res, pod, explain, &msg, changed, n_drawn, err)) != KP_OK) {
        kp__free(msg);
        return st;
    }
    if (!s->cfg.postfilter_preemption &&
        kp__postfilter_join(&msg, s->postfilter_dra ? kp__dra_postfilter(c) : NULL, true, NULL,
                            false) != KP_OK) {
        kp__free(msg);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    /* no PostFilter plugin at all: clearNominatedNode; DynamicResources' PostFilter alone
     * returns no result (the nomination stays) */
    if (!s->cfg.postfilter_preemption && !s->postfilter_dra) clear_nominated_node(s, pod);
    if (s->until_settled && res->pub.outcome == KP_OUTCOME_UNSCHEDULABLE)
        res->pub.nominated_node = -1;
    st = set_message(res, msg);
    kp__free(msg);
    if (st != KP_OK) kp_error_set(err, st, "out of memory");
    return st;
}

kp_status kp__sched_record_gated(kp_sched *s, uint32_t pod) {
    kp_result_int *res = result_for(s, pod);
    if (!res) return KP_ENOMEM;
    res->pub.outcome = KP_OUTCOME_GATED;
    res->pub.node = res->pub.nominated_node = -1;
    kp_explain *x = s->explain;
    if (kp__pre_enqueue_gates(s, &s->cl->pods[pod])) { /* DynamicResources rejected it */
        char *dra = NULL;
        kp_status st = kp__pre_enqueue_dra(s, &s->cl->pods[pod], &dra);
        if (st != KP_OK || !dra) return st != KP_OK ? st : KP_ENOMEM;
        /* the plugin that gated it (GatingPlugin): its hints move the pod */
        kp__sched_set_rejectors(s, res, 1u << KP_PL_DYNAMIC_RESOURCES);
        if (x && x->pod == pod) x->pre_enqueue_msg = kp__textbuf_add(&x->text, dra, NULL);
        st = x && x->pod == pod && x->pre_enqueue_msg == KP_TEXT_NONE ? KP_ENOMEM
                                                                      : set_message(res, dra);
        kp__free(dra);
        return st;
    }
    if (x && x->pod == pod) { /* the plugin's status: fmt.Sprintf("...: %v", gate names) */
        static const char lead[] = "waiting for scheduling gates: ";
        const char *gates = kp__s(s->cl, s->cl->pods[pod].gates);
        size_t len = sizeof lead + strlen(gates);
        char *msg = kp__malloc(len);
        if (!msg) return KP_ENOMEM;
        snprintf(msg, len, "%s%s", lead, gates);
        x->pre_enqueue_msg = kp__textbuf_add(&x->text, msg, NULL);
        kp__free(msg);
        if (x->pre_enqueue_msg == KP_TEXT_NONE) return KP_ENOMEM;
    }
    return set_message(res, KP_SCHEDULING_GATED_MESSAGE);
}

/* A failed attempt replayed from the memo (memo.h): what handle_scheduling_failure left, the
 * filter pass's nextStartNodeIndex and the dry run's PRNG draw. */
static kp_status replay_failure(kp_sched *s, kp_result_int *res, const char *msg,
                                uint32_t n_statuses, uint32_t n_drawn) {
    uint32_t nn = s->cl->n_nodes;
    if (nn) s->next_start = (uint32_t)(((uint64_t)s->next_start + n_statuses) % nn);
    if (n_drawn) kp__prng_below(&s->prng, n_drawn);
    res->pub.outcome = KP_OUTCOME_UNSCHEDULABLE;
    res->pub.node = -1;
    if (s->cfg.postfilter_preemption || s->until_settled) res->pub.nominated_node = -1;
    return set_message(res, msg);
}

/* mirrors ScheduleOne's scheduling cycle for one pod over the current cluster state:
 * PreFilter, findNodesThatFitPod (nominated node first, then the filter pass), prioritizeNodes,
 * selectHost, bind; on failure the FitError and PostFilter (preemption). */
kp_status kp__sched_attempt(kp_sched *s, uint32_t pod, bool *changed, kp_error *err) {
    uint32_t nn = s->cl->n_nodes;
    bool explain = s->explain && s->explain->pod == pod;
    *changed = false;
    kp__sched_use_profile(s, pod); /* Scheduler.frameworkForPod */
    kp_result_int *res = result_for(s, pod);
    if (!res) return kp_error_set(err, KP_ENOMEM, "out of memory");
    res->attempts++;
    res->pub.decided_by = ""; /* set again when this attempt nominates */
    uint32_t rej = 0; /* Pop clears UnschedulablePlugins; a failure sets them again */
    s->n_cleared_nom = 0;
    s->dra_deallocated = -1;
    if (explain) kp__explain_begin(s->explain, nn);
    memset(s->has_status, 0, nn + 1);
    s->n_statuses = 0;

    kp_node_status pre;
    kp_cycle *c = kp__cycle_new(s, pod, &pre);
    if (!c) return kp_error_set(err, KP_ENOMEM, "out of memory");
    const kp_node_status *prefilter = NULL; /* set when PreFilter rejected the pod */
    kp_memo_probe probe = {.eligible = false};
    uint32_t n_drawn = 0; /* the dry run's PRNG draw (memo.h) */
    uint32_t n_feas = 0;
    uint32_t chosen;
    kp_status st = KP_OK;

    if (kp__cluster_live_nodes(s->cl) == 0) {
        clear_nominated_node(s, pod); /* ErrNoNodesAvailable */
        st = set_message(res, "no nodes available to schedule pods");
        res->pub.outcome = KP_OUTCOME_UNSCHEDULABLE;
        res->pub.node = -1;
        goto out;
    }
    if (pre.code != KP_CODE_SUCCESS) {
        record_prefilter_failure(s, &pre, explain);
        prefilter = &pre;
        goto failed;
    }
    uint32_t memo_statuses = 0;
    const char *memo_msg = kp__memo_begin(s, c, &probe, &memo_statuses, &n_drawn, &rej);
    if (memo_msg) {
        if ((st = replay_failure(s, res, memo_msg, memo_statuses, n_drawn)) != KP_OK)
            kp_error_set(err, st, "out of memory");
        goto out;
    }
    bool nominated_fits = evaluate_nominated_node(s, c, pod, explain);
    if ((st = kp__cycle_status(c)) != KP_OK) {
        kp_error_set(err, st, "out of memory");
        goto out;
    }
    if (nominated_fits) {
        chosen = (uint32_t)s->nom_of[pod];
        goto bound;
    }
    if ((st = find_nodes_that_pass_filters(s, c, explain, &n_feas)) != KP_OK ||
        (st = kp__cycle_status(c)) != KP_OK) {
        kp_error_set(err, st, "out of memory");
        goto out;
    }
    if (n_feas == 0) goto failed;
    chosen = s->feasible[0];
    if (n_feas > 1) {
        if ((st = prioritize(s, &s->cl->pods[pod], n_feas, explain)) != KP_OK) {
            kp_error_set(err, st, "out of memory");
            goto out;
        }
        chosen = kp__select_host(s, s->feasible, s->scores, n_feas);
    }
bound:
    if ((st = record_bound(s, c, res, pod, chosen, explain, changed)) != KP_OK)
        kp_error_set(err, st, "out of memory");
    goto out;
failed:
    rej = kp__sched_rejectors_of(s); /* Diagnosis.UnschedulablePlugins */
    st = handle_scheduling_failure(s, c, res, pod, prefilter, explain, changed, &n_drawn, err);
    if (st == KP_OK && res->pub.outcome == KP_OUTCOME_UNSCHEDULABLE && !*changed)
        kp__memo_record(s, c, &probe, res->pub.message, s->n_statuses, n_drawn, rej);
out:
    kp__sched_set_rejectors(s, res, res->pub.outcome == KP_OUTCOME_BOUND ? 0 : rej);
    if (st == KP_OK && explain && s->explain->enomem)
        st = kp_error_set(err, KP_ENOMEM, "explain: out of memory");
    kp__cycle_free(c);
    return st;
}
