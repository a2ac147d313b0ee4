/* The what-if comparison (kprio/insight.h, docs/simulate.md "What-if comparison"): two runs from
 * the same snapshot and seed, their counters, pending-time percentiles, the pods that ended
 * differently (matched by owner and creation ordinal, or namespace/name) and the findings only
 * one run has. */
#include <stdlib.h>
#include <string.h>

#include "sim/insight_internal.h"

struct kp_insight_compare {
    kp_compare c;
};

/* How a pod of one run is matched with the other run's (kp_compare_pod): a pod a controller
 * created during the run by its owner and its ordinal (the i-th pod that owner created in the
 * run, in creation order: generated names differ between runs, the order does not), every other
 * pod by namespace/name (the snapshot's, those the scenario names; the last pod of a name). */
typedef struct {
    const kp_cluster *cl;
    kp_index pod;
    const char *ns, *owner_kind, *owner_name, *name; /* owner "" for a pod matched by name */
    uint32_t ordinal;
} ins_key;

static int cmp_str(const char *x, const char *y) { return strcmp(x, y); }

/* the match key, without the ordinal */
static int cmp_group(const ins_key *x, const ins_key *y) {
    int c = cmp_str(x->ns, y->ns);
    if (!c) c = cmp_str(x->owner_kind, y->owner_kind);
    if (!c) c = cmp_str(x->owner_name, y->owner_name);
    if (!c && !x->owner_kind[0]) c = cmp_str(x->name, y->name);
    return c;
}

