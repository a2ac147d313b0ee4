/* Workload expansion's view of the snapshot (expand_index.h), below every controller's pass at t =
 * 0: each non-terminal pod is keyed by its controller reference (kind, namespace, name), sorted,
 * and each workload counts its pods by binary search. A pod with no controller reference is an
 * orphan the first workload whose selector matches adopts (ClaimPods). A pod of a ReplicaSet also
 * counts for the Deployment that controls the ReplicaSet: the ReplicaSet's own owner reference when
 * it is in the input, otherwise the Deployment named by the ReplicaSet's name less its last "-hash"
 * (the deployment controller's naming). The pods made are pending copies of the template. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "ctrl/expand_index.h"
#include "kprio/cluster.h"

static int key_cmp(const void *a, const void *b) {
    const kp__expand_key *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->ns != y->ns) return x->ns < y->ns ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* First key of v[0..n) >= k (comparing kind, ns, name and, when with_node, node). */
uint32_t kp__expand_lower(const kp__expand_key *v, uint32_t n, const kp__expand_key *k,
                          bool with_node) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        kp__expand_key m = v[mid];
        if (!with_node) m.node = 0;
        if (key_cmp(&m, k) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Keys (pods) of one controller; with node != 0, of one controller on one node. */
uint32_t kp__expand_count_keys(const kp__expand *x, uint32_t kind, kp_str ns, kp_str name,
                               kp_str node) {
    kp__expand_key k = {kind, ns, name, node};
    uint32_t i = kp__expand_lower(x->keys, x->n_keys, &k, node != 0), n = 0;
    for (; i < x->n_keys && x->keys[i].kind == kind && x->keys[i].ns == ns &&
           x->keys[i].name == name && (!node || x->keys[i].node == node);
         i++)
        n++;
    return n;
}

/* The workload (kind, ns, name) of the input: its index or -1 (x->wl: the input's workloads as
 * keys whose node is the index, sorted). */
long kp__expand_find_workload(const kp__expand *x, kp_workload_kind kind, kp_str ns, kp_str name) {
    kp__expand_key k = {(uint32_t)kind, ns, name, 0};
    uint32_t i = kp__expand_lower(x->wl, x->n_wl, &k, false);
    if (i < x->n_wl && x->wl[i].kind == k.kind && x->wl[i].ns == ns && x->wl[i].name == name)
        return (long)x->wl[i].node;
    return -1;
}

kp_str kp__expand_intern(kp_cluster *cl, const char *s) {
    return kp__intern(&cl->strs, s, strlen(s));
}

static bool kind_of(const kp_cluster *cl, kp_str kind, kp_workload_kind *out) {
    for (int k = KP_WL_RC; k < KP_WL_KINDS; k++)
        if (strcmp(kp__s(cl, kind), kp__workload_kind_name((kp_workload_kind)k)) == 0) {
            *out = (kp_workload_kind)k;
            return true;
        }
    return false;
}

/* The keys of every non-terminal pod; orphans apart. A Job's terminating pods are keyed apart;
 * other controllers' terminating pods are not active (FilterActivePods) except a DaemonSet's
 * and a StatefulSet's, which hold their node or name until they are gone. */
kp_status kp__expand_index_pods(kp__expand *x) {
    kp_cluster *cl = x->cl;
    x->keys = kp__malloc(((size_t)cl->n_pods * 2 + 1) * sizeof *x->keys);
    x->orphans = kp__malloc(((size_t)cl->n_pods + 1) * sizeof *x->orphans);
    x->adopted = kp__calloc((size_t)cl->n_pods + 1, 1);
    x->wl = kp__malloc(((size_t)cl->n_workloads + 1) * sizeof *x->wl);
    if (!x->keys || !x->orphans || !x->adopted || !x->wl) return KP_ENOMEM;
    for (uint32_t i = 0; i < cl->n_workloads; i++)
        x->wl[x->n_wl++] = (kp__expand_key){(uint32_t)cl->workloads[i].kind, cl->workloads[i].ns,
                                            cl->workloads[i].name, i};
    qsort(x->wl, x->n_wl, sizeof *x->wl, key_cmp);
    x->scaled = kp__malloc(((size_t)cl->n_workloads + 1) * sizeof *x->scaled);
    if (!x->scaled) return KP_ENOMEM;
    for (uint32_t i = 0; i < cl->n_workloads; i++) {
        const kp_workload *w = &cl->workloads[i];
        if (w->kind == KP_WL_RS && w->replicas > 0 && w->owner_kind &&
            strcmp(kp__s(cl, w->owner_kind), "Deployment") == 0)
            x->scaled[x->n_scaled++] = (kp__expand_key){0, w->ns, w->owner_name, i};
    }
    qsort(x->scaled, x->n_scaled, sizeof *x->scaled, key_cmp);
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (p->creation_ts != KP_TIME_NONE && (x->now == KP_TIME_NONE || p->creation_ts > x->now))
            x->now = p->creation_ts;
        if (kp__pod_is_terminal(p)) continue;
        const kp_owner_ref *o = NULL;
        for (uint16_t k = 0; k < p->n_owners && !o; k++)
            if (p->owners[k].controller) o = &p->owners[k];
        kp_workload_kind kind;
        if (!o) {
            x->orphans[x->n_orphans++] = i;
            continue;
        }
        if (!kind_of(cl, o->kind, &kind)) continue;
        bool deleting = p->deletion_ts != KP_TIME_NONE;
        if (deleting && kind != KP_WL_DS && kind != KP_WL_STS && kind != KP_WL_JOB) continue;
        kp__expand_key k = {deleting && kind == KP_WL_JOB ? KP_WL_KINDS : (uint32_t)kind, p->ns,
                            o->name, kind == KP_WL_DS ? kp__pod_target_node(cl, p) : 0};
        x->keys[x->n_keys++] = k;
        if (kind != KP_WL_RS || deleting) continue;
        /* the Deployment controlling the ReplicaSet */
        long rs = kp__expand_find_workload(x, KP_WL_RS, p->ns, o->name);
        kp_str dep = 0;
        if (rs >= 0) {
            const kp_workload *w = &cl->workloads[rs];
            if (w->owner_kind && strcmp(kp__s(cl, w->owner_kind), "Deployment") == 0)
                dep = w->owner_name;
        } else {
            const char *n = kp__s(cl, o->name), *dash = strrchr(n, '-');
            kp_str d = dash ? kp__intern_find(&cl->strs, n, (size_t)(dash - n)) : UINT32_MAX;
            if (d != UINT32_MAX) dep = d;
        }
        if (dep) x->keys[x->n_keys++] = (kp__expand_key){KP_WL_DEPLOY, p->ns, dep, 0};
    }
    qsort(x->keys, x->n_keys, sizeof *x->keys, key_cmp);
    /* orphans by namespace, then pod order (adopt reads one namespace's range) */
    kp__expand_key *o = kp__malloc(((size_t)x->n_orphans + 1) * sizeof *o);
    if (!o) return KP_ENOMEM;
    for (uint32_t i = 0; i < x->n_orphans; i++)
        o[i] = (kp__expand_key){0, cl->pods[x->orphans[i]].ns, 0, x->orphans[i]};
    qsort(o, x->n_orphans, sizeof *o, key_cmp);
    for (uint32_t i = 0; i < x->n_orphans; i++) x->orphans[i] = o[i].node;
    kp__free(o);
    return KP_OK;
}

