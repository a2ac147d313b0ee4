/* The data behind `kprio inspect`: per-node allocated resources (as `kubectl describe node`'s
 * "Allocated resources" section, describeNodeResource), pods by QoS and PriorityClass, the
 * PriorityClasses, the PodDisruptionBudgets and warnings for state that changes decisions. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/inspect_dra.h"
#include "core/inspect_volume.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/resources.h"
#include "core/volume.h"
#include "kprio/inspect.h"

struct kp_inspection {
    kp_inspect_summary sum;
    kp_inspect_node *nodes;
    kp_inspect_count *counts; /* every node's by_class, back to back */
    kp_inspect_class *classes;
    kp_inspect_pdb *pdbs;
    char **warnings;
    size_t n_warnings, cap_warnings;
    kp_inspect_attach *attach;
    size_t n_attach;
    kp_inspect_claim *claims;
    size_t n_claims;
    kp_inspect_device *devices; /* DRA (core/inspect_dra.c); strings in dra_pool */
    size_t n_devices;
    kp_inspect_dra_claim *dra_claims;
    size_t n_dra_claims;
    char *dra_pool;
};

/* describeNodeResource computes float64(req) / float64(alloc) * 100 and prints int64() of it, so
 * it never wraps. kprio keeps the exact integer quotient it always printed (the same figure for
 * every amount below 2^63 / 100) and, past that, divides without forming req * 100: quotient and
 * remainder, then the remainder's two decimal digits by repeated addition (no product exceeds
 * 2 * allocatable < 2^64), saturating at the int64 limits. */
int64_t kp_inspect_percent(int64_t requested, int64_t allocatable) {
    if (allocatable <= 0) return 0;
    if (requested >= INT64_MIN / 100 && requested <= INT64_MAX / 100)
        return requested * 100 / allocatable;
    bool neg = requested < 0;
    uint64_t ua = neg ? (uint64_t)0 - (uint64_t)requested : (uint64_t)requested;
    uint64_t ub = (uint64_t)allocatable, q = ua / ub, r = ua % ub, frac = 0;
    if (q > (uint64_t)INT64_MAX / 100) return neg ? INT64_MIN : INT64_MAX;
    for (int digit = 0; digit < 2; digit++) {
        uint64_t d = 0, acc = 0;
        for (int k = 0; k < 10; k++) { /* acc, r < ub: acc + r < 2 * ub, no wrap */
            acc += r;
            if (acc >= ub) {
                acc -= ub;
                d++;
            }
        }
        frac = frac * 10 + d;
        r = acc;
    }
    uint64_t res = q * 100 + frac;
    if (res > (uint64_t)INT64_MAX) return neg ? INT64_MIN : INT64_MAX;
    return neg ? -(int64_t)res : (int64_t)res;
}

/* ---- deterministic order without globals: sort records that carry their own keys ---- */

typedef struct {
    int64_t num; /* descending */
    const char *a, *b; /* then ascending, bytewise */
    uint32_t idx; /* then load order (keys are unique identities, so never reached) */
} sort_key;

static int sort_key_cmp(const void *x, const void *y) {
    const sort_key *p = x, *q = y;
    if (p->num != q->num) return p->num > q->num ? -1 : 1;
    int c = strcmp(p->a, q->a);
    if (c) return c;
    c = strcmp(p->b, q->b);
    if (c) return c;
    return p->idx < q->idx ? -1 : p->idx > q->idx;
}

static sort_key *sort_keys_new(uint32_t n) { return kp__calloc(n ? n : 1, sizeof(sort_key)); }
static void sort_keys(sort_key *k, uint32_t n) { qsort(k, n, sizeof *k, sort_key_cmp); }

/* ---- warnings ---- */

static kp_status add_warning(kp_inspection *in, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static kp_status add_warning(kp_inspection *in, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0) return KP_EINVAL;
    if (!kp__grow((void **)&in->warnings, &in->cap_warnings, in->n_warnings + 1,
                  sizeof *in->warnings, 16))
        return KP_ENOMEM;
    char *w = kp__malloc((size_t)len + 1);
    if (!w) return KP_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(w, (size_t)len + 1, fmt, ap);
    va_end(ap);
    in->warnings[in->n_warnings++] = w;
    return KP_OK;
}

