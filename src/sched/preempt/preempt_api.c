/* Public what-if API (include/kprio/preempt.h): one scheduling attempt's Filter pass, then
 * DefaultPreemption's PostFilter (preempt.c), without actuation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "kprio/preempt.h"
#include "sched/cycle.h"
#include "sched/framework.h"
#include "sched/preempt/preempt.h"

struct kp_preemption {
    kp_sched *s;
    kp_cluster *cl;
    kp_preemption_verdict verdict;
    long fit_node;
    kp_preempt_result r;
    kp_node_status *statuses; /* Filter verdict per node */
    char **filter_txt; /* per node: the Filter verdict's reasons joined (NULL = "") */
    char **dry_txt;    /* per node: why not a candidate (NULL = "") */
    uint64_t filter_calls;
};

kp_preempt_options kp_preempt_options_default(void) {
    kp_preempt_options o;
    memset(&o, 0, sizeof o);
    o.offset = -1;
    o.tie = -1;
    o.now = KP_PREEMPT_NOW_NONE;
    o.protect_pod = -1;
    return o;
}

/* The status's reasons joined by ", " (heap, exact size; NULL with *rc KP_OK when there are
 * none, NULL with *rc KP_ENOMEM on allocation failure). */
static char *status_text(const kp_node_status *st, kp_status *rc) {
    *rc = KP_OK;
    if (st->n_reasons == 0) return NULL;
    size_t len = 1;
    for (uint8_t i = 0; i < st->n_reasons; i++) len += strlen(st->reasons[i]) + 2;
    char *buf = kp__malloc(len);
    if (!buf) {
        *rc = KP_ENOMEM;
        return NULL;
    }
    size_t off = 0;
    for (uint8_t i = 0; i < st->n_reasons; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", st->reasons[i]);
    return buf;
}

static void free_texts(char **t, uint32_t n) {
    if (t)
        for (uint32_t i = 0; i < n; i++) kp__free(t[i]);
    kp__free(t);
}

void kp_preemption_free(kp_preemption *p) {
    if (!p) return;
    kp__preempt_result_fini(&p->r);
    kp__free(p->statuses);
    free_texts(p->filter_txt, p->cl ? (uint32_t)p->cl->n_nodes : 0);
    free_texts(p->dry_txt, p->cl ? (uint32_t)p->cl->n_nodes : 0);
    kp_sched_free(p->s);
    kp__free(p);
}

/* One scheduling attempt's Filter pass (findNodesThatFitPod over all nodes), then PostFilter. */
kp_status kp_preempt_evaluate(kp_cluster *cl, long pod, const kp_preempt_options *opt,
                              kp_preemption **out, kp_error *err) {
    kp_preempt_options defaults = kp_preempt_options_default();
    if (!opt) opt = &defaults;
    *out = NULL;
    if (!cl || !cl->finalized) return kp_error_set(err, KP_EINVAL, "preempt: cluster not finalized");
    if (pod < 0 || (size_t)pod >= cl->n_pods)
        return kp_error_set(err, KP_EINVAL, "preempt: no such pod (index %ld)", pod);
    if (cl->pods[pod].node >= 0) {
        char ref[256];
        return kp_error_set(err, KP_EINVAL, "preempt: pod %s is already bound to node %s",
                            kp__pod_ref(cl, &cl->pods[pod], ref, sizeof ref),
                            kp__s(cl, cl->nodes[cl->pods[pod].node].name));
    }
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
    uint32_t nn = cl->n_nodes;
    p->statuses = kp__calloc(nn ? nn : 1, sizeof *p->statuses);
    p->filter_txt = kp__calloc(nn ? nn : 1, sizeof *p->filter_txt);
    p->dry_txt = kp__calloc(nn ? nn : 1, sizeof *p->dry_txt);
    if (!p->statuses || !p->filter_txt || !p->dry_txt) {
        kp_preemption_free(p);
        return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
    }
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
        kp_status trc;
        p->filter_txt[i] = status_text(&p->statuses[i], &trc);
        if (trc != KP_OK) {
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
        *out = p;
        return KP_OK;
    }
    rc = kp__preempt_postfilter_ex(p->s, c, (uint32_t)pod, p->statuses, true, &po, &p->r, err);
    if (rc == KP_OK && (rc = kp__cycle_status(c)) != KP_OK) kp_error_set(err, rc, "preempt: out of memory");
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
            if (!(p->dry_txt[i] = status_text(&p->r.nodes[i].dry_status, &rc)) && rc != KP_OK) {
                kp_preemption_free(p);
                return kp_error_set(err, KP_ENOMEM, "preempt: out of memory");
            }
    *out = p;
    return KP_OK;
}

kp_preemption_verdict kp_preemption_outcome(const kp_preemption *p) { return p->verdict; }

long kp_preemption_node(const kp_preemption *p) {
    if (p->verdict == KP_PREEMPTION_NOT_NEEDED) return p->fit_node;
    return p->r.node;
}

size_t kp_preemption_victim_count(const kp_preemption *p) { return p->r.n_victims; }

long kp_preemption_victim(const kp_preemption *p, size_t i) {
    return i < p->r.n_victims ? (long)p->r.victims[i] : -1;
}

int kp_preemption_pdb_violations(const kp_preemption *p) { return p->r.pdb_violations; }
const char *kp_preemption_message(const kp_preemption *p) { return p->r.message ? p->r.message : ""; }
const char *kp_preemption_decided_by(const kp_preemption *p) {
    return p->r.decided_by ? p->r.decided_by : "";
}
size_t kp_preemption_candidate_count(const kp_preemption *p) { return p->r.n_candidates; }
uint64_t kp_preemption_filter_calls(const kp_preemption *p) { return p->filter_calls; }

kp_status kp_preemption_node_get(const kp_preemption *p, long node, kp_preemption_node_info *out) {
    if (node < 0 || (size_t)node >= p->cl->n_nodes)
        return kp_error_set(NULL, KP_EINVAL, "bad node index");
    memset(out, 0, sizeof *out);
    out->potential = p->statuses[node].code == KP_CODE_UNSCHEDULABLE;
    out->filter_reason = p->filter_txt[node] ? p->filter_txt[node] : "";
    out->reason = p->dry_txt[node] ? p->dry_txt[node] : "";
    if ((size_t)node < p->r.n_nodes) {
        const kp_preempt_node *pn = &p->r.nodes[node];
        out->considered = pn->considered;
        out->candidate = pn->candidate;
        out->n_victims = pn->n_victims;
        out->victims = pn->victims;
        out->pdb_violations = pn->pdb_violations;
    }
    return KP_OK;
}

const char *kp_preemption_pod_ref(const kp_preemption *p, long pod, char *buf, size_t cap) {
    if (pod < 0 || (size_t)pod >= p->cl->n_pods) {
        snprintf(buf, cap, "?");
        return buf;
    }
    return kp__pod_ref(p->cl, &p->cl->pods[pod], buf, cap);
}

const char *kp_preemption_node_name(const kp_preemption *p, long node) {
    if (node < 0 || (size_t)node >= p->cl->n_nodes) return "";
    return kp__s(p->cl, p->cl->nodes[node].name);
}

int32_t kp_preemption_pod_priority(const kp_preemption *p, long pod) {
    if (pod < 0 || (size_t)pod >= p->cl->n_pods) return 0;
    return p->cl->pods[pod].priority;
}
