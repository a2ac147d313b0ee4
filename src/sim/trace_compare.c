/* A simulated replay compared with the recorded trace (include/kprio/trace.h, docs/live.md
 * "Replaying a trace"): each side's decisions per pod and kind (the first of each), the pods
 * paired by name or, for names generated under a controller, by controller and rank. On the
 * public API only. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "kprio/cluster.h"
#include "kprio/sim.h"
#include "kprio/trace.h"

struct kp_trace_comparison {
    kp_trace_item *items;
    size_t n;
    uint64_t total[KP_TRACE_N_DECISIONS + 1], agree[KP_TRACE_N_DECISIONS + 1];
    uint64_t refused, unmapped;
};

/* one decision of one side, with the pod's key */
typedef struct {
    kp_trace_pod_key key;
    kp_trace_decision_kind kind;
    int64_t t_ms;
    const char *node, *message, *pod_name;
} side;

static int key_cmp(const kp_trace_pod_key *a, const kp_trace_pod_key *b) {
    int c = strcmp(a->ns, b->ns);
    if (!c) c = strcmp(a->owner_kind, b->owner_kind);
    if (!c)
        c = strcmp(a->owner_kind[0] ? a->owner_name : a->name,
                   b->owner_kind[0] ? b->owner_name : b->name);
    if (!c) c = a->rank < b->rank ? -1 : a->rank > b->rank;
    return c;
}

static int side_cmp(const void *pa, const void *pb) {
    const side *a = pa, *b = pb;
    int c = (int)a->kind - (int)b->kind;
    return c ? c : key_cmp(&a->key, &b->key);
}

static int64_t item_t(const kp_trace_item *i) {
    if (!i->recorded) return i->sim_t_ms;
    if (!i->simulated) return i->rec_t_ms;
    return i->rec_t_ms < i->sim_t_ms ? i->rec_t_ms : i->sim_t_ms;
}

static int item_cmp(const void *pa, const void *pb) {
    const kp_trace_item *a = pa, *b = pb;
    int64_t ta = item_t(a), tb = item_t(b);
    if (ta != tb) return ta < tb ? -1 : 1;
    int c = (int)a->kind - (int)b->kind;
    if (!c) c = strcmp(a->ns, b->ns);
    if (!c) c = strcmp(a->name, b->name);
    return c;
}

/* The generated-name controllers: their simulated pods are paired by rank, as the trace's. */
static bool generates_names(const char *kind) {
    return strcmp(kind, "ReplicaSet") == 0 || strcmp(kind, "ReplicationController") == 0 ||
           strcmp(kind, "Job") == 0 || strcmp(kind, "DaemonSet") == 0;
}

typedef struct {
    kp_trace_pod_key key; /* rank 0 until ranked */
    size_t pod; /* timeline index */
} skey;

static int skey_cmp(const void *pa, const void *pb) {
    const skey *a = pa, *b = pb;
    int c = key_cmp(&a->key, &b->key);
    return c ? c : (a->pod < b->pod ? -1 : a->pod > b->pod);
}

/* Every simulated pod's key: by name, or by controller for the pods a name-generating
 * controller created in the run; ranks in creation (index) order. keys[i]: timeline i's. */
static kp_status sim_keys(const kp_sim *sim, kp_trace_pod_key *keys, size_t n) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    skey *k = kp__calloc(n ? n : 1, sizeof *k);
    if (!k) return KP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const kp_sim_pod *tl = kp_sim_pod_get(sim, i);
        kp_pod_info pi;
        memset(&pi, 0, sizeof pi);
        kp_cluster_pod_info(cl, tl->pod, &pi);
        k[i].pod = i;
        k[i].key.ns = pi.ns ? pi.ns : "";
        k[i].key.name = pi.name ? pi.name : "";
        k[i].key.owner_kind = k[i].key.owner_name = "";
        if (tl->created_ms >= 0 && pi.owner_kind && generates_names(pi.owner_kind)) {
            k[i].key.owner_kind = pi.owner_kind;
            k[i].key.owner_name = pi.owner_name;
        }
    }
    if (n) qsort(k, n, sizeof *k, skey_cmp);
    /* equal keys are consecutive, in index order: rank them */
    for (size_t i = 0, j = 0; i < n; i = j) {
        kp_trace_pod_key b = k[i].key;
        b.rank = 0;
        uint32_t r = 0;
        for (j = i; j < n; j++) {
            kp_trace_pod_key c = k[j].key;
            c.rank = 0;
            if (key_cmp(&b, &c) != 0) break;
            keys[k[j].pod] = c;
            keys[k[j].pod].rank = r++;
        }
    }
    kp__free(k);
    return KP_OK;
}