/* Pod counts of the summary and one warning per pod in a state that changes decisions. */
static kp_status collect_warnings(const kp_cluster *cl, kp_inspection *in) {
    kp_inspect_summary *s = &in->sum;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        const char *ns = kp__s(cl, p->ns), *name = kp__s(cl, p->name);
        kp_status st = KP_OK;
        if (!p->node_name && !kp__pod_is_terminal(p) && p->deletion_ts == KP_TIME_NONE)
            s->pending_pods++;
        if (p->deletion_ts != KP_TIME_NONE) {
            s->terminating_pods++;
            bool victim =
                kp__pod_has_condition(cl, p, "DisruptionTarget", "True", "PreemptionByScheduler");
            st = add_warning(
                in,
                "Pod %s/%s is terminating (deletionTimestamp set): it still holds its resources%s",
                ns, name, victim ? "; it is a preemption victim" : "");
        } else if (p->nominated_node) {
            s->nominated_pods++;
            st = add_warning(in,
                             "Pod %s/%s is nominated to node %s: it reserves room there for pods "
                             "of equal or lower priority",
                             ns, name, kp__s(cl, p->nominated_node));
        } else if (p->class_missing) {
            s->class_missing_pods++;
            st = add_warning(
                in, "Pod %s/%s has priority %d from PriorityClass %s, which no longer exists", ns,
                name, p->priority, kp__s(cl, p->priority_class));
        }
        /* kube-scheduler does not queue the pod (the SchedulingGates plugin's PreEnqueue) */
        if (st == KP_OK && p->gates && !p->node_name && !kp__pod_is_terminal(p) &&
            p->deletion_ts == KP_TIME_NONE) {
            s->gated_pods++;
            st = add_warning(in,
                             "Pod %s/%s waits for scheduling gates %s (SchedulingGated): the "
                             "scheduler neither queues it nor lets it preempt until they are "
                             "removed",
                             ns, name, kp__s(cl, p->gates));
        }
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---- rows ---- */

/* Index of the pod's PriorityClass in cl->classes, n_classes for none or a deleted one. */
static uint32_t class_index(const kp_cluster *cl, const kp_pod *p) {
    for (uint32_t i = 0; i < cl->n_classes; i++)
        if (cl->classes[i].name == p->priority_class) return i;
    return cl->n_classes;
}

static kp_status class_rows(const kp_cluster *cl, kp_inspection *in, const uint32_t *order,
                            const size_t *total) {
    in->classes = kp__calloc(cl->n_classes ? cl->n_classes : 1, sizeof *in->classes);
    if (!in->classes) return KP_ENOMEM;
    for (uint32_t k = 0; k < cl->n_classes; k++) {
        const kp_priority_class *pc = &cl->classes[order[k]];
        kp_inspect_class *row = &in->classes[k];
        row->name = kp__s(cl, pc->name);
        row->value = pc->value;
        row->global_default = pc->global_default;
        row->preemption_policy =
            pc->preemption_policy == KP_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority";
        row->pods = total[order[k]];
    }
    return KP_OK;
}

static kp_status pdb_rows(const kp_cluster *cl, kp_inspection *in) {
    sort_key *keys = sort_keys_new(cl->n_pdbs);
    in->pdbs = kp__calloc(cl->n_pdbs ? cl->n_pdbs : 1, sizeof *in->pdbs);
    if (!keys || !in->pdbs) {
        kp__free(keys);
        return KP_ENOMEM;
    }
    for (uint32_t i = 0; i < cl->n_pdbs; i++)
        keys[i] = (sort_key){0, kp__s(cl, cl->pdbs[i].ns), kp__s(cl, cl->pdbs[i].name), i};
    sort_keys(keys, cl->n_pdbs);
    for (uint32_t k = 0; k < cl->n_pdbs; k++) {
        const kp_pdb *b = &cl->pdbs[keys[k].idx];
        kp_inspect_pdb *row = &in->pdbs[k];
        row->ns = kp__s(cl, b->ns);
        row->name = kp__s(cl, b->name);
        row->min_available = b->has_min_available ? kp__s(cl, b->min_available) : NULL;
        row->max_unavailable = b->has_max_unavailable ? kp__s(cl, b->max_unavailable) : NULL;
        row->has_status = b->has_status;
        row->disruptions_allowed = b->disruptions_allowed;
        row->disrupted_pods = b->n_disrupted;
    }
    kp__free(keys);
    return KP_OK;
}

/* Per-node tallies in cluster order: qos[node * 3 + qos], by_class[node * nc + class]. */
typedef struct {
    size_t *qos, *by_class, *class_total;
    uint32_t nc; /* classes + 1 (no class) */
} tallies;

static kp_status count_pods(const kp_cluster *cl, tallies *t) {
    t->nc = cl->n_classes + 1;
    t->by_class = kp__calloc((size_t)cl->n_nodes * t->nc + 1, sizeof *t->by_class);
    t->qos = kp__calloc((size_t)cl->n_nodes * 3 + 1, sizeof *t->qos);
    t->class_total = kp__calloc(t->nc, sizeof *t->class_total);
    if (!t->by_class || !t->qos || !t->class_total) return KP_ENOMEM;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        uint32_t ci = class_index(cl, p);
        t->class_total[ci]++;
        if (p->node < 0) continue;
        t->by_class[(size_t)p->node * t->nc + ci]++;
        t->qos[(size_t)p->node * 3 + p->qos]++;
    }
    return KP_OK;
}

