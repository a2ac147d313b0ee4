/* `kprio why` (kprio/why.h): the schedule simulated as `kprio schedule` does, then the what-if
 * "a PodDisruptionBudget with no disruptions left covers the pod" as the same run replayed on the
 * snapshot with that protection in every preemption: pods bound, nominated or preempted before
 * the preemptor's attempt are there when it decides, as in the run. Both runs stop as soon as
 * the answer is settled (kp_sched_options.stop_when_settled): the first preemptor that makes the
 * pod a victim is found, or no pod left in the queue (priority order) can preempt it; the
 * what-if also waits for the preemptor's own attempt. Public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/preempt.h"
#include "kprio/sched.h"
#include "kprio/why.h"

struct kp_why {
    kp_why_answer a;
    kp_index *victims, *alt_victims;
    kp_why_attach_block *blocked;
    kp_sched_pdb_use *pdbs;
    char *device_summary;
    kp_why_device_node *device_nodes;
};

/* ---------------------------------------------------------------- devices */

/* Parsing the DynamicResources reason the allocator writes for --explain (its format:
 * "request R: F free of M device(s) matching class C[, held by H1, H2, ...]" per request, "; "
 * between them): the class, the free and matching counts, the holders. */
typedef struct {
    const char *cls;
    size_t cls_len;
    unsigned long free_n, match;
    const char *held; /* "" when none */
    size_t held_len;
} dev_req;

/* the next request of the reason from *p, false at the end */
static bool next_req(const char **p, dev_req *q) {
    const char *s = strstr(*p, "request ");
    if (!s) return false;
    const char *colon = strstr(s, ": ");
    if (!colon) return false;
    char *end = NULL;
    q->free_n = strtoul(colon + 2, &end, 10);
    if (!end || strncmp(end, " free of ", 9) != 0) return false;
    q->match = strtoul(end + 9, &end, 10);
    const char *m = strstr(end, "matching class ");
    if (!m) return false;
    q->cls = m + 15;
    q->cls_len = strcspn(q->cls, ",;)");
    const char *after = q->cls + q->cls_len;
    const char *next = strstr(after, "; request ");
    size_t rest = next ? (size_t)(next - after) : strlen(after);
    q->held = "";
    q->held_len = 0;
    if (rest > 10 && strncmp(after, ", held by ", 10) == 0) {
        q->held = after + 10;
        q->held_len = rest - 10;
        if (!next && q->held_len && q->held[q->held_len - 1] == ')') q->held_len--; /* "(...)" */
    }
    *p = next ? next + 2 : after + rest;
    return true;
}