static int cmp_keys(const ins_key *x, const ins_key *y) {
    int c = cmp_group(x, y);
    return c ? c : (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

/* group, then creation (pod index) order */
static int cmp_key_pod(const void *a, const void *b) {
    const ins_key *x = a, *y = b;
    int c = cmp_group(x, y);
    return c ? c : (x->pod > y->pod) - (x->pod < y->pod);
}

static ins_key *keyed(const kp_sim *sim, size_t *n) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    size_t np = kp_sim_pod_count(sim);
    ins_key *v = kp_malloc((np ? np : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < np; i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(cl, (kp_index)i, &pi);
        const kp_sim_pod *sp = kp_sim_pod_get(sim, i);
        bool by_owner = sp->created_ms >= 0 && pi.owner_kind[0] && pi.owner_name[0];
        v[i] = (ins_key){cl,
                         (kp_index)i,
                         pi.ns,
                         by_owner ? pi.owner_kind : "",
                         by_owner ? pi.owner_name : "",
                         pi.name,
                         0};
    }
    qsort(v, np, sizeof *v, cmp_key_pod);
    size_t w = 0;
    for (size_t i = 0; i < np; i++) {
        bool same = i + 1 < np && cmp_group(&v[i], &v[i + 1]) == 0;
        if (!v[i].owner_kind[0]) {
            if (same) continue; /* by name: keep the last */
        } else if (w > 0 && cmp_group(&v[w - 1], &v[i]) == 0) {
            v[i].ordinal = v[w - 1].ordinal + 1;
        }
        v[w++] = v[i];
    }
    *n = w;
    return v;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* p50, p90, p99 (nearest rank) and max of v[0..n), sorted */
static void percentiles(const int64_t *v, size_t n, int64_t out[4]) {
    static const int PCT[3] = {50, 90, 99};
    for (int k = 0; k < 3; k++) {
        size_t rank = (n * (size_t)PCT[k] + 99) / 100; /* ceil(n * p / 100), 1-based */
        out[k] = n ? v[rank ? rank - 1 : 0] : 0;
    }
    out[3] = n ? v[n - 1] : 0;
}

/* Whether the pod was pending at some time in the run, and for how long (as starvation
 * measures it: from creation or t = 0 to binding, deletion or the end). */
static bool pending_time(const kp_sim *sim, const kp_sim_pod *sp, int64_t *out) {
    if (sp->bound_ms < 0 && sp->attempts == 0 && sp->state != KP_SIM_POD_PENDING) return false;
    int64_t from = sp->created_ms >= 0 ? sp->created_ms : 0;
    int64_t to = sp->bound_ms >= 0  ? sp->bound_ms
                 : sp->gone_ms >= 0 ? sp->gone_ms
                                    : kp_sim_now(sim);
    *out = to - from;
    return true;
}

/* p50, p90, p99 (nearest rank) and max of the pending times (as starvation measures them) */
kp_status kp_insight_pending_times(const kp_sim *sim, int64_t out[4]) {
    size_t np = kp_sim_pod_count(sim), n = 0;
    int64_t *v = kp_malloc((np ? np : 1) * sizeof *v);
    if (!v) return KP_ENOMEM;
    for (size_t i = 0; i < np; i++)
        if (pending_time(sim, kp_sim_pod_get(sim, i), &v[n])) n++;
    qsort(v, n, sizeof *v, cmp_i64);
    percentiles(v, n, out);
    kp_free(v);
    return KP_OK;
}

/* When the run's last Deployment rollout completed (kp_compare.rollout_a): over the Deployments
 * with a second revision, the Progressing condition's lastUpdateTime once NewReplicaSetAvailable */
static int64_t rollout_done(const kp_sim *sim) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    int64_t done = KP_COMPARE_NO_ROLLOUT;
    for (size_t i = 0; i < kp_cluster_workload_count(cl); i++) {
        kp_workload_info in;
        if (kp_cluster_workload_info(cl, (kp_index)i, &in) != KP_OK || in.deleted ||
            strcmp(in.kind, "Deployment") != 0 || in.revision < 2)
            continue;
        if (strcmp(in.progressing_reason, "NewReplicaSetAvailable") != 0)
            return KP_COMPARE_ROLLOUT_NOT_DONE;
        int64_t t = (in.progressing_time - kp_sim_epoch(sim)) * 1000;
        if (t > done) done = t;
    }
    return done;
}

static bool same_node(const kp_sim *a, kp_index na, const kp_sim *b, kp_index nb) {
    if (na < 0 || nb < 0) return na == nb;
    return strcmp(kp_cluster_node_name(kp_sim_cluster(a), na),
                  kp_cluster_node_name(kp_sim_cluster(b), nb)) == 0;
}

static kp_status diff_pods(const kp_sim *a, const kp_sim *b, kp_compare *c) {
    size_t na = 0, nb = 0;
    ins_key *va = keyed(a, &na), *vb = keyed(b, &nb);
    kp_compare_pod *out = kp_malloc((na + nb + 1) * sizeof *out);
    if (!va || !vb || !out) {
        kp_free(va), kp_free(vb), kp_free(out);
        return KP_ENOMEM;
    }
    size_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        int o = i == na ? 1 : j == nb ? -1 : cmp_keys(&va[i], &vb[j]);
        kp_index pa = o <= 0 ? va[i].pod : -1, pb = o >= 0 ? vb[j].pod : -1;
        const kp_sim_pod *sa = pa >= 0 ? kp_sim_pod_get(a, (size_t)pa) : NULL;
        const kp_sim_pod *sb = pb >= 0 ? kp_sim_pod_get(b, (size_t)pb) : NULL;
        const ins_key *k = o <= 0 ? &va[i] : &vb[j];
        kp_compare_pod d = {k->ns,
                            k->name,
                            pa,
                            pb,
                            sa ? sa->node : -1,
                            sb ? sb->node : -1,
                            sa ? sa->state : KP_SIM_POD_PENDING,
                            sb ? sb->state : KP_SIM_POD_PENDING,
                            pb >= 0 ? vb[j].name : k->name,
                            k->owner_kind,
                            k->owner_name,
                            k->ordinal};
        if (!sa || !sb || sa->state != sb->state || !same_node(a, d.node_a, b, d.node_b))
            out[n++] = d;
        if (o <= 0) i++;
        if (o >= 0) j++;
    }
    kp_free(va);
    kp_free(vb);
    c->pods = out;
    c->n_pods = n;
    return KP_OK;
}

static bool same_finding(const kp_finding *x, const kp_finding *y) {
    return x->kind == y->kind && strcmp(x->subject_kind, y->subject_kind) == 0 &&
           strcmp(x->subject_ns, y->subject_ns) == 0 &&
           strcmp(x->subject_name, y->subject_name) == 0 && strcmp(x->condition, y->condition) == 0;
}

/* indices of the findings of x with no finding of the same kind and subject in y */
static kp_status only_in(const kp_insight *x, const kp_insight *y, const size_t **out, size_t *n) {
    size_t nx = kp_insight_finding_count(x), ny = kp_insight_finding_count(y), m = 0;
    size_t *v = kp_malloc((nx ? nx : 1) * sizeof *v);
    if (!v) return KP_ENOMEM;
    for (size_t i = 0; i < nx; i++) {
        bool found = false;
        for (size_t j = 0; j < ny && !found; j++)
            found = same_finding(kp_insight_finding_get(x, i), kp_insight_finding_get(y, j));
        if (!found) v[m++] = i;
    }
    *out = v;
    *n = m;
    return KP_OK;
}

kp_status kp_insight_compare_new(const kp_sim *a, const kp_insight *ia, const kp_sim *b,
                                 const kp_insight *ib, kp_insight_compare **out, kp_error *err) {
    *out = kp_calloc(1, sizeof **out);
    if (!*out) return kp_error_set(err, KP_ENOMEM, "insight: out of memory");
    kp_compare *c = &(*out)->c;
    kp_sim_counters_get(a, &c->a);
    kp_sim_counters_get(b, &c->b);
    c->evictions_a = c->a.kubelet_evictions;
    c->evictions_b = c->b.kubelet_evictions;
    c->rollout_a = rollout_done(a);
    c->rollout_b = rollout_done(b);
    c->pdb_below_a = ia->pdb_below_ms;
    c->pdb_below_b = ib->pdb_below_ms;
    kp_status st = kp_insight_pending_times(a, c->pending_a);
    if (st == KP_OK) st = kp_insight_pending_times(b, c->pending_b);
    if (st == KP_OK) st = diff_pods(a, b, c);
    if (st == KP_OK) st = only_in(ia, ib, &c->only_a, &c->n_only_a);
    if (st == KP_OK) st = only_in(ib, ia, &c->only_b, &c->n_only_b);
    if (st != KP_OK) {
        kp_insight_compare_free(*out);
        *out = NULL;
        return kp_error_set(err, st, "insight: out of memory");
    }
    return KP_OK;
}

const kp_compare *kp_insight_compare_get(const kp_insight_compare *c) { return &c->c; }

void kp_insight_compare_free(kp_insight_compare *c) {
    if (!c) return;
    kp_free((void *)c->c.pods);
    kp_free((void *)c->c.only_a);
    kp_free((void *)c->c.only_b);
    kp_free((void *)c->c.classes);
    kp_free(c);
}

/* ---------------------------------------------------------------- per PriorityClass */

/* the rows so far and, per run, each pod's row and the pending times collected per row */
typedef struct {
    kp_compare_class *v;
    size_t n, cap;
} class_rows;

/* the row of class name (added when new), -1 out of memory */
static long row_of(class_rows *r, const char *name) {
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].name, name) == 0) return (long)i;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        kp_compare_class *nv = kp_realloc(r->v, cap * sizeof *nv);
        if (!nv) return -1;
        r->v = nv;
        r->cap = cap;
    }
    memset(&r->v[r->n], 0, sizeof r->v[r->n]);
    r->v[r->n].name = name;
    return (long)r->n++;
}