static kp_status node_rows(const kp_cluster *cl, kp_inspection *in, const tallies *t,
                           const uint32_t *class_order) {
    sort_key *keys = sort_keys_new(cl->n_nodes);
    size_t n_counts = 0;
    for (size_t i = 0; i < (size_t)cl->n_nodes * t->nc; i++) n_counts += t->by_class[i] != 0;
    in->nodes = kp__calloc(cl->n_nodes ? cl->n_nodes : 1, sizeof *in->nodes);
    in->counts = kp__calloc(n_counts ? n_counts : 1, sizeof *in->counts);
    if (!keys || !in->nodes || !in->counts) {
        kp__free(keys);
        return KP_ENOMEM;
    }
    for (uint32_t i = 0; i < cl->n_nodes; i++)
        keys[i] = (sort_key){0, kp__s(cl, cl->nodes[i].name), "", i};
    sort_keys(keys, cl->n_nodes);
    kp_inspect_count *next = in->counts;
    for (uint32_t k = 0; k < cl->n_nodes; k++) {
        uint32_t ni = keys[k].idx;
        const kp_node *n = &cl->nodes[ni];
        kp_inspect_node *row = &in->nodes[k];
        row->name = kp__s(cl, n->name);
        row->unschedulable = n->unschedulable;
        row->tainted = n->n_taints != 0;
        row->allocatable_cpu_milli = n->alloc[KP_RES_CPU];
        row->allocatable_memory = n->alloc[KP_RES_MEM];
        row->allocatable_pods = n->alloc[KP_RES_PODS];
        row->requested_cpu_milli = n->requested[KP_RES_CPU];
        row->requested_memory = n->requested[KP_RES_MEM];
        row->requested_pods = n->n_pods;
        row->percent_cpu = kp_inspect_percent(row->requested_cpu_milli, row->allocatable_cpu_milli);
        row->percent_memory = kp_inspect_percent(row->requested_memory, row->allocatable_memory);
        row->percent_pods = kp_inspect_percent(row->requested_pods, row->allocatable_pods);
        const size_t *q = &t->qos[(size_t)ni * 3];
        row->pods_guaranteed = q[KP_QOS_GUARANTEED];
        row->pods_burstable = q[KP_QOS_BURSTABLE];
        row->pods_besteffort = q[KP_QOS_BESTEFFORT];
        row->by_class = next;
        for (uint32_t j = 0; j < t->nc; j++) {
            uint32_t ci = j < cl->n_classes ? class_order[j] : cl->n_classes;
            size_t cnt = t->by_class[(size_t)ni * t->nc + ci];
            if (!cnt) continue;
            next->priority_class = ci < cl->n_classes ? kp__s(cl, cl->classes[ci].name) : "";
            next->pods = cnt;
            next++;
        }
        row->n_by_class = (size_t)(next - row->by_class);
    }
    kp__free(keys);
    return KP_OK;
}

