/* DefaultPreemption PostFilter: eligibility, potential nodes, candidate budget and offset, the
 * sequential dry run with two bounded candidate lists, the node-choice cascade, the FitError
 * message, and actuation. Victim selection itself lives in victims.c (and cache.c, order.c).
 *
 * Deliberate, documented divergences from upstream (docs/preemption.md "Determinism"):
 *  - potential nodes are kept in snapshot (node index) order instead of Go map order;
 *  - the dry run is sequential (upstream with parallelism 1): no extra nodes past the stop rule;
 *  - the final tie among equally good nodes is drawn from the seeded PRNG (or injected);
 *  - PDBs are consulted in namespace/name order instead of informer order;
 *  - nil startTime is one frozen "now" per attempt (+infinity unless opts.now is set). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/prng.h"
#include "core/cluster.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_state.h"
#include "core/priority_class.h"
#include "core/resources.h"
#include "core/sched_config.h"
#include "sched/compat.h"
#include "sched/diagnosis.h"
#include "sched/framework.h"
#include "sched/nominator.h"
#include "sched/preempt/cache.h"
#include "sched/preempt/order.h"
#include "sched/preempt/pdb_index.h"
#include "sched/preempt/potential.h"
#include "sched/preempt/victims.h"
/* Prefetch distances in nodes: the status scan, and the dry run's two stages (far: headers and
 * lines at fixed addresses; near: what the far lines point to). */
enum { KP_PF_SCAN = 16, KP_PF_FAR = 8, KP_PF_NEAR = 4 };

void kp__preempt_opts_default(kp_preempt_opts *o) {
    memset(o, 0, sizeof *o);
    o->compat = KP_PREEMPT_COMPAT_NEWEST;
    o->offset = -1;
    o->tie = -1;
    o->now = KP_TIME_NONE;
    o->protect_pod = -1;
}

uint8_t kp__preempt_status_code(const kp_node_status *st) {
    bool fit = st->plugin && strcmp(st->plugin, "NodeResourcesFit") == 0;
    return (uint8_t)((unsigned)st->code | (fit ? KP_PREEMPT_CODE_FIT : 0u));
}

bool kp__preempt_compat_parse(const char *v, kp_preempt_compat *out) {
    uint16_t minor;
    if (!kp__compat_parse(v, &minor)) return false;
    *out = minor <= 35 ? KP_PREEMPT_COMPAT_1_35 : KP_PREEMPT_COMPAT_NEWEST;
    return true;
}

void kp__preempt_result_fini(kp_preempt_result *r) {
    if (!r) return;
    kp__free(r->victims);
    for (uint32_t i = 0; i < r->n_nodes; i++) kp__free(r->nodes[i].victims);
    kp__free(r->nodes);
    kp__free(r->message);
    r->victims = NULL;
    r->nodes = NULL;
    r->message = NULL;
    r->n_victims = r->n_nodes = 0;
}