/* The simulation's decisions: the first of each kind per pod. */
static kp_status sim_sides(const kp_sim *sim, side **out, size_t *n_out) {
    size_t np = kp_sim_pod_count(sim);
    const kp_cluster *cl = kp_sim_cluster(sim);
    kp_trace_pod_key *keys = kp__calloc(np ? np : 1, sizeof *keys);
    /* per pod index (not timeline): which kinds were seen */
    size_t n_idx = kp_cluster_pod_count(cl);
    size_t *tl_of = kp__malloc((n_idx ? n_idx : 1) * sizeof *tl_of);
    uint8_t *seen = kp__calloc(n_idx ? n_idx : 1, 1);
    side *s = NULL;
    size_t n = 0, cap = 0;
    kp_status st = keys && tl_of && seen ? sim_keys(sim, keys, np) : KP_ENOMEM;
    for (size_t i = 0; st == KP_OK && i < n_idx; i++) tl_of[i] = SIZE_MAX;
    for (size_t i = 0; st == KP_OK && i < np; i++) {
        kp_index p = kp_sim_pod_get(sim, i)->pod;
        if (p >= 0 && (size_t)p < n_idx) tl_of[p] = i;
    }
    for (size_t i = 0; st == KP_OK && i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (e->pod < 0 || (size_t)e->pod >= n_idx || tl_of[e->pod] == SIZE_MAX) continue;
        kp_trace_decision_kind k;
        if (strcmp(e->reason, "Scheduled") == 0) k = KP_TRACE_SCHEDULED;
        else if (strcmp(e->reason, "FailedScheduling") == 0) k = KP_TRACE_FAILED_SCHEDULING;
        else if (strcmp(e->reason, "Preempted") == 0) k = KP_TRACE_PREEMPTED;
        else if (strcmp(e->reason, "Evicted") == 0 && e->type == KP_SIM_WARNING)
            k = KP_TRACE_EVICTED;
        else continue;
        if (seen[e->pod] & (1u << k)) continue;
        seen[e->pod] |= (uint8_t)(1u << k);
        if (!kp__grow((void **)&s, &cap, n + 1, sizeof *s, 64)) {
            st = KP_ENOMEM;
            break;
        }
        side *d = &s[n++];
        d->key = keys[tl_of[e->pod]];
        d->kind = k;
        d->t_ms = e->t_ms;
        d->node = e->node >= 0 ? kp_cluster_node_name(cl, e->node) : "";
        d->message = e->message ? e->message : "";
        d->pod_name = kp_cluster_pod_name(cl, e->pod);
    }
    kp__free(keys);
    kp__free(tl_of);
    kp__free(seen);
    if (st != KP_OK) {
        kp__free(s);
        return st;
    }
    *out = s;
    *n_out = n;
    return KP_OK;
}

static void fill(kp_trace_item *it, const side *r, const side *s) {
    memset(it, 0, sizeof *it);
    const side *a = r ? r : s;
    if (!a) return; /* never: one side at least */
    it->kind = a->kind;
    it->ns = a->key.ns;
    it->name = r ? r->pod_name : s->pod_name;
    it->sim_name = s ? s->pod_name : "";
    it->recorded = r != NULL;
    it->simulated = s != NULL;
    it->rec_t_ms = r ? r->t_ms : -1;
    it->sim_t_ms = s ? s->t_ms : -1;
    it->rec_node = r ? r->node : "";
    it->sim_node = s ? s->node : "";
    it->rec_message = r ? r->message : "";
    it->sim_message = s ? s->message : "";
    it->agree = r && s && (a->kind != KP_TRACE_SCHEDULED || strcmp(r->node, s->node) == 0);
}