typedef struct {
    char *b;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_put(sbuf *s, const char *t, size_t n) {
    if (s->oom) return;
    if (s->len + n + 1 > s->cap) {
        size_t cap = (s->len + n + 1) * 2;
        char *nb = kp_realloc(s->b, cap);
        if (!nb) {
            s->oom = true;
            return;
        }
        s->b = nb;
        s->cap = cap;
    }
    memcpy(s->b + s->len, t, n);
    s->len += n;
    s->b[s->len] = 0;
}

static void sb_str(sbuf *s, const char *t) { sb_put(s, t, strlen(t)); }

/* whether s[0..n) is among the holders listed in the summary so far (h[0..len)) */
static bool listed(const char *h, size_t len, const char *s, size_t n) {
    for (const char *p = h; p && (size_t)(p - h) + n <= len; p = strstr(p + 1, s))
        if (!strncmp(p, s, n) && (p + n == h + len || p[n] == ',') && (p == h || p[-1] == ' '))
            return true;
    return false;
}

/* The holders of one reason's request appended to hs (each once, up to 3, then counted) */
static void add_holders(sbuf *hs, size_t *named, size_t *more, const dev_req *q) {
    const char *p = q->held, *end = q->held + q->held_len;
    while (p < end) { /* items "ns/name" or "ns/name (reserved by pod)", ", " between them */
        int depth = 0;
        const char *e = p;
        while (e < end && !(depth == 0 && e + 1 < end && e[0] == ',' && e[1] == ' ')) {
            depth += *e == '(' ? 1 : *e == ')' ? -1 : 0;
            e++;
        }
        size_t n = (size_t)(e - p);
        if (!(n == 3 && !strncmp(p, "...", 3)) && !listed(hs->b, hs->len, p, n)) {
            if (*named < 3) {
                if (*named) sb_str(hs, ", ");
                sb_put(hs, p, n);
                (*named)++;
            } else {
                (*more)++;
            }
        }
        p = e + (e < end ? 2 : 0);
    }
}

/* The DynamicResources verdicts of the pod's last attempt (kp_sched_explain): per node its reason
 * when the plugin rejected it, and the summary over them. KP_ENOMEM. */
static kp_status device_shortage(const kp_cluster *cl, const kp_sched *s, kp_why *w) {
    size_t nn = kp_cluster_node_count(cl), m = 0;
    kp_sched_explanation ex;
    if (!kp_sched_explanation_get(s, &ex) || !ex.attempted) return KP_OK;
    if (!(w->device_nodes = kp_malloc((nn ? nn : 1) * sizeof *w->device_nodes))) return KP_ENOMEM;
    kp_status st = KP_OK;
    for (size_t i = 0; st == KP_OK && i < nn; i++) {
        kp_sched_explain_node nd;
        if (kp_sched_explain_node_get(s, (kp_index)i, &nd) != KP_OK || !nd.evaluated) continue;
        for (size_t k = 0; k < nd.n_filters; k++) {
            kp_sched_explain_filter fl;
            if (kp_sched_explain_filter_get(s, (kp_index)i, k, &fl) != KP_OK ||
                fl.code == KP_FILTER_SUCCESS || strcmp(fl.plugin, "DynamicResources") != 0 ||
                !strstr(fl.reason, "matching class "))
                continue;
            size_t len = strlen(fl.reason) + 1;
            char *r = kp_malloc(len);
            if (!r) {
                st = KP_ENOMEM;
                break;
            }
            memcpy(r, fl.reason, len);
            w->device_nodes[m].node = (kp_index)i;
            w->device_nodes[m++].reason = r;
            break;
        }
    }
    w->a.device_nodes = w->device_nodes;
    w->a.n_device_nodes = m;
    if (st != KP_OK || !m) return st;
    /* the summary: per class (first met first) its nodes, then the holders over them */
    sbuf sum = {NULL, 0, 0, false}, hs = {NULL, 0, 0, false};
    size_t named = 0, more = 0;
    bool first = true;
    for (size_t i = 0; i < m; i++) {
        const char *p = w->device_nodes[i].reason;
        dev_req q;
        while (next_req(&p, &q)) {
            add_holders(&hs, &named, &more, &q);
            /* this class counted already (an earlier node or request)? */
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++) {
                const char *pj = w->device_nodes[j].reason;
                dev_req o;
                while (!seen && next_req(&pj, &o))
                    seen = o.cls_len == q.cls_len && !strncmp(o.cls, q.cls, q.cls_len);
            }
            for (const char *pk = w->device_nodes[i].reason; !seen;) {
                dev_req o;
                if (!next_req(&pk, &o) || o.cls == q.cls) break;
                seen = o.cls_len == q.cls_len && !strncmp(o.cls, q.cls, q.cls_len);
            }
            if (seen) continue;
            /* over the nodes: how many name the class, free devices and matching ones at all */
            size_t nodes = 0;
            unsigned long any_free = 0, any_match = 0;
            for (size_t j = 0; j < m; j++) {
                const char *pj = w->device_nodes[j].reason;
                dev_req o;
                bool counted = false;
                while (next_req(&pj, &o)) {
                    if (o.cls_len != q.cls_len || strncmp(o.cls, q.cls, q.cls_len)) continue;
                    any_free += o.free_n;
                    any_match += o.match;
                    if (!counted) nodes++;
                    counted = true;
                }
            }
            char head[64];
            sb_str(&sum, first ? "" : ", ");
            sb_str(&sum, !any_match ? "no device matching class "
                         : any_free ? "not enough free devices matching class "
                                    : "no free device matching class ");
            sb_put(&sum, q.cls, q.cls_len);
            snprintf(head, sizeof head, " on %zu node%s", nodes, nodes == 1 ? "" : "s");
            sb_str(&sum, head);
            first = false;
        }
    }
    if (hs.len) {
        sb_str(&sum, "; devices held by ");
        sb_put(&sum, hs.b, hs.len);
        if (more) {
            char tail[48];
            snprintf(tail, sizeof tail, " and %zu more", more);
            sb_str(&sum, tail);
        }
    }
    kp_free(hs.b);
    if (sum.oom || hs.oom) {
        kp_free(sum.b);
        return KP_ENOMEM;
    }
    w->device_summary = sum.b;
    w->a.device_summary = sum.b ? sum.b : "";
    return KP_OK;
}

