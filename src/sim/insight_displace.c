/* Loops and cascades (docs/simulate.md "Findings"): both follow the replacements the
 * controllers made (kp_sim_pod.replaces) of the pods that were displaced (their first Preempted
 * or Evicted event). A loop is a replica displaced and recreated again and again: a chain
 * pod -> replacement -> replacement ... of at least loop_min_turns displaced pods. A cascade is a
 * tree of who displaced whom: a pod displaced by the replacement of a displaced pod hangs under
 * it. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/insight_internal.h"

static const kp_sim_event *ev_of(const ins_run *r, long i) {
    return i < 0 ? NULL : kp_sim_event_get(r->sim, (size_t)i);
}

static bool preempted(const ins_run *r, kp_index pod) {
    const kp_sim_event *e = ev_of(r, r->displaced[pod]);
    return e && strcmp(e->reason, "Preempted") == 0;
}

/* the decision behind a displacement: the preemptor's FailedScheduling (PostFilter nominated),
 * else the eviction itself (the kubelet's or the drain's) */
static long decision_of(const ins_run *r, kp_index pod) {
    const kp_sim_event *e = ev_of(r, r->displaced[pod]);
    if (e && strcmp(e->reason, "Preempted") == 0 && e->cause >= 0) return e->cause;
    return r->displaced[pod];
}

/* displaced pods in the chain that starts at head, through replaced_by */
static uint32_t chain_len(const ins_run *r, kp_index head) {
    uint32_t n = 0;
    for (kp_index q = head; q >= 0 && r->displaced[q] >= 0; q = r->replaced_by[q]) n++;
    return n;
}