typedef struct {
    long row;
    int64_t t;
} row_time;

static int cmp_row_time(const void *a, const void *b) {
    const row_time *x = a, *y = b;
    if (x->row != y->row) return (x->row > y->row) - (x->row < y->row);
    return (x->t > y->t) - (x->t < y->t);
}

/* run k's figures into the rows: pods, victims, pending times (percentiles per row), then the
 * preemptions (by the preemptor's class) and the findings (once per class of their pods) */
static kp_status side_by_class(class_rows *r, int k, const kp_sim *sim, const kp_insight *in) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    size_t np = kp_sim_pod_count(sim), ne = kp_sim_event_count(sim), nt = 0;
    long *row = kp_malloc((np ? np : 1) * sizeof *row);
    row_time *times = kp_malloc((np ? np : 1) * sizeof *times);
    long *seen = NULL;
    kp_status st = row && times ? KP_OK : KP_ENOMEM;
    for (size_t i = 0; i < np && st == KP_OK; i++) {
        kp_pod_info pi;
        const char *name =
            kp_cluster_pod_info(cl, (kp_index)i, &pi) == KP_OK ? pi.priority_class : "";
        if ((row[i] = row_of(r, name)) < 0) {
            st = KP_ENOMEM;
            break;
        }
        kp_compare_class *c = &r->v[row[i]];
        const kp_sim_pod *sp = kp_sim_pod_get(sim, i);
        (*(k ? &c->pods_b : &c->pods_a))++;
        if (sp->preempted_by >= 0) (*(k ? &c->victims_b : &c->victims_a))++;
        if (pending_time(sim, sp, &times[nt].t)) times[nt++].row = row[i];
    }
    if (st == KP_OK) {
        qsort(times, nt, sizeof *times, cmp_row_time);
        int64_t buf[4];
        for (size_t i = 0, j; i < nt; i = j) {
            for (j = i; j < nt && times[j].row == times[i].row; j++) continue;
            int64_t *v = kp_malloc((j - i) * sizeof *v);
            if (!v) {
                st = KP_ENOMEM;
                break;
            }
            for (size_t q = i; q < j; q++) v[q - i] = times[q].t;
            percentiles(v, j - i, buf);
            kp_free(v);
            memcpy(k ? r->v[times[i].row].pending_b : r->v[times[i].row].pending_a, buf,
                   sizeof buf);
        }
    }
    /* a preemption is the Preempted events of one attempt (their cause, as the victims'
     * histogram counts them), counted once for its preemptor's class */
    bool *done = st == KP_OK ? kp_calloc(ne ? ne : 1, sizeof *done) : NULL;
    if (st == KP_OK && !done) st = KP_ENOMEM;
    for (size_t i = 0; i < ne && st == KP_OK; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (strcmp(e->reason, "Preempted") != 0 || e->pod < 0 || (size_t)e->pod >= np) continue;
        if (e->cause >= 0 && (size_t)e->cause < ne) {
            if (done[e->cause]) continue;
            done[e->cause] = true;
        }
        kp_index by = kp_sim_pod_get(sim, (size_t)e->pod)->preempted_by;
        if (by < 0 || (size_t)by >= np) continue;
        kp_compare_class *c = &r->v[row[by]];
        (*(k ? &c->preemptions_b : &c->preemptions_a))++;
    }
    kp_free(done);
    size_t nf = kp_insight_finding_count(in);
    if (st == KP_OK && !(seen = kp_malloc((r->n ? r->n : 1) * sizeof *seen))) st = KP_ENOMEM;
    for (size_t i = 0; i < r->n && st == KP_OK; i++) seen[i] = -1;
    for (size_t f = 0; f < nf && st == KP_OK; f++) {
        const kp_finding *x = kp_insight_finding_get(in, f);
        for (size_t q = 0; q <= x->n_pods; q++) {
            kp_index p = q < x->n_pods ? x->pods[q] : x->pod;
            if (p < 0 || (size_t)p >= np || seen[row[p]] == (long)f) continue;
            seen[row[p]] = (long)f;
            kp_compare_class *c = &r->v[row[p]];
            (*(k ? &c->findings_b : &c->findings_a))++;
        }
    }
    kp_free(seen);
    kp_free(times);
    kp_free(row);
    return st;
}