kp_status kp__preempt_set_message(kp_preempt_result *r, const char *fmt, ...) {
    /* formatted once into a stack buffer, copied to its exact allocation (a message that does not
     * fit is formatted again into it): one vsnprintf per decision, not two */
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return KP_EINVAL;
    char *m = kp__malloc((size_t)n + 1);
    if (!m) return KP_ENOMEM;
    if ((size_t)n < sizeof buf) {
        memcpy(m, buf, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(m, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    kp__free(r->message);
    r->message = m;
    return KP_OK;
}

const char *kp__preempt_event_note(const kp_cluster *cl, uint32_t preemptor, uint32_t node,
                                   char *buf, size_t cap) {
    snprintf(buf, cap, "Preempted by pod %s on node %s", kp__s(cl, cl->pods[preemptor].uid),
             kp__s(cl, cl->nodes[node].name));
    return buf;
}

/* ---------------------------------------------------------------- eligibility ---- */

/* First condition of type DisruptionTarget decides (podTerminatingByPreemption). */
static bool terminating_by_preemption(const kp_cluster *cl, const kp_pod *p) {
    if (p->deletion_ts == KP_TIME_NONE) return false;
    for (uint16_t i = 0; i < p->n_conditions; i++) {
        const kp_condition *c = &p->conditions[i];
        if (strcmp(kp__s(cl, c->type), "DisruptionTarget") != 0) continue;
        return strcmp(kp__s(cl, c->status), "True") == 0 &&
               strcmp(kp__s(cl, c->reason), "PreemptionByScheduler") == 0;
    }
    return false;
}

static int32_t node_by_name(const kp_cluster *cl, kp_str name) {
    if (!name) return -1;
    for (uint32_t i = 0; i < cl->n_nodes; i++)
        if (cl->nodes[i].name == name) return (int32_t)i;
    return -1;
}

/* mirrors DefaultPreemption.PodEligibleToPreemptOthers; msg gets the reason when false. */
static bool eligible(const kp_pctx *x, const kp_node_status *statuses, const char **msg) {
    const kp_cluster *cl = x->cl;
    const kp_pod *p = &cl->pods[x->pod];
    if (p->preemption_policy == KP_PREEMPT_NEVER) {
        *msg = "not eligible due to preemptionPolicy=Never.";
        return false;
    }
    int32_t nn = node_by_name(cl, p->nominated_node);
    if (p->nominated_node && nn >= 0 && statuses[nn].code != KP_CODE_UNRESOLVABLE) {
        const kp_node *nd = &cl->nodes[nn];
        for (uint32_t i = 0; i < nd->n_pods; i++) {
            const kp_pod *q = &cl->pods[nd->pods[i]];
            if (q->priority < p->priority && terminating_by_preemption(cl, q)) {
                *msg = "not eligible due to a terminating pod on the nominated node.";
                return false;
            }
        }
    }
    return true;
}

/* ---------------------------------------------------------------- FitError message ---- */

/* FitError.Error() over the dry-run statuses (their reasons counted in `diag` as the nodes were
 * visited: the histogram is sorted at the end, so the visiting order does not matter); the nodes
 * without one (n_dry nodes have one) are "Preemption is not helpful for scheduling". Result:
 * "preemption: 0/N nodes are available: <sorted histogram>." KP_ENOMEM. */
static kp_status fit_message(const kp_cluster *cl, kp_diagnosis *diag, uint32_t n_dry, char **out) {
    uint32_t live = kp__cluster_live_nodes(cl), n_absent = live - n_dry;
    kp_status st = KP_OK;
    if (n_absent)
        st = kp__diagnosis_add(diag, "Preemption is not helpful for scheduling", n_absent);
    if (st == KP_OK) st = kp__diagnosis_text(diag, "preemption: ", live, true, out);
    return st;
}

/* ---------------------------------------------------------------- node choice ---- */

/* A candidate (compact: the dry-run status is not kept). */
typedef struct {
    uint32_t node;
    uint32_t n_victims;
    int32_t n_viol;
    uint32_t *victims;
    int64_t score[KP_PREEMPT_N_SCORES];
    const int64_t *score4_at; /* kp_pvict.score4_at */
} cand;

/* mirrors util.GetEarliestPodStartTime: earliest start among the victims of maximal priority. */
static int64_t earliest_start(const kp_pctx *x, const kp_pvict *v) {
    if (v->n_victims == 0) return INT64_MIN;
    int32_t maxp = x->cl->pods[v->victims[0]].priority;
    int64_t best = kp__preempt_start_key(x, v->victims[0]);
    for (uint32_t i = 0; i < v->n_victims; i++) {
        int32_t p = x->cl->pods[v->victims[i]].priority;
        int64_t t = kp__preempt_start_key(x, v->victims[i]);
        if (p == maxp) {
            if (t < best) best = t;
        } else if (p > maxp) {
            maxp = p;
            best = t;
        }
    }
    return best;
}

/* The pickOneNodeForPreemption score functions, in order (higher wins). */
void kp__preempt_scores(const kp_pctx *x, kp_pvict *v) {
    const kp_pod *pods = x->cl->pods;
    int64_t sum = 0;
    for (uint32_t i = 0; i < v->n_victims; i++)
        sum += (int64_t)pods[v->victims[i]].priority + ((int64_t)1 << 31);
    v->score[0] = -(int64_t)v->n_viol;
    v->score[1] = v->n_victims ? -(int64_t)pods[v->victims[0]].priority : 0;
    v->score[2] = -sum;
    v->score[3] = -(int64_t)v->n_victims;
    v->score[4] = earliest_start(x, v);
    v->has_scores = true;
}

static int64_t cand_score(const cand *c, int step) {
    return step == 4 && c->score4_at ? *c->score4_at : c->score[step];
}

static const char *const cascade_names[] = {
    "fewest PDB violations", "lowest highest-priority victim",
    "smallest sum of victim priorities (+2^31 each)", "fewest victims",
    "latest start time among the highest-priority victims"};

/* mirrors SelectCandidate / pickOneNodeForPreemption. Returns the index into cands.
 *
 * Upstream filters the candidate list step by step (keep the nodes with the best score of step
 * s, stop when one is left, then pick at random among the survivors). One pass computes the
 * same: the survivors of step s are exactly the candidates whose scores 0..s equal the
 * lexicographic maximum's, so for the running maximum we keep live[s] = how many candidates
 * match its prefix 0..s, and the candidates matching all five (in list order, for the final
 * draw). The deciding step is the first s with live[s] == 1. Score 4 is read only for
 * candidates that tie with the maximum on steps 0..3 (it may be a lazy load, cand.score4_at). */
static uint32_t pick_candidate(kp_pctx *x, const cand *cands, uint32_t n, const char **decided,
                               kp_error *err, kp_status *rc) {
    *rc = KP_OK;
    if (n == 1) {
        *decided = "only candidate";
        return 0;
    }
    uint32_t *ties = kp__malloc(n * sizeof *ties);
    if (!ties) {
        *rc = kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        return 0;
    }
    uint32_t best = 0, live[KP_PREEMPT_N_SCORES], n_ties = 1;
    int64_t bs[KP_PREEMPT_N_SCORES];
    for (int k = 0; k < KP_PREEMPT_N_SCORES; k++) {
        bs[k] = cand_score(&cands[0], k);
        live[k] = 1;
    }
    ties[0] = 0;
    for (uint32_t i = 1; i < n; i++) {
        const cand *c = &cands[i];
        int j = 0; /* first step where c and the maximum differ (5: none) */
        int64_t v = 0;
        while (j < KP_PREEMPT_N_SCORES && (v = cand_score(c, j)) == bs[j]) j++;
        for (int k = 0; k < j; k++) live[k]++;
        if (j == KP_PREEMPT_N_SCORES) {
            ties[n_ties++] = i;
        } else if (v > bs[j]) { /* new maximum: only c matches it from step j on */
            best = i;
            bs[j] = v;
            live[j] = 1;
            for (int k = j + 1; k < KP_PREEMPT_N_SCORES; k++) {
                bs[k] = cand_score(c, k);
                live[k] = 1;
            }
            ties[0] = i;
            n_ties = 1;
        }
    }
    for (int k = 0; k < KP_PREEMPT_N_SCORES; k++)
        if (live[k] == 1) {
            *decided = cascade_names[k];
            kp__free(ties);
            return best;
        }
    uint32_t pick = x->o->tie >= 0 ? (uint32_t)(x->o->tie % n_ties)
                                   : kp__prng_below(kp__sched_prng(x->s), n_ties);
    *decided = "tie broken by the seeded PRNG";
    uint32_t r = ties[pick];
    kp__free(ties);
    return r;
}

/* ---------------------------------------------------------------- PostFilter ---- */

static int32_t calc_num_candidates(const kp_pctx *x, uint32_t n) {
    int32_t pct = 10, abs_min = 100;
    kp__sched_preemption_args(x->s, &pct, &abs_min);
    int64_t k = (int64_t)n * pct / 100;
    if (k < abs_min) k = abs_min;
    if (k > n) k = n;
    return (int32_t)k;
}

static bool fast_path_allowed(const kp_pctx *x) {
    if (x->o->reference || x->o->no_fastpath) return false;
    const kp_pod *p = &x->cl->pods[x->pod];
    if (p->pod_affinity || p->pod_anti_affinity || p->n_spread) return false;
    /* resource claims: DynamicResources' verdict is not Fit's (a node without a free device
     * stays out whatever is removed): every dry run runs the filters */
    if (p->n_claims) return false;
    for (uint16_t i = 0; i < p->n_containers + p->n_init; i++)
        if (p->containers[i].n_ports) return false;
    /* volumes: per node, kp__volume_filters_steady (plugins/node_volume_limits.c) */
    /* scalar resources may be ignored by the Fit args (ignoredResources): leave them to Filter */
    for (uint16_t i = 0; i < p->req.n; i++)
        if (p->req.e[i].res >= KP_RES_FIXED && p->req.e[i].v > 0) return false;
    /* the scheduler tracks every bound pod with (anti-)affinity: none ever -> no scan */
    if (x->s && kp__sched_affinity_pod_bound(x->s) == 0) return true;
    for (uint32_t i = 0; i < x->cl->n_nodes; i++)
        if (x->cl->nodes[i].n_affinity_pods) return false;
    return true;
}

/* --explain: node's verdict in the dry run (a candidate with its victims, or why not). */
static kp_status record_node(kp_preempt_result *out, uint32_t node, const kp_node_status *st,
                             const kp_pvict *v, bool candidate) {
    if (!out->nodes) return KP_OK;
    kp_preempt_node *pn = &out->nodes[node];
    pn->considered = true;
    pn->candidate = candidate;
    if (st) pn->dry_status = *st;
    if (v && candidate) {
        pn->victims = kp__malloc((v->n_victims ? v->n_victims : 1) * sizeof *pn->victims);
        if (!pn->victims) return KP_ENOMEM;
        pn->n_victims = v->n_victims;
        pn->pdb_violations = v->n_viol;
        memcpy(pn->victims, v->victims, v->n_victims * sizeof *pn->victims);
    }
    return KP_OK;
}

kp_status kp__preempt_postfilter(kp_sched *s, kp_cycle *c, uint32_t pod,
                                 const kp_node_status *statuses, bool explain,
                                 kp_preempt_result *out, kp_error *err) {
    return kp__preempt_postfilter_ex(s, c, pod, statuses, explain, NULL, out, err);
}

/* The state of one dry run (findCandidates): the potential nodes in visiting order, the two
 * bounded candidate lists, the statuses of nodes that are not candidates, deferred nodes. */
typedef struct {
    const kp_node_status *statuses;
    uint32_t *potential;
    uint32_t n_pot, filled, next; /* codes: potential[0..filled) produced so far */
    int32_t budget;
    cand *cands; /* non-violating [0, budget), violating [budget, 2 * budget) */
    uint32_t n_nonviol, n_violc, n_cands;
    kp_diagnosis diag; /* the reasons of the nodes that are not candidates, counted */
    uint32_t n_dry; /* how many nodes those are */
    uint32_t *deferred, n_deferred;
} dry_run;

static void dry_run_free(dry_run *d) {
    if (d->cands)
        for (uint32_t i = 0; i < d->n_cands; i++) /* lazy candidates have none */
            if (d->cands[i].victims) kp__free(d->cands[i].victims);
    kp__free(d->cands);
    kp__diagnosis_fini(&d->diag);
    kp__free(d->deferred);
    kp__free(d->potential);
}

static kp_status dry_add_status(dry_run *d, const kp_node_status *st) {
    d->n_dry++;
    return kp__diagnosis_add_status(&d->diag, st);
}

/* mirrors nodesWherePreemptionMightHelp: status exactly Unschedulable, snapshot order; the
 * list is made all at once from the statuses, or on demand from the codes (o->codes) */
static kp_status nodes_where_preemption_might_help(const kp_pctx *x, dry_run *d) {
    uint32_t nn = x->cl->n_nodes;
    d->potential = kp__malloc((nn ? nn : 1) * sizeof *d->potential);
    if (!d->potential) return KP_ENOMEM;
    if (x->o->codes) {
        d->n_pot = kp__preempt_pot_count(x->o->codes, nn);
        return KP_OK;
    }
    const kp_node_status *statuses = d->statuses;
    for (uint32_t i = 0; i < nn; i++) {
#if defined(__GNUC__)
        if (i + KP_PF_SCAN < nn)
            __builtin_prefetch(
                &statuses[i + KP_PF_SCAN].code); /* one status per node: a strided scan */
#endif
        if (statuses[i].code == KP_CODE_UNSCHEDULABLE) d->potential[d->n_pot++] = i;
    }
    return KP_OK;
}

/* The candidate budget (calculateNumCandidates), the random offset (GetOffsetAndNumCandidates)
 * and the potential nodes rotated into visiting order. */
static kp_status plan_visiting_order(kp_pctx *x, dry_run *d) {
    const kp_preempt_opts *o = x->o;
    d->budget = calc_num_candidates(x, d->n_pot);
    uint32_t offset = o->offset >= 0 ? (uint32_t)(o->offset % d->n_pot)
                                     : kp__prng_below(kp__sched_prng(x->s), d->n_pot);
    d->filled = d->n_pot;
    d->next = 0;
    if (o->codes) {
        d->filled = 0;
        d->next = kp__preempt_pot_find(o->codes, x->cl->n_nodes, offset);
    } else if (offset > 0) {
        uint32_t *rot = kp__malloc(d->n_pot * sizeof *rot);
        if (!rot) return KP_ENOMEM;
        memcpy(rot, d->potential + offset, (d->n_pot - offset) * sizeof *rot);
        memcpy(rot + (d->n_pot - offset), d->potential, offset * sizeof *rot);
        kp__free(d->potential);
        d->potential = rot;
    }
    /* two bounded lists of capacity `budget`: non-violating and violating */
    d->cands =
        kp__malloc(((size_t)d->budget * 2 + 1) * sizeof *d->cands); /* entries set when used */
    return d->cands ? KP_OK : KP_ENOMEM;
}

/* A node whose victim selection succeeded, kept in its bounded list at cd (the caller checked
 * there is room): the scores, and the --explain record. */
static inline kp_status keep_candidate(kp_pctx *x, cand *cd, kp_preempt_result *out, uint32_t node,
                                       kp_pvict *v) {
    kp_status rc = out->nodes ? record_node(out, node, NULL, v, true) : KP_OK;
    if (!v->has_scores) kp__preempt_scores(x, v);
    cd->node = node;
    cd->n_victims = v->n_victims;
    cd->n_viol = v->n_viol;
    cd->victims = v->victims;
    memcpy(cd->score, v->score, sizeof cd->score);
    cd->score4_at = v->score4_at;
    return rc;
}

/* A node whose victim selection succeeded while its bounded list is full: dropped (silently, as
 * upstream; --explain says so). */
static kp_status drop_candidate(kp_preempt_result *out, uint32_t node, kp_pvict *v) {
    kp__free(v->victims);
    if (!out->nodes) return KP_OK;
    kp_node_status dropped;
    kp__status_reset(&dropped);
    kp__status_add_reason(&dropped, v->n_viol
                                        ? "dropped: the list of PDB-violating candidates was full"
                                        : "dropped: the list of candidates was full");
    return record_node(out, node, &dropped, NULL, false);
}

/* A node that is not a candidate: its dry-run status, kept for the FitError message. */
static kp_status not_candidate(dry_run *d, kp_preempt_result *out, uint32_t node, kp_pvict *v) {
    if (v->st.code == KP_CODE_SUCCESS) { /* nothing to evict, yet it failed before */
        kp__status_reset(&v->st);
        v->st.code = KP_CODE_ERROR;
        kp__status_add_reason(&v->st, "expected at least one victim pod on node");
    }
    kp__free(v->victims);
    kp_status rc = out->nodes ? record_node(out, node, &v->st, NULL, false) : KP_OK;
    return rc == KP_OK ? dry_add_status(d, &v->st) : rc;
}

/* mirrors DryRunPreemption (sequential, in visiting order): SelectVictimsOnNode per potential
 * node until enough non-violating candidates are found. Nodes that cannot fit even with every
 * lower-priority pod gone are deferred (their exact status is computed only if needed). The
 * loop's state is in locals (written back to d at the end): it runs once per visited node. */
static kp_status dry_run_preemption(kp_pctx *x, dry_run *d, kp_preempt_result *out, kp_error *err) {
    const uint8_t *codes = x->o->codes;
    const kp_node_status *statuses = d->statuses;
    uint32_t nn = x->cl->n_nodes, n_pot = d->n_pot, *potential = d->potential;
    uint32_t filled = d->filled, next = d->next, budget = (uint32_t)d->budget;
    uint32_t n_nonviol = 0, n_violc = 0;
    cand *nonviol = d->cands, *violc = d->cands + budget;
    const bool prefetch = x->cache != NULL;
    kp_status rc = KP_OK;
    bool selection_failed = false; /* its error is set already */
    for (uint32_t i = 0; i < n_pot; i++) {
        if (filled <= i + KP_PF_FAR && filled < n_pot) {
            uint32_t want = i + KP_PF_FAR + 64;
            kp__preempt_pot_fill(codes, nn, potential, &filled, want < n_pot ? want : n_pot, &next);
        }
        uint32_t node = potential[i];
        if (prefetch) { /* the loop is memory-bound: hint the nodes visited next */
            if (i + KP_PF_FAR < n_pot) kp__preempt_prefetch(x, potential[i + KP_PF_FAR], true);
            if (i + KP_PF_NEAR < n_pot) kp__preempt_prefetch(x, potential[i + KP_PF_NEAR], false);
        }
        kp_pvict v;
        rc = kp__preempt_select_victims(x, node, &statuses[node], &v, err);
        if (rc != KP_OK) {
            kp__free(v.victims);
            selection_failed = true;
            break;
        }
        if (v.deferred) {
            if (!d->deferred && !(d->deferred = kp__malloc(n_pot * sizeof *d->deferred))) {
                rc = KP_ENOMEM;
                break;
            }
            d->deferred[d->n_deferred++] = node;
            continue;
        }
        if (v.st.code != KP_CODE_SUCCESS || v.n_victims == 0) {
            if ((rc = not_candidate(d, out, node, &v)) != KP_OK) break;
            continue;
        }
        if (v.n_viol == 0 ? n_nonviol < budget : n_violc < budget)
            rc = keep_candidate(x, v.n_viol == 0 ? &nonviol[n_nonviol++] : &violc[n_violc++], out,
                                node, &v);
        else rc = drop_candidate(out, node, &v);
        if (rc != KP_OK || (n_nonviol > 0 && n_nonviol + n_violc >= budget)) break;
    }
    d->filled = filled;
    d->next = next;
    d->n_nonviol = n_nonviol;
    d->n_violc = n_violc;
    if (rc != KP_OK && !selection_failed) kp_error_set(err, rc, "preemption: out of memory");
    return rc;
}

/* No candidate: the deferred nodes' exact statuses (the real filter, now), then the FitError
 * text "preemption: 0/N nodes are available: ...". */
static kp_status no_candidates(kp_pctx *x, dry_run *d, kp_preempt_result *out, kp_error *err) {
    x->defer = false;
    kp_status rc = KP_OK;
    for (uint32_t i = 0; i < d->n_deferred; i++) {
        kp_pvict v;
        uint32_t node = d->deferred[i];
        rc = kp__preempt_select_victims(x, node, &d->statuses[node], &v, err);
        kp__free(v.victims);
        if (rc != KP_OK) return rc;
        if (v.st.code == KP_CODE_SUCCESS) /* cannot happen: the sums said it does not fit */
            return kp_error_set(err, KP_EINVAL, "preemption: arithmetic and Filter disagree");
        if ((rc = dry_add_status(d, &v.st)) != KP_OK)
            return kp_error_set(err, rc, "preemption: out of memory");
    }
    out->outcome = KP_PREEMPT_NO_CANDIDATES;
    kp__free(out->message);
    out->message = NULL;
    if ((rc = fit_message(x->cl, &d->diag, d->n_dry, &out->message)) != KP_OK)
        kp_error_set(err, rc, "out of memory");
    return rc;
}

/* mirrors SelectCandidate + the result handed to prepareCandidate: the winner's victims
 * (selected again when the dry run kept only their count). */
static kp_status select_candidate(kp_pctx *x, dry_run *d, kp_preempt_result *out, kp_error *err) {
    const char *decided = "";
    kp_status rc = KP_OK;
    uint32_t best = pick_candidate(x, d->cands, d->n_cands, &decided, err, &rc);
    if (rc != KP_OK) return rc;
    cand *win = &d->cands[best];
    if (!win->victims) { /* lazy candidate: select again, materialising the victims */
        kp_pvict v;
        x->lazy = false;
        rc = kp__preempt_select_victims(x, win->node, &d->statuses[win->node], &v, err);
        if (rc == KP_OK && (v.st.code != KP_CODE_SUCCESS || v.n_victims != win->n_victims ||
                            v.n_viol != win->n_viol || !v.victims))
            rc = kp_error_set(err, KP_EINVAL, "preemption: victim selection is not repeatable");
        if (rc != KP_OK) {
            kp__free(v.victims);
            return rc;
        }
        win->victims = v.victims;
    }
    const kp_cluster *cl = x->cl;
    out->outcome = KP_PREEMPT_NOMINATED;
    out->node = (int32_t)win->node;
    out->victims = win->victims;
    out->n_victims = win->n_victims;
    out->pdb_violations = win->n_viol;
    out->decided_by = decided;
    win->victims = NULL;
    if (kp__preempt_set_message(
            out,
            "preemption: found a potential placement for pod on node %s, preempting %u victims",
            kp__s(cl, cl->nodes[out->node].name), out->n_victims) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
    return KP_OK;
}

/* --explain: a per-node record for every node, with its Filter verdict. */
static kp_status explain_nodes_init(kp_preempt_result *out, const kp_node_status *statuses,
                                    uint32_t nn) {
    out->nodes = kp__calloc(nn ? nn : 1, sizeof *out->nodes);
    if (!out->nodes) return KP_ENOMEM;
    out->n_nodes = nn;
    for (uint32_t i = 0; i < nn; i++) {
        out->nodes[i].node = i;
        out->nodes[i].filter_code = statuses[i].code;
    }
    return KP_OK;
}

/* mirrors Evaluator.Preempt: PodEligibleToPreemptOthers, findCandidates (potential nodes,
 * DryRunPreemption), SelectCandidate. The cluster is left as found. */
kp_status kp__preempt_postfilter_ex(kp_sched *s, kp_cycle *c, uint32_t pod,
                                    const kp_node_status *statuses, bool explain,
                                    kp_preempt_opts *o, kp_preempt_result *out, kp_error *err) {
    kp_preempt_opts defaults;
    if (!o) {
        kp__preempt_opts_default(&defaults);
        o = &defaults;
    }
    kp_cluster *cl = kp__sched_cluster(s);
    memset(out, 0, sizeof *out);
    out->node = -1;
    out->now = o->now;
    out->decided_by = "";
    kp_pctx x = {.s = s,
                 .c = c,
                 .cl = cl,
                 .pod = pod,
                 .prio = cl->pods[pod].priority,
                 .o = o,
                 .statuses = o->codes ? NULL : statuses,
                 .fit_plugin = kp__plugin_name(KP_PL_FIT)};
    x.now_key = o->now == KP_TIME_NONE ? INT64_MAX : o->now;
    if (explain && explain_nodes_init(out, statuses, cl->n_nodes) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
    const char *msg = NULL;
    if (!eligible(&x, statuses, &msg)) {
        out->outcome = KP_PREEMPT_NOT_ELIGIBLE;
        if (kp__preempt_set_message(out, "preemption: %s", msg) != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        return KP_OK;
    }
    x.fast = fast_path_allowed(&x);
    if (x.fast) kp__preempt_cache_begin(&x);
    x.defer = !explain;
    x.lazy = !explain; /* explain records every candidate's victims */

    dry_run d;
    memset(&d, 0, sizeof d);
    d.statuses = statuses;
    kp_status rc = KP_OK;
    if (kp__preempt_pdbix_begin(&x) != KP_OK ||
        nodes_where_preemption_might_help(&x, &d) != KP_OK) {
        rc = kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        goto out;
    }
    if (d.n_pot > 0) {
        if ((rc = plan_visiting_order(&x, &d)) != KP_OK) {
            kp_error_set(err, rc, "preemption: out of memory");
            goto out;
        }
        if (o->offset < 0) out->n_drawn = d.n_pot;
        rc = dry_run_preemption(&x, &d, out, err);
        memmove(d.cands + d.n_nonviol, d.cands + d.budget, d.n_violc * sizeof *d.cands);
        d.n_cands = d.n_nonviol + d.n_violc;
        if (rc != KP_OK) goto out;
    }
    out->n_candidates = d.n_cands;
    rc = d.n_cands == 0 ? no_candidates(&x, &d, out, err) : select_candidate(&x, &d, out, err);
out:
    dry_run_free(&d);
    if (x.pdbix_owned) kp__pdbix_free(x.pdbix);
    kp__free(x.scratch);
    return rc;
}

/* ---------------------------------------------------------------- actuation ---- */

/* mirrors Executor.PreemptPod: the victim's deletion with the DisruptionTarget condition of its
 * status patch (reason PreemptionByScheduler, message "<scheduler>: preempting to accommodate a
 * higher priority pod", where <scheduler> is the PREEMPTOR's spec.schedulerName, upstream's
 * representative.Spec.SchedulerName), through core's writer; deletionTimestamp `now`. */
static kp_status preempt_pod(kp_cluster *cl, uint32_t victim, uint32_t preemptor, int64_t now,
                             kp_error *err) {
    static const char tail[] = ": preempting to accommodate a higher priority pod";
    const kp_pod *p = &cl->pods[preemptor];
    const char *sched = p->scheduler_name ? kp__s(cl, p->scheduler_name) : "default-scheduler";
    size_t len = strlen(sched) + sizeof tail - 1;
    char inline_msg[200]; /* a longer scheduler name takes the heap: the message is never cut */
    char *msg = len < sizeof inline_msg ? inline_msg : kp__malloc(len + 1);
    if (!msg) return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
    memcpy(msg, sched, len - (sizeof tail - 1));
    memcpy(msg + len - (sizeof tail - 1), tail, sizeof tail);
    kp_status rc = kp__pod_mark_terminating(cl, victim, now, "PreemptionByScheduler", msg, err);
    if (msg != inline_msg) kp__free(msg);
    return rc;
}

/* mirrors Evaluator.prepareCandidateAsync (async preemption, default since 1.33): victims not yet
 * terminating get DisruptionTarget and a deletionTimestamp; lower-priority pods nominated to the
 * node lose their nomination; the preemptor is nominated. Nothing is cleared when every victim
 * is already terminating (it returns before its goroutine). SchedulerAsyncPreemption off (the
 * default of --compat 1.32 and older, or --feature-gates): prepareCandidate, which clears the
 * nominations in any case. */
kp_status kp__preempt_actuate(kp_sched *s, uint32_t pod, const kp_preempt_result *r,
                              kp_error *err) {
    if (!r || r->outcome != KP_PREEMPT_NOMINATED || r->node < 0) return KP_OK;
    kp_cluster *cl = kp__sched_cluster(s);
    kp_pod *pre = &cl->pods[pod];
    uint32_t n_delete = 0;
    s->memo_mut++; /* the failed-attempt memo's state (memo.h) */
    for (uint32_t i = 0; i < r->n_victims; i++) {
        if (cl->pods[r->victims[i]].deletion_ts != KP_TIME_NONE) continue;
        kp_status rc =
            preempt_pod(cl, r->victims[i], pod, r->now == KP_TIME_NONE ? 0 : r->now, err);
        if (rc != KP_OK) return rc;
        kp__sched_hot_update(s, r->victims[i]);
        n_delete++;
    }
    if (n_delete > 0 || !s->async_preemption) { /* SchedulerAsyncPreemption, on since v1.33 */
        const uint32_t *nom = NULL;
        uint32_t n_nom = kp__sched_nominated_on(s, (uint32_t)r->node, &nom);
        /* copied out first (un-nominating edits the nominator's list) into the list the
         * simulator reads (kp_sched_cleared_nominations: each pod's status update requeues) */
        if (!kp__grow32((void **)&s->cleared_nom, &s->cap_cleared_nom, n_nom,
                        sizeof *s->cleared_nom, 8))
            return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        uint32_t n_lower = 0;
        for (uint32_t i = 0; i < n_nom; i++)
            if (nom[i] != pod && cl->pods[nom[i]].priority < pre->priority)
                s->cleared_nom[n_lower++] = (kp_index)nom[i];
        for (uint32_t i = 0; i < n_lower; i++) /* status.nominatedNodeName cleared too */
            kp__sched_nominate(s, (uint32_t)s->cleared_nom[i], -1);
        s->n_cleared_nom = n_lower;
    }
    if (kp__sched_nominate(s, pod, r->node) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
    kp__pod_nominate(cl, pod, r->node); /* the preemptor's status.nominatedNodeName */
    return KP_OK;
}
