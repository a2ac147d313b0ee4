/* PodTopologySpread default constraints: the configured (or system) constraints and
 * helper.DefaultSelector (pkg/scheduler/framework/plugins/helper/spread.go), built from the
 * Services, ReplicationControllers, ReplicaSets and StatefulSets of the cluster model.
 *
 * DefaultSelector(pod), as upstream:
 *   1. every Service of the pod's namespace whose spec.selector is not nil and matches the pod's
 *      labels contributes its selector map; the maps are merged into one label set
 *      (labels.Merge: a later key replaces an earlier one — services that all match the pod
 *      cannot disagree);
 *   2. only the pod's controller owner reference (metav1.GetControllerOfNoCopy: the first with
 *      controller: true) is considered, and only when its apiVersion parses to v1 /
 *      apps/v1 and its kind is ReplicationController / ReplicaSet / StatefulSet; the object is
 *      looked up by name in the pod's namespace (a missing one contributes nothing);
 *   3. a ReplicationController's selector map is merged into the label set (it may override a
 *      service's value); a ReplicaSet's / StatefulSet's LabelSelector contributes its
 *      requirements (matchLabels as `key = value`, then matchExpressions), ANDed with the label
 *      set's (selector.Add — a conflicting value makes the selector match nothing, it does not
 *      replace the value); a nil LabelSelector (labels.Nothing) contributes nothing.
 * The result is cached per pod: labels, selectors and owners never change during a run. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "core/sched_config.h"
#include "core/selector.h"
#include "core/workload.h"
#include "sched/plugins/pod_topology_spread_default.h"

struct kp_spread_defaults {
    bool system; /* defaultingType System */
    uint8_t n; /* default constraints (selector unset; the pod's DefaultSelector applies) */
    kp_spread c[KP_CFG_MAX_DEFAULT_SPREAD];
    kp_pairmap by_name[KP_WL_KINDS]; /* kp__pair(ns, name) -> workload index + 1 (not Services) */
    kp_pairmap svc_ns; /* namespace -> first position in svc + 1 */
    uint32_t *svc; /* Service workload indices, grouped by namespace, load order */
    uint32_t n_svc;
    kp_label_selector *sel; /* per pod DefaultSelector, valid when state == DS_SET */
    uint8_t *state;
    kp_str s_rc, s_rs, s_sts, s_v1, s_apps_v1;
};

enum { DS_UNKNOWN = 0, DS_EMPTY, DS_SET };

