/* Public what-if API (include/kprio/preempt.h): one scheduling attempt's Filter pass, then
 * DefaultPreemption's PostFilter (preempt.c), without actuation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/meta.h"
#include "core/pod.h"
#include "kprio/preempt.h"
#include "sched/cycle.h"
#include "sched/framework.h"
#include "sched/plugins/scheduling_gates.h"
#include "sched/preempt/preempt.h"

struct kp_preemption {
    kp_sched *s;
    kp_cluster *cl;
    kp_preemption_verdict verdict;
    kp_index fit_node;
    kp_preempt_result r;
    kp_node_status *statuses; /* Filter verdict per node */
    char *txt; /* every node's texts, NUL-terminated, one after another; txt[0] = "" */
    size_t txt_len, txt_cap;
    size_t *filter_at; /* per node: offset in txt of the Filter verdict's reasons joined */
    size_t *dry_at; /* per node: offset in txt of why it is not a candidate */
    kp_preemption_node_info *info; /* per node: what kp_preemption_node_detail returns */
    uint64_t filter_calls;
};

void kp_preempt_options_init(kp_preempt_options *o) {
    memset(o, 0, sizeof *o);
    o->offset = -1;
    o->tie = -1;
    o->now = KP_PREEMPT_NOW_NONE;
    o->protect_pod = -1;
}

/* Appends the status's reasons joined by ", " to p->txt; *at = its offset (0, the empty text,
 * when there are none). One store for every node's texts: no allocation per node. KP_ENOMEM. */
static kp_status status_text(kp_preemption *p, const kp_node_status *st, size_t *at) {
    *at = 0;
    if (st->n_reasons == 0) return KP_OK;
    size_t len = 1;
    for (uint8_t i = 0; i < st->n_reasons; i++) len += strlen(st->reasons[i]) + 2;
    if (len > SIZE_MAX - p->txt_len ||
        !kp__grow((void **)&p->txt, &p->txt_cap, p->txt_len + len, 1, 4096))
        return KP_ENOMEM;
    char *buf = p->txt + p->txt_len;
    size_t off = 0;
    for (uint8_t i = 0; i < st->n_reasons; i++) {
        size_t n = strlen(st->reasons[i]);
        if (i) {
            memcpy(buf + off, ", ", 2);
            off += 2;
        }
        memcpy(buf + off, st->reasons[i], n);
        off += n;
    }
    buf[off] = '\0';
    *at = p->txt_len;
    p->txt_len += off + 1;
    return KP_OK;
}

void kp_preemption_free(kp_preemption *p) {
    if (!p) return;
    kp__preempt_result_fini(&p->r);
    kp__free(p->statuses);
    kp__free(p->txt);
    kp__free(p->filter_at);
    kp__free(p->dry_at);
    kp__free(p->info);
    kp_sched_free(p->s);
    kp__free(p);
}

/* The per-node records kp_preemption_node_detail returns, from the Filter verdicts and the dry
 * run (once per evaluation; strings borrow from p). */
static void fill_info(kp_preemption *p) {
    for (size_t node = 0; node < p->cl->n_nodes; node++) {
        kp_preemption_node_info *out = &p->info[node];
        out->potential = p->statuses[node].code == KP_CODE_UNSCHEDULABLE;
        out->filter_reason = p->txt + p->filter_at[node];
        out->reason = p->txt + p->dry_at[node];
        if (node < p->r.n_nodes) {
            const kp_preempt_node *pn = &p->r.nodes[node];
            out->considered = pn->considered;
            out->candidate = pn->candidate;
            out->n_victims = pn->n_victims;
            out->pdb_violations = pn->pdb_violations;
        }
    }
}