static kp_status build(const kp_cluster *cl, kp_inspection *in) {
    in->sum.nodes = cl->n_nodes;
    in->sum.pods = cl->n_pods;
    in->sum.priority_classes = cl->n_classes;
    in->sum.pod_disruption_budgets = cl->n_pdbs;
    tallies t = {0};
    uint32_t *class_order = kp__calloc(cl->n_classes ? cl->n_classes : 1, sizeof *class_order);
    sort_key *keys = sort_keys_new(cl->n_classes);
    kp_status st = class_order && keys ? count_pods(cl, &t) : KP_ENOMEM;
    if (st == KP_OK) {
        for (uint32_t i = 0; i < cl->n_classes; i++)
            keys[i] = (sort_key){cl->classes[i].value, kp__s(cl, cl->classes[i].name), "", i};
        sort_keys(keys, cl->n_classes);
        for (uint32_t k = 0; k < cl->n_classes; k++) class_order[k] = keys[k].idx;
        st = class_rows(cl, in, class_order, t.class_total);
    }
    if (st == KP_OK) st = node_rows(cl, in, &t, class_order);
    if (st == KP_OK) st = pdb_rows(cl, in);
    if (st == KP_OK) st = collect_warnings(cl, in);
    if (st == KP_OK)
        st = kp__inspect_attach_rows(cl, in->nodes, in->sum.nodes, &in->attach, &in->n_attach);
    if (st == KP_OK)
        st = kp__inspect_claim_rows(cl, in->nodes, in->sum.nodes, &in->claims, &in->n_claims);
    if (st == KP_OK)
        st = kp__inspect_dra_rows(cl, &in->devices, &in->n_devices, &in->dra_claims,
                                  &in->n_dra_claims, &in->dra_pool);
    kp__free(keys);
    kp__free(class_order);
    kp__free(t.qos);
    kp__free(t.by_class);
    kp__free(t.class_total);
    return st;
}

kp_status kp_inspection_new(const kp_cluster *cl, kp_inspection **out, kp_error *err) {
    *out = NULL;
    if (!cl->finalized)
        return kp_error_set(err, KP_EINVAL, "inspection: the cluster is not finalized");
    kp_inspection *in = kp__calloc(1, sizeof *in);
    if (!in) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = build(cl, in);
    if (st != KP_OK) {
        kp_inspection_free(in);
        return kp_error_set(err, st, "out of memory");
    }
    *out = in;
    return KP_OK;
}

void kp_inspection_free(kp_inspection *in) {
    if (!in) return;
    for (size_t i = 0; i < in->n_warnings; i++) kp__free(in->warnings[i]);
    kp__free(in->warnings);
    kp__free(in->nodes);
    kp__free(in->counts);
    kp__free(in->classes);
    kp__free(in->pdbs);
    kp__free(in->attach);
    kp__free(in->claims);
    kp__free(in->devices);
    kp__free(in->dra_claims);
    kp__free(in->dra_pool);
    kp__free(in);
}

const kp_inspect_summary *kp_inspection_summary(const kp_inspection *in) { return &in->sum; }
size_t kp_inspection_node_count(const kp_inspection *in) { return in->sum.nodes; }
const kp_inspect_node *kp_inspection_node(const kp_inspection *in, size_t i) {
    return i < in->sum.nodes ? &in->nodes[i] : NULL;
}
size_t kp_inspection_class_count(const kp_inspection *in) { return in->sum.priority_classes; }
const kp_inspect_class *kp_inspection_class(const kp_inspection *in, size_t i) {
    return i < in->sum.priority_classes ? &in->classes[i] : NULL;
}
size_t kp_inspection_pdb_count(const kp_inspection *in) { return in->sum.pod_disruption_budgets; }
const kp_inspect_pdb *kp_inspection_pdb(const kp_inspection *in, size_t i) {
    return i < in->sum.pod_disruption_budgets ? &in->pdbs[i] : NULL;
}
size_t kp_inspection_warning_count(const kp_inspection *in) { return in->n_warnings; }
const char *kp_inspection_warning(const kp_inspection *in, size_t i) {
    return i < in->n_warnings ? in->warnings[i] : NULL;
}
size_t kp_inspection_attach_count(const kp_inspection *in) { return in->n_attach; }
const kp_inspect_attach *kp_inspection_attach(const kp_inspection *in, size_t i) {
    return i < in->n_attach ? &in->attach[i] : NULL;
}
size_t kp_inspection_claim_count(const kp_inspection *in) { return in->n_claims; }
const kp_inspect_claim *kp_inspection_claim(const kp_inspection *in, size_t i) {
    return i < in->n_claims ? &in->claims[i] : NULL;
}
size_t kp_inspection_device_count(const kp_inspection *in) { return in->n_devices; }
const kp_inspect_device *kp_inspection_device(const kp_inspection *in, size_t i) {
    return i < in->n_devices ? &in->devices[i] : NULL;
}
size_t kp_inspection_dra_claim_count(const kp_inspection *in) { return in->n_dra_claims; }
const kp_inspect_dra_claim *kp_inspection_dra_claim(const kp_inspection *in, size_t i) {
    return i < in->n_dra_claims ? &in->dra_claims[i] : NULL;
}