static int svc_cmp_ns(const kp_cluster *cl, uint32_t a, uint32_t b) {
    kp_str x = cl->workloads[a].ns, y = cl->workloads[b].ns;
    if (x != y) return x < y ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* insertion sort by (namespace, load order): the number of Services is small next to pods */
static void sort_services(const kp_cluster *cl, uint32_t *v, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = v[i], j = i;
        while (j > 0 && svc_cmp_ns(cl, v[j - 1], x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static kp_str find(const kp_cluster *cl, const char *s) {
    return kp__intern_find(&cl->strs, s, strlen(s));
}

/* The constraints and the names' ids (init and grow). */
static void resolve(kp_sched *s, kp_spread_defaults *d) {
    const kp_cluster *cl = s->cl;
    d->system = s->cfg.spread_system_defaulting;
    if (d->system) {
        /* systemDefaultConstraints (plugin.go): hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway
         */
        d->n = 2;
        d->c[0].max_skew = 3;
        d->c[0].topology_key = cl->s_hostname_key;
        d->c[1].max_skew = 5;
        d->c[1].topology_key = find(cl, "topology.kubernetes.io/zone");
        d->c[0].when = d->c[1].when = KP_WHEN_SCHEDULEANYWAY;
    } else {
        for (uint8_t i = 0; i < s->cfg.n_default_spread; i++) {
            const kp_cfg_spread *cs = &s->cfg.default_spread[i];
            d->c[i].max_skew = cs->max_skew;
            d->c[i].topology_key = find(cl, cs->topology_key); /* UINT32_MAX: no node has it */
            d->c[i].when = cs->schedule_anyway ? KP_WHEN_SCHEDULEANYWAY : KP_WHEN_DONOTSCHEDULE;
        }
        d->n = s->cfg.n_default_spread;
    }
    d->s_rc = find(cl, "ReplicationController");
    d->s_rs = find(cl, "ReplicaSet");
    d->s_sts = find(cl, "StatefulSet");
    d->s_v1 = find(cl, "v1");
    d->s_apps_v1 = find(cl, "apps/v1");
}

kp_status kp__spread_defaults_grow(kp_sched *s, uint32_t old_n) {
    kp_spread_defaults *d = s->def;
    const kp_cluster *cl = s->cl;
    if (!d) return KP_OK;
    resolve(s, d);
    if (!d->sel || cl->n_pods <= old_n) return KP_OK; /* no per-pod cache (no workloads) */
    kp_label_selector *sel = kp__realloc(d->sel, (cl->n_pods + 1) * sizeof *sel);
    if (!sel) return KP_ENOMEM;
    d->sel = sel;
    uint8_t *state = kp__realloc(d->state, cl->n_pods + 1);
    if (!state) return KP_ENOMEM;
    d->state = state;
    memset(sel + old_n + 1, 0, (cl->n_pods - old_n) * sizeof *sel);
    memset(state + old_n + 1, 0, cl->n_pods - old_n);
    return KP_OK;
}

kp_status kp__spread_defaults_init(kp_sched *s) {
    const kp_cluster *cl = s->cl;
    kp_spread_defaults *d = kp__calloc(1, sizeof *d);
    if (!d) return KP_ENOMEM;
    s->def = d;
    for (int k = 0; k < KP_WL_KINDS; k++) kp__pairmap_init(&d->by_name[k], true);
    kp__pairmap_init(&d->svc_ns, true);
    resolve(s, d);
    if (d->n == 0 || cl->n_workloads == 0) return KP_OK; /* DefaultSelector is always empty */
    d->sel = kp__calloc(cl->n_pods + 1, sizeof *d->sel);
    d->state = kp__calloc(cl->n_pods + 1, 1);
    d->svc = kp__malloc((cl->n_workloads + 1) * sizeof *d->svc);
    if (!d->sel || !d->state || !d->svc) return KP_ENOMEM;
    for (uint32_t i = 0; i < cl->n_workloads; i++) {
        const kp_workload *w = &cl->workloads[i];
        if (w->deleted) continue; /* gone from the API: no selector */
        if (w->kind == KP_WL_SERVICE) d->svc[d->n_svc++] = i;
        else if (kp__pairmap_add(&d->by_name[w->kind], kp__pair(w->ns, w->name), (int64_t)i + 1) !=
                 KP_OK)
            return KP_ENOMEM;
    }
    sort_services(cl, d->svc, d->n_svc);
    for (uint32_t i = 0; i < d->n_svc; i++) {
        kp_str ns = cl->workloads[d->svc[i]].ns;
        if (!kp__pairmap_has(&d->svc_ns, ns) &&
            kp__pairmap_add(&d->svc_ns, ns, (int64_t)i + 1) != KP_OK)
            return KP_ENOMEM;
    }
    return KP_OK;
}

void kp__spread_defaults_free(kp_sched *s) {
    kp_spread_defaults *d = s->def;
    if (!d) return;
    if (d->state)
        for (uint32_t i = 0; i < s->n_pods_seen; i++) /* built for these pods */
            if (d->state[i] == DS_SET) {
                kp__free(d->sel[i].match_labels.items);
                kp__free(d->sel[i].exprs);
            }
    for (int k = 0; k < KP_WL_KINDS; k++) kp__pairmap_fini(&d->by_name[k]);
    kp__pairmap_fini(&d->svc_ns);
    kp__free(d->sel);
    kp__free(d->state);
    kp__free(d->svc);
    kp__free(d);
    s->def = NULL;
}

uint8_t kp__spread_defaults_get(const kp_sched *s, const kp_spread **out) {
    *out = s->def ? s->def->c : NULL;
    return s->def ? s->def->n : 0;
}

bool kp__spread_defaults_system(const kp_sched *s) { return s->def && s->def->system; }

/* ---- the label set: labels.Merge into a small growable array ---- */
typedef struct {
    kp_label *v;
    uint32_t n, cap;
} labelset;

static bool set_put(labelset *ls, kp_str key, kp_str val) {
    for (uint32_t i = 0; i < ls->n; i++)
        if (ls->v[i].key == key) {
            ls->v[i].val = val;
            return true;
        }
    if (!kp__grow32((void **)&ls->v, &ls->cap, (size_t)ls->n + 1, sizeof *ls->v, 8)) return false;
    ls->v[ls->n].key = key;
    ls->v[ls->n++].val = val;
    return true;
}

static bool set_merge(labelset *ls, const kp_labels *m) {
    for (uint32_t i = 0; i < m->n; i++)
        if (!set_put(ls, m->items[i].key, m->items[i].val)) return false;
    return true;
}

/* a Service selector (labels.Set(...).AsSelectorPreValidated) against the pod's labels */
static bool map_matches(const kp_labels *m, const kp_labels *l) {
    for (uint32_t i = 0; i < m->n; i++) {
        kp_str v;
        if (!kp__labels_get(l, m->items[i].key, &v) || v != m->items[i].val) return false;
    }
    return true;
}

static int label_cmp(const void *a, const void *b) {
    const kp_label *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* schema.ParseGroupVersion(apiVersion) == (group, "v1"): "v1" and "/v1" are the core group */
static bool is_v1_of(const kp_cluster *cl, kp_str api, const char *group) {
    if (!api) return false;
    const char *a = kp__s(cl, api), *slash = strchr(a, '/');
    size_t gl = strlen(group);
    if (!slash) return gl == 0 && strcmp(a, "v1") == 0;
    if (strchr(slash + 1, '/')) return false; /* unparsable: upstream returns the selector so far */
    return (size_t)(slash - a) == gl && memcmp(a, group, gl) == 0 && strcmp(slash + 1, "v1") == 0;
}

static const kp_workload *lookup(const kp_sched *s, kp_workload_kind k, kp_str ns, kp_str name) {
    int64_t i = kp__pairmap_get(&s->def->by_name[k], kp__pair(ns, name));
    return i ? &s->cl->workloads[i - 1] : NULL;
}

/* mirrors helper.DefaultSelector; see the file comment */
static kp_status build(kp_sched *s, uint32_t pod) {
    kp_spread_defaults *d = s->def;
    const kp_cluster *cl = s->cl;
    const kp_pod *p = &cl->pods[pod];
    labelset ls = {NULL, 0, 0};
    const kp_label_selector *add = NULL; /* ReplicaSet / StatefulSet requirements */
    int64_t first = kp__pairmap_get(&d->svc_ns, p->ns);
    for (uint32_t i = first ? (uint32_t)(first - 1) : d->n_svc; i < d->n_svc; i++) {
        const kp_workload *w = &cl->workloads[d->svc[i]];
        if (w->ns != p->ns) break;
        if (!w->has_map || !map_matches(&w->map, &p->labels)) continue; /* nil selects nothing */
        if (!set_merge(&ls, &w->map)) goto nomem;
    }
    const kp_owner_ref *owner = NULL;
    for (uint16_t i = 0; i < p->n_owners && !owner; i++)
        if (p->owners[i].controller) owner = &p->owners[i];
    if (owner && owner->kind == d->s_rc && is_v1_of(cl, owner->api_version, "")) {
        const kp_workload *rc = lookup(s, KP_WL_RC, p->ns, owner->name);
        if (rc && !set_merge(&ls, &rc->map)) goto nomem;
    } else if (owner && (owner->kind == d->s_rs || owner->kind == d->s_sts) &&
               is_v1_of(cl, owner->api_version, "apps")) {
        const kp_workload *w =
            lookup(s, owner->kind == d->s_rs ? KP_WL_RS : KP_WL_STS, p->ns, owner->name);
        if (w && w->sel.is_set) add = &w->sel;
    }
    uint32_t n_req = add ? add->match_labels.n + add->n_exprs : 0;
    if (ls.n == 0 && n_req == 0) {
        kp__free(ls.v);
        d->state[pod] = DS_EMPTY;
        return KP_OK;
    }
    kp_label_selector *sel = &d->sel[pod];
    memset(sel, 0, sizeof *sel);
    sel->is_set = true;
    if (ls.n) qsort(ls.v, ls.n, sizeof *ls.v, label_cmp);
    sel->match_labels.n = ls.n;
    sel->match_labels.items = ls.v;
    if (n_req) {
        if (n_req > UINT16_MAX) n_req = UINT16_MAX;
        sel->exprs = kp__malloc(n_req * sizeof *sel->exprs);
        if (!sel->exprs) goto nomem;
        uint16_t k = 0;
        for (uint32_t i = 0; i < add->match_labels.n && k < n_req; i++, k++) {
            const kp_label *l = &add->match_labels.items[i];
            sel->exprs[k] = (kp_selreq){l->key, KP_OP_IN, 1, (kp_str *)&l->val};
        }
        for (uint16_t i = 0; i < add->n_exprs && k < n_req; i++) sel->exprs[k++] = add->exprs[i];
        sel->n_exprs = k;
    }
    d->state[pod] = DS_SET;
    return KP_OK;
nomem:
    kp__free(ls.v);
    return KP_ENOMEM;
}

kp_status kp__default_selector(kp_sched *s, uint32_t pod, const kp_label_selector **out) {
    kp_spread_defaults *d = s->def;
    *out = NULL;
    if (!d || !d->state) return KP_OK;
    if (d->state[pod] == DS_UNKNOWN) {
        kp_status st = build(s, pod);
        if (st != KP_OK) return st;
    }
    if (d->state[pod] == DS_SET) *out = &d->sel[pod];
    return KP_OK;
}