/* The nodes where the preemptor's NodeVolumeLimits count cannot be helped by preemption (the
 * scheduler's rule, kp_sched_attach_slots_get, as --explain prints it). */
static kp_status attach_blocked(const kp_cluster *cl, kp_sched *s, kp_why *w, kp_error *err) {
    size_t nn = kp_cluster_node_count(cl), m = 0;
    kp_sched_attach_slots *slots = kp_malloc((nn ? nn : 1) * sizeof *slots);
    if (!slots) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = kp_sched_attach_slots_get(s, w->a.preemptor, slots, nn, err);
    for (size_t i = 0; st == KP_OK && i < nn; i++) m += slots[i].cannot_help;
    if (st == KP_OK && m && !(w->blocked = kp_malloc(m * sizeof *w->blocked)))
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    m = 0;
    for (size_t i = 0; st == KP_OK && w->blocked && i < nn; i++) {
        if (!slots[i].cannot_help) continue;
        kp_why_attach_block *b = &w->blocked[m++];
        b->node = (kp_index)i;
        b->driver = slots[i].driver;
        b->held = slots[i].held;
        b->limit = slots[i].limit;
    }
    w->a.attach_blocked = w->blocked;
    w->a.n_attach_blocked = st == KP_OK ? m : 0;
    kp_free(slots);
    return st;
}

/* A copy of r's victims (the answer outlives the scheduler the result borrows from). */
static kp_status copy_victims(const kp_sched_pod_result *r, kp_index **out) {
    if (!(*out = kp_malloc((r->n_victims ? r->n_victims : 1) * sizeof **out))) return KP_ENOMEM;
    for (size_t k = 0; k < r->n_victims; k++) (*out)[k] = r->victims[k];
    return KP_OK;
}

/* The preemptor that makes `pod` a victim in the simulated schedule (none: a stays "not
 * preempted"), the node, its victims and the cascade step that chose the node. KP_ENOMEM. */
static kp_status find_preemptor(const kp_sched *s, kp_index pod, kp_why *w) {
    kp_why_answer *a = &w->a;
    size_t i;
    const kp_sched_pod_result *r;
    if (kp_sched_result_find_preemptor(s, pod, &i) != KP_OK || !(r = kp_sched_result(s, i)))
        return KP_OK;
    a->preempted = true;
    a->preemptor = r->pod;
    a->preemptor_priority = r->priority;
    a->node = r->nominated_node >= 0 ? r->nominated_node : r->node;
    a->pdb_violations = r->pdb_violations;
    a->decided_by = r->decided_by ? r->decided_by : "";
    if (copy_victims(r, &w->victims) != KP_OK) return KP_ENOMEM;
    a->victims = w->victims;
    a->n_victims = r->n_victims;
    return KP_OK;
}

/* The preemptor's result in a run (NULL when it was not attempted). */
static const kp_sched_pod_result *result_of(const kp_sched *s, kp_index pod) {
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        if (r && r->pod == pod) return r;
    }
    return NULL;
}

/* What-if: the same run on the snapshot, `pod` covered by a PDB with no disruptions left in
 * every preemption. The pod is spared when nobody preempts it then; the preemptor's own result
 * says where it goes and whom it preempts instead. */