static bool label_of(const kp_cluster *cl, const kp_pod *p, const char *key) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key)), v;
    return k != UINT32_MAX && kp__labels_get(&p->labels, k, &v);
}

/* Orphans of ns the workload's selector matches, not adopted yet: adopted now (ClaimPods). With
 * node != 0 (a DaemonSet), only those on or targeting that node. */
uint32_t kp__expand_adopt(kp__expand *x, const kp_workload *w, kp_str node) {
    const kp_cluster *cl = x->cl;
    uint32_t n = 0, lo = 0, hi = x->n_orphans;
    while (lo < hi) { /* the first orphan of w's namespace */
        uint32_t mid = lo + (hi - lo) / 2;
        if (cl->pods[x->orphans[mid]].ns < w->ns) lo = mid + 1;
        else hi = mid;
    }
    for (uint32_t i = lo; i < x->n_orphans && cl->pods[x->orphans[i]].ns == w->ns; i++) {
        const kp_pod *p = &cl->pods[x->orphans[i]];
        if (x->adopted[i]) continue;
        if (p->deletion_ts != KP_TIME_NONE && w->kind != KP_WL_DS && w->kind != KP_WL_STS) continue;
        bool match;
        if (w->kind == KP_WL_RC) {
            match = w->has_map && w->map.n > 0;
            for (uint32_t k = 0; match && k < w->map.n; k++) {
                kp_str v;
                match =
                    kp__labels_get(&p->labels, w->map.items[k].key, &v) && v == w->map.items[k].val;
            }
        } else {
            bool empty = !w->sel.is_set || (w->sel.match_labels.n == 0 && w->sel.n_exprs == 0);
            match = !empty && kp__selector_matches(cl, &w->sel, &p->labels);
        }
        /* a Deployment's pods are adopted by its ReplicaSets, whose selectors add
         * pod-template-hash: an orphan without that label stays an orphan */
        if (match && w->kind == KP_WL_DEPLOY) match = label_of(cl, p, "pod-template-hash");
        if (!match || (node && kp__pod_target_node(cl, p) != node)) continue;
        x->adopted[i] = 1;
        n++;
    }
    return n;
}

/* The Deployment's current ReplicaSet: the one ReplicaSet of the input it controls that has
 * replicas (a settled Deployment scales only its new ReplicaSet, FindNewReplicaSet; during a
 * rollout there are several and kprio cannot tell which template matches: -1), with its
 * pod-template-hash in hash (its template's label, else its selector's, else its name's tail). */