static int64_t top_value(const kp_compare_class *c) {
    int64_t v = INT64_MIN;
    if (c->has_a) v = c->value_a;
    if (c->has_b && c->value_b > v) v = c->value_b;
    return v;
}

/* highest value first, then name; the pods without a class last */
static int cmp_class(const void *a, const void *b) {
    const kp_compare_class *x = a, *y = b;
    if (!x->name[0] != !y->name[0]) return x->name[0] ? -1 : 1;
    int64_t vx = top_value(x), vy = top_value(y);
    if (vx != vy) return vx > vy ? -1 : 1;
    return strcmp(x->name, y->name);
}

kp_status kp_insight_compare_by_class(kp_insight_compare *cmp, const kp_sim *a,
                                      const kp_insight *ia, const kp_sim *b, const kp_insight *ib,
                                      kp_error *err) {
    class_rows r = {NULL, 0, 0};
    kp_status st = side_by_class(&r, 0, a, ia);
    if (st == KP_OK) st = side_by_class(&r, 1, b, ib);
    if (st != KP_OK) {
        kp_free(r.v);
        return kp_error_set(err, st, "insight: out of memory");
    }
    for (size_t i = 0; i < r.n; i++) {
        kp_compare_class *c = &r.v[i];
        if (!c->name[0]) continue;
        kp_index pa = kp_cluster_find_priority_class(kp_sim_cluster(a), c->name);
        kp_index pb = kp_cluster_find_priority_class(kp_sim_cluster(b), c->name);
        c->has_a = pa >= 0;
        c->has_b = pb >= 0;
        c->value_a = kp_cluster_priority_class_value(kp_sim_cluster(a), pa);
        c->value_b = kp_cluster_priority_class_value(kp_sim_cluster(b), pb);
    }
    if (r.n > 1) qsort(r.v, r.n, sizeof *r.v, cmp_class);
    kp_free((void *)cmp->c.classes);
    cmp->c.classes = r.v;
    cmp->c.n_classes = r.n;
    return KP_OK;
}