static bool chain_head(const ins_run *r, kp_index q) {
    if (r->displaced[q] < 0) return false;
    kp_index prev = kp_sim_pod_get(r->sim, (size_t)q)->replaces;
    return prev < 0 || r->displaced[prev] < 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* one turn: the decision, the displacement, the replacement's creation and binding */
static kp_status add_turn(const ins_run *r, kp_finding *f, kp_index q, uint32_t turn) {
    const kp_sim_event *e = ev_of(r, r->displaced[q]);
    kp_index repl = r->replaced_by[q];
    kp_status st = KP_OK;
    if ((st = kp__ins_event(f, decision_of(r, q))) != KP_OK ||
        (st = kp__ins_event(f, r->displaced[q])) != KP_OK || (st = kp__ins_pod(f, q)) != KP_OK ||
        (st = kp__ins_node(f, e->node)) != KP_OK)
        return st;
    if (repl >= 0 && ((st = kp__ins_event(f, r->created[repl])) != KP_OK ||
                      (st = kp__ins_event(f, r->scheduled[repl])) != KP_OK ||
                      (st = kp__ins_pod(f, repl)) != KP_OK))
        return st;
    char tb[40], pb[600], bb[600];
    kp__ins_dur(e->t_ms, tb, sizeof tb);
    kp__ins_pod_ref(r, q, pb, sizeof pb);
    if (preempted(r, q)) {
        kp_index by = kp_sim_pod_get(r->sim, (size_t)q)->preempted_by;
        if (by >= 0)
            return kp__ins_detail(f, "turn %u at %s: %s preempted on %s by %s (priority %d)", turn,
                                  tb, pb, kp_cluster_node_name(r->cl, e->node),
                                  kp__ins_pod_ref(r, by, bb, sizeof bb),
                                  (int)kp_cluster_pod_priority(r->cl, by));
    }
    const char *nn = e->node >= 0 ? kp_cluster_node_name(r->cl, e->node) : "?";
    if (strcmp(e->reason, "Evicted") == 0)
        return kp__ins_detail(f, "turn %u at %s: %s evicted from %s: %s", turn, tb, pb, nn,
                              e->message);
    if (strcmp(e->reason, "Preempting") == 0)
        return kp__ins_detail(f, "turn %u at %s: %s preempted by the kubelet of %s: %s", turn, tb,
                              pb, nn, e->message);
    return kp__ins_detail(f, "turn %u at %s: %s rejected by the kubelet of %s (%s): %s", turn, tb,
                          pb, nn, e->reason, e->message);
}

/* "preempt", "evict", "reject" or their mix ("preempt/evict", ...) */
static const char *loop_kind(bool pre, bool evict, bool reject) {
    static const char *const k[8] = {
        "evict",   "reject",         "evict",         "evict/reject",
        "preempt", "preempt/reject", "preempt/evict", "preempt/evict/reject"};
    return k[(pre ? 4 : 0) | (evict ? 2 : 0) | (reject ? 1 : 0)];
}

static kp_status one_loop(const ins_run *r, kp_insight *in, kp_index wl, const bool *head_ok,
                          int64_t *gaps) {
    kp_workload_info wi;
    if (kp_cluster_workload_info(r->cl, wl, &wi) != KP_OK) return KP_OK;
    kp_finding *f = kp__ins_add(in, KP_FINDING_LOOP, KP_SEVERITY_CRITICAL, wi.kind, wi.ns, wi.name);
    if (!f) return KP_ENOMEM;
    size_t n_gaps = 0;
    uint32_t turns = 0;
    bool any_pre = false, any_evict = false, any_reject = false;
    f->first_ms = -1;
    for (size_t p = 0; p < r->n_pods; p++) {
        if (!head_ok[p] || kp_cluster_pod_workload(r->cl, (kp_index)p) != wl) continue;
        int64_t prev = -1;
        for (kp_index q = (kp_index)p; q >= 0 && r->displaced[q] >= 0; q = r->replaced_by[q]) {
            int64_t t = ev_of(r, r->displaced[q])->t_ms;
            kp_status st = add_turn(r, f, q, ++turns);
            if (st != KP_OK) return st;
            const char *why = ev_of(r, r->displaced[q])->reason;
            if (preempted(r, q) || strcmp(why, "Preempting") == 0) any_pre = true;
            else if (strcmp(why, "Evicted") == 0) any_evict = true;
            else any_reject = true;
            int64_t t0 = ev_of(r, decision_of(r, q))->t_ms;
            if (f->first_ms < 0 || t0 < f->first_ms) f->first_ms = t0;
            if (t > f->last_ms) f->last_ms = t;
            if (prev >= 0) gaps[n_gaps++] = t - prev;
            prev = t;
        }
    }
    f->count = turns;
    if (n_gaps) {
        qsort(gaps, n_gaps, sizeof *gaps, cmp_i64);
        f->period_ms = gaps[(n_gaps - 1) / 2]; /* the lower median */
    }
    kp__ins_sort_links(f);
    char per[40], pods[2048], nodes[2048];
    kp__ins_dur(f->period_ms, per, sizeof per);
    return kp__ins_summary(
        f, "%s %s/%s: %u turns of %s -> recreate every %s (pods %s; nodes %s)", wi.kind, wi.ns,
        wi.name, turns, loop_kind(any_pre, any_evict, any_reject), per,
        kp__ins_pod_list(r, f, pods, sizeof pods), kp__ins_node_list(r, f, nodes, sizeof nodes));
}

kp_status kp__ins_loops(const ins_run *r, kp_insight *in) {
    size_t nw = kp_cluster_workload_count(r->cl);
    bool *head_ok = kp_calloc(r->n_pods ? r->n_pods : 1, sizeof *head_ok);
    bool *looping = kp_calloc(nw ? nw : 1, sizeof *looping);
    int64_t *gaps = kp_malloc((r->n_pods ? r->n_pods : 1) * sizeof *gaps);
    kp_status st = head_ok && looping && gaps ? KP_OK : KP_ENOMEM;
    for (size_t p = 0; st == KP_OK && p < r->n_pods; p++) {
        kp_index wl = kp_cluster_pod_workload(r->cl, (kp_index)p);
        if (wl < 0 || (size_t)wl >= nw || !chain_head(r, (kp_index)p)) continue;
        if (chain_len(r, (kp_index)p) >= r->o.loop_min_turns) head_ok[p] = looping[wl] = true;
    }
    for (size_t w = 0; st == KP_OK && w < nw; w++)
        if (looping[w]) st = one_loop(r, in, (kp_index)w, head_ok, gaps);
    kp_free(head_ok);
    kp_free(looping);
    kp_free(gaps);
    return st;
}

/* ---------------------------------------------------------------- cascades */

/* The displaced pod whose replacement displaced pod q, -1 */
static kp_index parent_of(const ins_run *r, kp_index q) {
    if (!preempted(r, q)) return -1;
    kp_index by = kp_sim_pod_get(r->sim, (size_t)q)->preempted_by;
    if (by < 0) return -1;
    kp_index x = kp_sim_pod_get(r->sim, (size_t)by)->replaces;
    return x >= 0 && r->displaced[x] >= 0 ? x : -1;
}

typedef struct {
    kp_index *parent; /* per pod */
    size_t *first, *kids; /* children of pod p: kids[first[p] .. first[p+1]), event order */
} ins_forest;

static kp_status one_cascade(const ins_run *r, kp_insight *in, const ins_forest *fo, kp_index root,
                             kp_index *queue, int32_t *slot) {
    /* breadth first: queue[] the pods, slot[] their link index */
    size_t head = 0, tail = 0;
    uint32_t depth = 0;
    queue[tail++] = root;
    kp_finding_link *links = kp_malloc(sizeof *links);
    size_t n_links = 0, cap = 1;
    if (!links) return KP_ENOMEM;
    while (head < tail) {
        kp_index q = queue[head];
        int32_t par = fo->parent[q] >= 0 ? slot[fo->parent[q]] : -1;
        uint32_t d = par >= 0 ? links[par].depth + 1 : 0;
        void *nl = links;
        if (!kp__grow(&nl, &cap, n_links + 1, sizeof *links, 1)) {
            kp_free(links);
            return KP_ENOMEM;
        }
        links = nl;
        links[n_links] = (kp_finding_link){r->displaced[q], q, par, d};
        slot[q] = (int32_t)n_links++;
        if (d > depth) depth = d;
        for (size_t k = fo->first[q]; k < fo->first[q + 1]; k++)
            queue[tail++] = (kp_index)fo->kids[k];
        head++;
    }
    kp_status st = KP_OK;
    if (depth >= r->o.cascade_min_depth) {
        kp_finding *f =
            kp__ins_add(in, KP_FINDING_CASCADE, KP_SEVERITY_WARNING, "Pod",
                        kp_cluster_pod_namespace(r->cl, root), kp_cluster_pod_name(r->cl, root));
        st = f ? KP_OK : KP_ENOMEM;
        if (f) {
            f->depth = depth;
            f->count = (uint32_t)n_links;
            f->first_ms = ev_of(r, decision_of(r, root))->t_ms;
            st = kp__ins_event(f, decision_of(r, root));
        }
        for (size_t i = 0; st == KP_OK && i < n_links; i++) {
            const kp_sim_event *e = ev_of(r, links[i].event);
            kp_index q = links[i].pod;
            if (e->t_ms > f->last_ms) f->last_ms = e->t_ms;
            if ((st = kp__ins_link(f, &links[i])) == KP_OK &&
                (st = kp__ins_event(f, links[i].event)) == KP_OK &&
                (st = kp__ins_pod(f, q)) == KP_OK)
                st = kp__ins_node(f, e->node);
            kp_index by = kp_sim_pod_get(r->sim, (size_t)q)->preempted_by;
            if (st == KP_OK && by >= 0 && (st = kp__ins_pod(f, by)) == KP_OK &&
                links[i].parent >= 0) /* a replacement: its creation links the levels */
                st = kp__ins_event(f, r->created[by]);
            char tb[40], pb[600], bb[600];
            if (st == KP_OK)
                st = kp__ins_detail(f, "%*s%s %s on %s at %s%s%s", (int)(2 * links[i].depth), "",
                                    kp__ins_pod_ref(r, q, pb, sizeof pb),
                                    preempted(r, q) ? "preempted" : "evicted",
                                    e->node >= 0 ? kp_cluster_node_name(r->cl, e->node) : "?",
                                    kp__ins_dur(e->t_ms, tb, sizeof tb), by >= 0 ? " by " : "",
                                    by >= 0 ? kp__ins_pod_ref(r, by, bb, sizeof bb) : "");
        }
        if (st == KP_OK) {
            char tb[40], pb[600];
            st = kp__ins_summary(f,
                                 "Pod %s: %s at %s led to %u displaced pod(s) through "
                                 "replacements, %u level(s) deep",
                                 kp__ins_pod_ref(r, root, pb, sizeof pb),
                                 preempted(r, root) ? "preempted" : "evicted",
                                 kp__ins_dur(ev_of(r, r->displaced[root])->t_ms, tb, sizeof tb),
                                 f->count, depth);
        }
    }
    kp_free(links);
    return st;
}

kp_status kp__ins_cascades(const ins_run *r, kp_insight *in) {
    size_t n = r->n_pods;
    ins_forest fo;
    fo.parent = kp_malloc((n ? n : 1) * sizeof *fo.parent);
    fo.first = kp_calloc(n + 2, sizeof *fo.first);
    fo.kids = kp_malloc((n ? n : 1) * sizeof *fo.kids);
    kp_index *queue = kp_malloc((n ? n : 1) * sizeof *queue);
    int32_t *slot = kp_malloc((n ? n : 1) * sizeof *slot);
    kp_status st = fo.parent && fo.first && fo.kids && queue && slot ? KP_OK : KP_ENOMEM;
    if (st == KP_OK) {
        for (size_t p = 0; p < n; p++) {
            fo.parent[p] = parent_of(r, (kp_index)p);
            if (fo.parent[p] >= 0) fo.first[fo.parent[p] + 2]++;
        }
        for (size_t p = 0; p < n; p++) fo.first[p + 2] += fo.first[p + 1];
        /* children in the order of their displacement events */
        for (size_t i = 0; i < r->n_events; i++) {
            const kp_sim_event *e = kp_sim_event_get(r->sim, i);
            if (e->pod < 0 || (size_t)e->pod >= n || r->displaced[e->pod] != (long)i) continue;
            kp_index par = fo.parent[e->pod];
            if (par >= 0) fo.kids[fo.first[par + 1]++] = (size_t)e->pod;
        }
        for (size_t p = 0; st == KP_OK && p < n; p++)
            if (r->displaced[p] >= 0 && fo.parent[p] < 0 && fo.first[p + 1] > fo.first[p])
                st = one_cascade(r, in, &fo, (kp_index)p, queue, slot);
    }
    kp_free(fo.parent);
    kp_free(fo.first);
    kp_free(fo.kids);
    kp_free(queue);
    kp_free(slot);
    return st;
}