long kp__expand_deployment_rs(const kp__expand *x, const kp_workload *d, char *hash, size_t cap) {
    const kp_cluster *cl = x->cl;
    kp__expand_key k = {0, d->ns, d->name, 0};
    uint32_t i = kp__expand_lower(x->scaled, x->n_scaled, &k, false);
    if (i >= x->n_scaled || x->scaled[i].ns != d->ns || x->scaled[i].name != d->name ||
        (i + 1 < x->n_scaled && x->scaled[i + 1].ns == d->ns && x->scaled[i + 1].name == d->name))
        return -1;
    const kp_workload *rs = &cl->workloads[x->scaled[i].node];
    kp_str key = kp__intern_find(&cl->strs, "pod-template-hash", 17), v;
    const char *name = kp__s(cl, rs->name), *dn = kp__s(cl, d->name);
    if (key != UINT32_MAX && rs->template && kp__labels_get(&rs->template->labels, key, &v))
        snprintf(hash, cap, "%s", kp__s(cl, v));
    else if (key != UINT32_MAX && kp__labels_get(&rs->sel.match_labels, key, &v))
        snprintf(hash, cap, "%s", kp__s(cl, v));
    else if (strncmp(name, dn, strlen(dn)) == 0 && name[strlen(dn)] == '-')
        snprintf(hash, cap, "%s", name + strlen(dn) + 1);
    else return -1;
    return (long)x->scaled[i].node;
}

/* ---- making pods ---- */

static kp_status fail(kp__expand *x, const kp_workload *w, kp_status code, const char *field,
                      const char *what) {
    kp_status st = kp_error_set(x->err, code, "%s %s/%s: %s: %s", kp__workload_kind_name(w->kind),
                                kp__s(x->cl, w->ns), kp__s(x->cl, w->name), field, what);
    if (x->err && w->origin.file)
        snprintf(x->err->source, sizeof x->err->source, "%s", w->origin.file);
    return st;
}

static const char *template_field(const kp_workload *w) {
    return w->kind == KP_WL_CRONJOB ? "spec.jobTemplate.spec.template" : "spec.template";
}

/* A workload about to make pods has a template whose PriorityClass exists (the pods would be
 * rejected by the Priority admission plugin: their controller's events say so). */
kp_status kp__expand_check_template(kp__expand *x, const kp_workload *w) {
    char what[400], field[96];
    if (!w->template)
        return fail(x, w, KP_EINVAL, template_field(w),
                    "Required value: expanding the workload needs its pod template");
    kp_str pc = w->template->priority_class;
    if (!pc || w->template->has_priority) return KP_OK;
    for (uint32_t i = 0; i < x->cl->n_classes; i++)
        if (x->cl->classes[i].name == pc && !x->cl->classes[i].deleted) return KP_OK;
    snprintf(field, sizeof field, "%s.spec.priorityClassName", template_field(w));
    snprintf(what, sizeof what, "no PriorityClass with name %s was found", kp__s(x->cl, pc));
    return fail(x, w, KP_EINVAL, field, what);
}

/* Appends a pending pod made from w's template (or, slot >= 0, makes it in the place of that
 * terminal pod of the same name, which its controller replaces); *out its index. */
kp_status kp__expand_make_pod(kp__expand *x, const kp_workload *w, const char *name, long slot,
                              kp_str owner_kind, kp_str owner_name, kp_str owner_api,
                              uint32_t *out) {
    kp_cluster *cl = x->cl;
    if (cl->n_expanded >= KP_EXPAND_MAX_PODS) {
        char what[160];
        snprintf(what, sizeof what,
                 "expanding the workloads makes more than %u pods (KP_EXPAND_MAX_PODS, kprio's "
                 "limit)",
                 KP_EXPAND_MAX_PODS);
        return fail(x, w, KP_ELIMIT, "spec", what);
    }
    kp_str nid = kp__expand_intern(cl, name);
    kp_owner_ref *o = kp__arena_alloc(&cl->arena, sizeof *o);
    if (nid == UINT32_MAX || !o) return KP_ENOMEM;
    *o = (kp_owner_ref){owner_kind, owner_name, w->kind == KP_WL_CRONJOB ? 0 : w->uid, owner_api,
                        true};
    kp_pod *p = slot >= 0 ? &cl->pods[slot] : kp__cluster_new_pod(cl, w->ns, nid);
    if (!p) return KP_ENOMEM;
    uint32_t idx = (uint32_t)(p - cl->pods);
    *p = *w->template;
    p->ns = w->ns;
    p->name = nid;
    p->uid = 0;
    p->src_index = idx;
    p->node = -1;
    p->creation_ts = x->now;
    p->src_file = w->origin.file;
    p->owners = o;
    p->n_owners = 1;
    cl->n_expanded++;
    *out = idx;
    return KP_OK;
}

kp_status kp__expand_nomem(kp__expand *x) {
    return kp_error_set(x->err, KP_ENOMEM, "out of memory");
}

/* Labels of the generated pods: the template's, plus key=val when key is set. */
kp_status kp__expand_pod_labels(kp__expand *x, const kp_workload *w, kp_labels *out,
                                const char *key, const char *val) {
    *out = w->template->labels;
    return key ? kp__labels_set(x->cl, out, key, val) : KP_OK;
}