/* One scheduling attempt's Filter pass (findNodesThatFitPod over all nodes), then PostFilter. */
kp_status kp_preemption_new(kp_cluster *cl, kp_index pod, const kp_preempt_options *opt,
                            kp_preemption **out, kp_error *err) {
    kp_preempt_options defaults;
    kp_preempt_options_init(&defaults);
    if (!opt) opt = &defaults;
    *out = NULL;
    if (!cl || !cl->finalized)
        return kp_error_set(err, KP_EINVAL, "preempt: cluster not finalized");
    if (pod < 0 || (size_t)pod >= cl->n_pods)
        return kp_error_set(err, KP_EINVAL, "preempt: no such pod (index %ld)", pod);
    if (cl->pods[pod].node >= 0)
        return kp_error_set(err, KP_EINVAL, "preempt: pod %s/%s is already bound to node %s",
                            kp__s(cl, cl->pods[pod].ns), kp__s(cl, cl->pods[pod].name),
                            kp__s(cl, cl->nodes[cl->pods[pod].node].name));
    kp_preempt_opts po;
    kp__preempt_opts_default(&po);
    po.reference = opt->reference;
    po.offset = opt->offset;
    po.tie = opt->tie;
    po.now = opt->now == KP_PREEMPT_NOW_NONE ? KP_TIME_NONE : opt->now;
    po.protect_pod = opt->protect_pod < 0 ? -1 : (int32_t)opt->protect_pod;
    if (opt->compat && !kp__preempt_compat_parse(opt->compat, &po.compat))
        return kp_error_set(err, KP_EINVAL, "preempt: --compat %s: expected a version like 1.35",
                            opt->compat);

    kp_preemption *p = kp__calloc(1, sizeof *p);
    if (!p) return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
    p->cl = cl;
    p->fit_node = -1;
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = opt->seed;
    so.compat = opt->compat;
    kp_status rc = kp_sched_new(cl, opt->config, &so, &p->s, err);
    if (rc != KP_OK) {
        kp__free(p);
        return rc;
    }
    kp__sched_use_profile(p->s, (uint32_t)pod); /* the preemptor's profile (frameworkForPod) */
    uint32_t nn = cl->n_nodes;
    p->statuses = kp__calloc(nn ? nn : 1, sizeof *p->statuses);
    p->filter_at = kp__calloc(nn ? nn : 1, sizeof *p->filter_at);
    p->dry_at = kp__calloc(nn ? nn : 1, sizeof *p->dry_at);
    p->info = kp__calloc(nn ? nn : 1, sizeof *p->info);
    p->txt_cap = 4096;
    p->txt = kp__malloc(p->txt_cap);
    if (!p->statuses || !p->filter_at || !p->dry_at || !p->info || !p->txt) {
        kp_preemption_free(p);
        return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
    }
    p->txt[0] = '\0'; /* offset 0: the empty text */
    p->txt_len = 1;
    kp_node_status pre;
    kp__status_reset(&pre);
    kp_cycle *c = kp__cycle_new(p->s, (uint32_t)pod, &pre);
    if (!c) {
        kp_preemption_free(p);
        return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
    }
    for (uint32_t i = 0; i < nn; i++) {
        if (pre.code != KP_CODE_SUCCESS) {
            p->statuses[i] = pre; /* PreFilter rejection: the status of every node */
        } else {
            kp__cycle_filter(c, i, &p->statuses[i]);
            p->filter_calls++;
        }
        if (status_text(p, &p->statuses[i], &p->filter_at[i]) != KP_OK) {
            kp__cycle_free(c);
            kp_preemption_free(p);
            return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
        }
        if (p->statuses[i].code == KP_CODE_SUCCESS && p->fit_node < 0) p->fit_node = i;
    }
    if (kp__cycle_status(c) != KP_OK) {
        kp__cycle_free(c);
        kp_preemption_free(p);
        return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
    }
    if (!kp__pre_enqueue_gates(p->s, &cl->pods[pod])) {
        /* a gated pod never leaves PreEnqueue: no scheduling attempt, so no PostFilter */
        p->verdict = KP_PREEMPTION_NOT_ELIGIBLE;
        if (kp__preempt_set_message(&p->r, "not eligible: waiting for scheduling gates: %s",
                                    kp__s(cl, cl->pods[pod].gates)) != KP_OK) {
            kp__cycle_free(c);
            kp_preemption_free(p);
            return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
        }
        p->r.node = -1;
        p->r.decided_by = "";
        kp__cycle_free(c);
        fill_info(p);
        *out = p;
        return KP_OK;
    }
    if (p->fit_node >= 0) {
        p->verdict = KP_PREEMPTION_NOT_NEEDED;
        if (kp__preempt_set_message(&p->r, "pod fits on node %s without preemption",
                                    kp__s(cl, cl->nodes[p->fit_node].name)) != KP_OK) {
            kp__cycle_free(c);
            kp_preemption_free(p);
            return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
        }
        p->r.node = -1;
        p->r.decided_by = "";
        kp__cycle_free(c);
        fill_info(p);
        *out = p;
        return KP_OK;
    }
    rc = kp__preempt_postfilter_ex(p->s, c, (uint32_t)pod, p->statuses, true, &po, &p->r, err);
    if (rc == KP_OK && (rc = kp__cycle_status(c)) != KP_OK)
        kp_error_set(err, rc, "preempt: out of memory");
    kp__cycle_free(c);
    if (rc != KP_OK) {
        kp_preemption_free(p);
        return rc;
    }
    p->filter_calls += po.filter_calls;
    switch (p->r.outcome) {
    case KP_PREEMPT_NOMINATED: p->verdict = KP_PREEMPTION_NOMINATED; break;
    case KP_PREEMPT_NOT_ELIGIBLE: p->verdict = KP_PREEMPTION_NOT_ELIGIBLE; break;
    case KP_PREEMPT_NO_CANDIDATES: p->verdict = KP_PREEMPTION_NO_CANDIDATES; break;
    }
    for (uint32_t i = 0; i < p->r.n_nodes; i++)
        if (p->r.nodes[i].considered && !p->r.nodes[i].candidate)
            if (status_text(p, &p->r.nodes[i].dry_status, &p->dry_at[i]) != KP_OK) {
                kp_preemption_free(p);
                return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
            }
    fill_info(p);
    *out = p;
    return KP_OK;
}