/* The replayed actions the run refused: its ActionFailed events name them ("actions[I]"),
 * one event per action played. */
static void count_refused(const kp_trace *tr, const kp_sim *sim, kp_trace_comparison *c) {
    const kp_scenario *sc = kp_trace_scenario(tr);
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (strcmp(e->reason, "ActionFailed") != 0 || strcmp(e->kind, "Scenario") != 0 ||
            strncmp(e->name, "actions[", 8) != 0)
            continue;
        c->refused++;
        char *end = NULL;
        unsigned long long ai = strtoull(e->name + 8, &end, 10);
        if (end && *end == ']' && ai < sc->n_actions) {
            const kp_scenario_action *a = &sc->actions[ai];
            if (a->type == KP_ACT_DELETE && a->owner.kind && a->owner.kind[0]) c->unmapped++;
        }
    }
}

kp_status kp_trace_compare(const kp_trace *tr, const kp_sim *sim, kp_trace_comparison **out,
                           kp_error *err) {
    *out = NULL;
    side *s = NULL, *r = NULL;
    size_t ns = 0, nr = kp_trace_decision_count(tr);
    kp_trace_comparison *c = kp__calloc(1, sizeof *c);
    kp_status st = c ? sim_sides(sim, &s, &ns) : KP_ENOMEM;
    if (st == KP_OK && !(r = kp__calloc(nr ? nr : 1, sizeof *r))) st = KP_ENOMEM;
    if (st == KP_OK && !(c->items = kp__calloc(nr + ns + 1, sizeof *c->items))) st = KP_ENOMEM;
    if (st != KP_OK) {
        kp__free(s);
        kp__free(r);
        kp_trace_comparison_free(c);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < nr; i++) {
        const kp_trace_decision *d = kp_trace_decision_get(tr, i);
        r[i].key = d->pod;
        r[i].kind = d->kind;
        r[i].t_ms = d->t_ms;
        r[i].node = d->node;
        r[i].message = d->message;
        r[i].pod_name = d->pod.name;
    }
    if (nr) qsort(r, nr, sizeof *r, side_cmp);
    if (ns) qsort(s, ns, sizeof *s, side_cmp);
    size_t i = 0, j = 0;
    while (i < nr || j < ns) {
        int cmp = i == nr ? 1 : j == ns ? -1 : side_cmp(&r[i], &s[j]);
        kp_trace_item *it = &c->items[c->n++];
        if (cmp == 0) fill(it, &r[i++], &s[j++]);
        else if (cmp < 0) fill(it, &r[i++], NULL);
        else fill(it, NULL, &s[j++]);
        c->total[it->kind]++;
        c->total[KP_TRACE_N_DECISIONS]++;
        if (it->agree) {
            c->agree[it->kind]++;
            c->agree[KP_TRACE_N_DECISIONS]++;
        }
    }
    if (c->n) qsort(c->items, c->n, sizeof *c->items, item_cmp);
    count_refused(tr, sim, c);
    kp__free(s);
    kp__free(r);
    *out = c;
    return KP_OK;
}

void kp_trace_comparison_free(kp_trace_comparison *c) {
    if (!c) return;
    kp__free(c->items);
    kp__free(c);
}

size_t kp_trace_item_count(const kp_trace_comparison *c) { return c->n; }
const kp_trace_item *kp_trace_item_get(const kp_trace_comparison *c, size_t i) {
    return i < c->n ? &c->items[i] : NULL;
}

void kp_trace_agreement(const kp_trace_comparison *c, kp_trace_decision_kind k, uint64_t *items,
                        uint64_t *agree) {
    size_t i = (unsigned)k <= KP_TRACE_N_DECISIONS ? (size_t)k : KP_TRACE_N_DECISIONS;
    *items = c->total[i];
    *agree = c->agree[i];
}

void kp_trace_refused(const kp_trace_comparison *c, uint64_t *refused, uint64_t *unmapped) {
    *refused = c->refused;
    *unmapped = c->unmapped;
}