static kp_status what_if_pdb(kp_cluster *snapshot, kp_index pod, const kp_preempt_options *po,
                             kp_why *w, kp_error *err) {
    kp_why_answer *a = &w->a;
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = po->seed;
    so.compat = po->compat;
    so.protect_pod = pod;
    so.stop_when_settled = true; /* settled: the preemptor attempted, and nobody else can */
    so.settle_pod = pod;
    so.settle_after = a->preemptor;
    kp_sched *s = NULL;
    kp_status st = kp_sched_new(snapshot, po->config, &so, &s, err);
    if (st == KP_OK) st = kp_sched_run(s, err);
    const kp_sched_pod_result *r = st == KP_OK ? result_of(s, a->preemptor) : NULL;
    if (r) {
        size_t i;
        a->pdb_evaluated = true;
        kp_sched_run_stats(s, &a->pdb_pods_attempted, NULL);
        a->pdb_spares = kp_sched_result_find_preemptor(s, pod, &i) != KP_OK;
        a->pdb_alt_node = r->outcome == KP_OUTCOME_NOMINATED ? r->nominated_node : -1;
        if ((st = copy_victims(r, &w->alt_victims)) != KP_OK)
            kp_error_set(err, st, "out of memory");
        a->alt_victims = w->alt_victims;
        a->n_alt_victims = w->alt_victims ? r->n_victims : 0;
    }
    kp_sched_free(s);
    return st;
}

kp_status kp_why_evaluate(kp_cluster *run_cl, kp_cluster *snapshot, kp_index pod,
                          const kp_preempt_options *o, kp_why **out, kp_error *err) {
    *out = NULL;
    kp_preempt_options po;
    if (o) po = *o;
    else kp_preempt_options_init(&po);
    if (kp_cluster_pod_count(snapshot) != kp_cluster_pod_count(run_cl))
        return kp_error_set(err, KP_EINVAL, "why: the snapshot does not hold the pods of the run");
    kp_why *w = kp_malloc(sizeof *w);
    if (!w) return kp_error_set(err, KP_ENOMEM, "out of memory");
    memset(w, 0, sizeof *w);
    w->a.preemptor = w->a.node = w->a.pdb_alt_node = -1;
    w->a.decided_by = "";
    w->a.device_summary = "";
    w->a.pod_priority = kp_cluster_pod_priority(snapshot, pod);
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = po.seed;
    so.compat = po.compat;
    so.stop_when_settled = true;
    so.settle_pod = pod;
    /* a pending pod with claims: its own attempt tells whether it waits for devices */
    kp_pod_info pi;
    bool pending_claims = kp_cluster_pod_claim_count(run_cl, pod) &&
                          kp_cluster_pod_info(run_cl, pod, &pi) == KP_OK && pi.node < 0 &&
                          !pi.deleted && !pi.terminal;
    if (pending_claims) so.settle_after = pod;
    kp_sched *s = NULL;
    kp_status st = kp_sched_new(run_cl, po.config, &so, &s, err);
    if (st == KP_OK && pending_claims) st = kp_sched_explain(s, pod, err);
    if (st == KP_OK) st = kp_sched_run(s, err);
    const kp_sched_pod_result *own = st == KP_OK && pending_claims ? result_of(s, pod) : NULL;
    if (own && own->outcome == KP_OUTCOME_UNSCHEDULABLE &&
        (st = device_shortage(run_cl, s, w)) != KP_OK)
        kp_error_set(err, st, "out of memory");
    if (st == KP_OK)
        w->a.stopped_early = kp_sched_run_stats(s, &w->a.pods_attempted, &w->a.pods_queued);
    if (st == KP_OK && (st = find_preemptor(s, pod, w)) != KP_OK)
        kp_error_set(err, st, "out of memory");
    if (st == KP_OK && w->a.preempted) st = attach_blocked(run_cl, s, w, err);
    if (st == KP_OK && w->a.preempted) { /* the PDBs of the pod, summed over the run so far */
        st = kp_sched_pdb_uses(s, pod, &w->pdbs, &w->a.n_pdbs, err);
        w->a.pdbs = w->pdbs;
    }
    kp_sched_free(s);
    if (st == KP_OK && w->a.preempted) st = what_if_pdb(snapshot, pod, &po, w, err);
    if (st != KP_OK) {
        kp_why_free(w);
        return st;
    }
    *out = w;
    return KP_OK;
}

const kp_why_answer *kp_why_get(const kp_why *w) { return &w->a; }

void kp_why_free(kp_why *w) {
    if (!w) return;
    kp_free(w->victims);
    kp_free(w->alt_victims);
    kp_free(w->blocked);
    kp_sched_pdb_uses_free(w->pdbs);
    for (size_t i = 0; i < w->a.n_device_nodes; i++) kp_free((void *)w->device_nodes[i].reason);
    kp_free(w->device_nodes);
    kp_free(w->device_summary);
    kp_free(w);
}