kp_preemption_verdict kp_preemption_outcome(const kp_preemption *p) { return p->verdict; }

kp_index kp_preemption_node(const kp_preemption *p) {
    if (p->verdict == KP_PREEMPTION_NOT_NEEDED) return p->fit_node;
    return p->r.node;
}

size_t kp_preemption_victim_count(const kp_preemption *p) { return p->r.n_victims; }

kp_index kp_preemption_victim(const kp_preemption *p, size_t i) {
    return i < p->r.n_victims ? (kp_index)p->r.victims[i] : -1;
}

int kp_preemption_pdb_violations(const kp_preemption *p) { return p->r.pdb_violations; }
const char *kp_preemption_message(const kp_preemption *p) {
    return p->r.message ? p->r.message : "";
}
const char *kp_preemption_decided_by(const kp_preemption *p) {
    return p->r.decided_by ? p->r.decided_by : "";
}
size_t kp_preemption_candidate_count(const kp_preemption *p) { return p->r.n_candidates; }
uint64_t kp_preemption_filter_calls(const kp_preemption *p) { return p->filter_calls; }

const kp_preemption_node_info *kp_preemption_node_detail(const kp_preemption *p, kp_index node) {
    return node >= 0 && (size_t)node < p->cl->n_nodes ? &p->info[node] : NULL;
}

kp_index kp_preemption_node_victim(const kp_preemption *p, kp_index node, size_t i) {
    if (node < 0 || (size_t)node >= p->r.n_nodes) return -1;
    const kp_preempt_node *pn = &p->r.nodes[node];
    return i < pn->n_victims ? (kp_index)pn->victims[i] : -1;
}
