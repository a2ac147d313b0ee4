/* Workload expansion (`--expand-workloads`, kp_ctrl_expand in kprio/ctrl.h): the pending pods
 * the controllers would create now for the workloads of a loaded snapshot, before finalize.
 *
 * Existing pods are found once: each non-terminal pod is keyed by its controller reference
 * (kind, namespace, name), sorted, and each workload counts its pods by binary search. A pod
 * with no controller reference is an orphan the first workload whose selector matches adopts
 * (ClaimPods). A pod of a ReplicaSet also counts for the Deployment that controls the
 * ReplicaSet: the ReplicaSet's own owner reference when it is in the input, otherwise the
 * Deployment named by the ReplicaSet's name less its last "-hash" (the deployment controller's
 * naming). */
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
#include "kprio/cluster.h"
#include "kprio/ctrl.h"

/* A pod keyed by its controller: kind is a kp_workload_kind (KP_WL_KINDS: terminating pods of a
 * Job, counted apart for podReplacementPolicy Failed). */
typedef struct {
    uint32_t kind;
    kp_str ns, name;
    kp_str node; /* DaemonSet pods: the node it runs on or targets */
} podkey;

typedef struct {
    kp_cluster *cl;
    kp_error *err;
    podkey *keys;
    uint32_t n_keys;
    podkey *wl; /* the input's workloads, node = index, sorted */
    uint32_t n_wl;
    podkey *scaled; /* ReplicaSets with replicas > 0 controlled by a Deployment: name = the
                       Deployment's, node = the ReplicaSet's index, sorted */
    uint32_t n_scaled;
    uint32_t *orphans; /* non-terminal pods without a controller, by namespace */
    uint32_t n_orphans;
    uint8_t *adopted; /* per orphan */
    int64_t now; /* creationTimestamp of the generated pods */
    unsigned flags; /* kp_cluster_set_expand's */
    kp_str s_apps_v1, s_batch_v1, s_v1, s_rs, s_hash_key;
} ex;

static int key_cmp(const void *a, const void *b) {
    const podkey *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->ns != y->ns) return x->ns < y->ns ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* First key of v[0..n) >= k (comparing kind, ns, name and, when with_node, node). */
static uint32_t lower(const podkey *v, uint32_t n, const podkey *k, bool with_node) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        podkey m = v[mid];
        if (!with_node) m.node = 0;
        if (key_cmp(&m, k) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Keys (pods) of one controller; with node != 0, of one controller on one node. */
static uint32_t count_keys(const ex *x, uint32_t kind, kp_str ns, kp_str name, kp_str node) {
    podkey k = {kind, ns, name, node};
    uint32_t i = lower(x->keys, x->n_keys, &k, node != 0), n = 0;
    for (; i < x->n_keys && x->keys[i].kind == kind && x->keys[i].ns == ns &&
           x->keys[i].name == name && (!node || x->keys[i].node == node);
         i++)
        n++;
    return n;
}

/* The workload (kind, ns, name) of the input: its index or -1 (x->wl: the input's workloads as
 * keys whose node is the index, sorted). */
static long find_workload(const ex *x, kp_workload_kind kind, kp_str ns, kp_str name) {
    podkey k = {(uint32_t)kind, ns, name, 0};
    uint32_t i = lower(x->wl, x->n_wl, &k, false);
    if (i < x->n_wl && x->wl[i].kind == k.kind && x->wl[i].ns == ns && x->wl[i].name == name)
        return (long)x->wl[i].node;
    return -1;
}

static kp_str intern(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

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
static kp_status index_pods(ex *x) {
    kp_cluster *cl = x->cl;
    x->keys = kp__malloc(((size_t)cl->n_pods * 2 + 1) * sizeof *x->keys);
    x->orphans = kp__malloc(((size_t)cl->n_pods + 1) * sizeof *x->orphans);
    x->adopted = kp__calloc((size_t)cl->n_pods + 1, 1);
    x->wl = kp__malloc(((size_t)cl->n_workloads + 1) * sizeof *x->wl);
    if (!x->keys || !x->orphans || !x->adopted || !x->wl) return KP_ENOMEM;
    for (uint32_t i = 0; i < cl->n_workloads; i++)
        x->wl[x->n_wl++] = (podkey){(uint32_t)cl->workloads[i].kind, cl->workloads[i].ns,
                                    cl->workloads[i].name, i};
    qsort(x->wl, x->n_wl, sizeof *x->wl, key_cmp);
    x->scaled = kp__malloc(((size_t)cl->n_workloads + 1) * sizeof *x->scaled);
    if (!x->scaled) return KP_ENOMEM;
    for (uint32_t i = 0; i < cl->n_workloads; i++) {
        const kp_workload *w = &cl->workloads[i];
        if (w->kind == KP_WL_RS && w->replicas > 0 && w->owner_kind &&
            strcmp(kp__s(cl, w->owner_kind), "Deployment") == 0)
            x->scaled[x->n_scaled++] = (podkey){0, w->ns, w->owner_name, i};
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
        podkey k = {deleting && kind == KP_WL_JOB ? KP_WL_KINDS : (uint32_t)kind, p->ns, o->name,
                    kind == KP_WL_DS ? kp__pod_target_node(cl, p) : 0};
        x->keys[x->n_keys++] = k;
        if (kind != KP_WL_RS || deleting) continue;
        /* the Deployment controlling the ReplicaSet */
        long rs = find_workload(x, KP_WL_RS, p->ns, o->name);
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
        if (dep) x->keys[x->n_keys++] = (podkey){KP_WL_DEPLOY, p->ns, dep, 0};
    }
    qsort(x->keys, x->n_keys, sizeof *x->keys, key_cmp);
    /* orphans by namespace, then pod order (adopt reads one namespace's range) */
    podkey *o = kp__malloc(((size_t)x->n_orphans + 1) * sizeof *o);
    if (!o) return KP_ENOMEM;
    for (uint32_t i = 0; i < x->n_orphans; i++)
        o[i] = (podkey){0, cl->pods[x->orphans[i]].ns, 0, x->orphans[i]};
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
static uint32_t adopt(ex *x, const kp_workload *w, kp_str node) {
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

/* ---- making pods ---- */

static kp_status fail(ex *x, const kp_workload *w, kp_status code, const char *field,
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
static kp_status check_template(ex *x, const kp_workload *w) {
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
static kp_status make_pod(ex *x, const kp_workload *w, const char *name, long slot,
                          kp_str owner_kind, kp_str owner_name, kp_str owner_api, uint32_t *out) {
    kp_cluster *cl = x->cl;
    if (cl->n_expanded >= KP_EXPAND_MAX_PODS) {
        char what[160];
        snprintf(what, sizeof what,
                 "expanding the workloads makes more than %u pods (KP_EXPAND_MAX_PODS, kprio's "
                 "limit)",
                 KP_EXPAND_MAX_PODS);
        return fail(x, w, KP_ELIMIT, "spec", what);
    }
    kp_str nid = intern(cl, name);
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

static kp_status fail_nomem(ex *x) { return kp_error_set(x->err, KP_ENOMEM, "out of memory"); }

/* Labels of the generated pods: the template's, plus key=val when key is set. */
static kp_status pod_labels(ex *x, const kp_workload *w, kp_labels *out, const char *key,
                            const char *val) {
    *out = w->template->labels;
    return key ? kp__labels_set(x->cl, out, key, val) : KP_OK;
}

/* The Deployment's current ReplicaSet: the one ReplicaSet of the input it controls that has
 * replicas (a settled Deployment scales only its new ReplicaSet, FindNewReplicaSet; during a
 * rollout there are several and kprio cannot tell which template matches: -1), with its
 * pod-template-hash in hash (its template's label, else its selector's, else its name's tail). */
static long current_replicaset(const ex *x, const kp_workload *d, char *hash, size_t cap) {
    const kp_cluster *cl = x->cl;
    podkey k = {0, d->ns, d->name, 0};
    uint32_t i = lower(x->scaled, x->n_scaled, &k, false);
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

/* mirrors ReplicaSetController.manageReplicas (ReplicaSet, ReplicationController) and, for a
 * Deployment, the deployment controller scaling its new ReplicaSet: replicas less the active
 * pods (FilterActivePods) already there. */
static kp_status expand_replicated(ex *x, uint32_t wi, bool *made) {
    kp_cluster *cl = x->cl;
    const kp_workload *w = &cl->workloads[wi];
    if (w->kind == KP_WL_RS && w->owner_kind &&
        strcmp(kp__s(cl, w->owner_kind), "Deployment") == 0 &&
        find_workload(x, KP_WL_DEPLOY, w->ns, w->owner_name) >= 0)
        return KP_OK; /* its Deployment decides how many pods it has */
    uint64_t have = count_keys(x, w->kind, w->ns, w->name, 0);
    have += adopt(x, w, 0);
    if (have >= (uint64_t)w->replicas) return KP_OK;
    kp_status st = check_template(x, w);
    if (st != KP_OK) return st;
    char hash[256], owner[400], base[420], name[480];
    kp_labels labels;
    kp_str okind = intern(cl, kp__workload_kind_name(w->kind)), oname = w->name;
    kp_str api = w->kind == KP_WL_RC ? x->s_v1 : x->s_apps_v1;
    bool new_rs = false;
    if (w->kind == KP_WL_DEPLOY) {
        long rs = current_replicaset(x, w, hash, sizeof hash);
        new_rs = rs < 0;
        if (new_rs) kp__workload_template_hash(cl, w, hash);
        snprintf(owner, sizeof owner, "%s", new_rs ? "" : kp__s(cl, cl->workloads[rs].name));
        if (new_rs) snprintf(owner, sizeof owner, "%s-%s", kp__s(cl, w->name), hash);
        okind = x->s_rs;
        oname = intern(cl, owner);
        st = pod_labels(x, w, &labels, "pod-template-hash", hash);
    } else {
        snprintf(owner, sizeof owner, "%s", kp__s(cl, w->name));
        st = pod_labels(x, w, &labels, NULL, NULL);
    }
    if (st != KP_OK || okind == UINT32_MAX || oname == UINT32_MAX) return fail_nomem(x);
    snprintf(base, sizeof base, "%s-", owner);
    for (uint64_t i = 0; have + i < (uint64_t)w->replicas; i++) {
        uint32_t idx;
        kp__workload_generate_name(cl, w->ns, base, i, name, sizeof name);
        if ((st = make_pod(x, w, name, -1, okind, oname, api, &idx)) != KP_OK)
            return st == KP_ENOMEM ? fail_nomem(x) : st;
        w = &cl->workloads[wi];
        cl->pods[idx].labels = labels;
    }
    *made = new_rs;
    return KP_OK;
}

/* mirrors newVersionedStatefulSetPod as the StatefulSet controller creates replicas: pods
 * NAME-ORDINAL for the ordinals [start, start + replicas); an existing non-terminal pod of that
 * name stands; a Failed or Succeeded one is replaced. */
static kp_status expand_statefulset(ex *x, uint32_t wi) {
    kp_cluster *cl = x->cl;
    const kp_workload *w = &cl->workloads[wi];
    kp_status st = KP_OK;
    bool checked = false;
    kp_str okind = intern(cl, "StatefulSet");
    if (okind == UINT32_MAX) return fail_nomem(x);
    for (int64_t ord = w->ordinals_start; ord < (int64_t)w->ordinals_start + w->replicas; ord++) {
        char name[400], num[24], ref[800];
        snprintf(name, sizeof name, "%s-%lld", kp__s(cl, w->name), (long long)ord);
        snprintf(ref, sizeof ref, "%s/%s", kp__s(cl, w->ns), name);
        kp_index old = kp_cluster_find_pod(cl, ref);
        if (old >= 0 && !kp__pod_is_terminal(&cl->pods[old])) continue;
        if (!checked && (st = check_template(x, w)) != KP_OK) return st;
        checked = true;
        kp_labels labels;
        snprintf(num, sizeof num, "%lld", (long long)ord);
        uint32_t idx;
        if (pod_labels(x, w, &labels, "statefulset.kubernetes.io/pod-name", name) != KP_OK ||
            kp__labels_set(cl, &labels, "apps.kubernetes.io/pod-index", num) != KP_OK)
            return fail_nomem(x);
        if ((st = make_pod(x, w, name, old, okind, w->name, x->s_apps_v1, &idx)) != KP_OK)
            return st == KP_ENOMEM ? fail_nomem(x) : st;
        w = &cl->workloads[wi];
        cl->pods[idx].labels = labels;
    }
    return KP_OK;
}

/* status.completedIndexes ("1,3-5") into done[0..completions); returns how many are set. */
static int32_t completed_indexes(const char *s, uint8_t *done, int32_t completions) {
    int32_t n = 0;
    while (s && *s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s) break;
        if (*end == '-') b = strtol(end + 1, &end, 10);
        for (long i = a < 0 ? 0 : a; i <= b && i < completions; i++)
            if (!done[i]) done[i] = 1, n++;
        s = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

/* Marks in done[] the completion indexes of the Job's active pods: their
 * batch.kubernetes.io/job-completion-index label (PodIndexLabel; getCompletionIndex reads the
 * annotation of the same name, which kprio does not keep: the Job controller sets both). */
static void active_indexes(const ex *x, const kp_workload *w, uint8_t *done, int32_t completions) {
    const kp_cluster *cl = x->cl;
    kp_str key = kp__intern_find(&cl->strs, "batch.kubernetes.io/job-completion-index", 40);
    for (uint32_t i = 0; key != UINT32_MAX && i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (p->ns != w->ns || kp__pod_is_terminal(p) || p->deletion_ts != KP_TIME_NONE) continue;
        bool mine = false;
        for (uint16_t k = 0; k < p->n_owners; k++)
            mine |= p->owners[k].controller && p->owners[k].name == w->name &&
                    strcmp(kp__s(cl, p->owners[k].kind), "Job") == 0;
        kp_str v;
        if (!mine || !kp__labels_get(&p->labels, key, &v)) continue;
        char *end;
        long idx = strtol(kp__s(cl, v), &end, 10);
        if (!*end && idx >= 0 && idx < completions) done[idx] = 1;
    }
}

/* mirrors Controller.manageJob (pkg/controller/job): wantActive = parallelism (no completions,
 * none succeeded yet) or min(parallelism, completions - succeeded); the pods to create are
 * wantActive less the active pods (and, with podReplacementPolicy Failed, less the terminating
 * ones); an Indexed Job takes the lowest indexes neither completed nor active
 * (firstPendingIndexes). job_name: the Job's name (a CronJob's Job: made up). */
static kp_status expand_job(ex *x, uint32_t wi, const char *job_name, bool from_cronjob) {
    kp_cluster *cl = x->cl;
    const kp_workload *w = &cl->workloads[wi];
    const kp_job_spec *j = &w->job;
    if (j->suspend || j->finished) return KP_OK;
    kp_str jname = intern(cl, job_name), okind = intern(cl, "Job");
    if (jname == UINT32_MAX || okind == UINT32_MAX) return fail_nomem(x);
    int64_t active = 0, terminating = 0, succeeded = from_cronjob ? 0 : j->succeeded;
    if (!from_cronjob) {
        active = count_keys(x, KP_WL_JOB, w->ns, w->name, 0);
        if (w->sel.is_set) active += adopt(x, w, 0);
        terminating = count_keys(x, KP_WL_KINDS, w->ns, w->name, 0);
    }
    uint8_t *done = NULL;
    if (j->indexed) {
        done = kp__calloc((size_t)j->completions + 1, 1);
        if (!done) return fail_nomem(x);
        if (!from_cronjob) {
            succeeded =
                completed_indexes(j->completed_indexes ? kp__s(cl, j->completed_indexes) : NULL,
                                  done, j->completions);
            active_indexes(x, w, done, j->completions);
        }
    }
    int64_t want = !j->has_completions ? (succeeded > 0 ? active : j->parallelism)
                                       : (int64_t)j->completions - succeeded;
    if (want > j->parallelism) want = j->parallelism;
    if (want < 0) want = 0;
    int64_t diff = want - active - (j->replacement == KP_JOB_REPLACE_FAILED ? terminating : 0);
    kp_status st = diff > 0 ? check_template(x, w) : KP_OK;
    kp_labels labels;
    if (st == KP_OK && diff > 0) {
        labels = w->template->labels;
        /* the API server's Job defaulting labels the template (generateSelector) */
        if (!j->manual_selector &&
            (kp__labels_set(cl, &labels, "batch.kubernetes.io/job-name", job_name) != KP_OK ||
             kp__labels_set(cl, &labels, "job-name", job_name) != KP_OK))
            st = fail_nomem(x);
    }
    int32_t next = 0;
    for (int64_t i = 0; i < diff && st == KP_OK; i++) {
        char base[420], name[480], num[24];
        if (done) {
            while (next < j->completions && done[next]) next++;
            if (next >= j->completions) break;
            snprintf(base, sizeof base, "%s-%d-", job_name, next);
        } else {
            snprintf(base, sizeof base, "%s-", job_name);
        }
        kp__workload_generate_name(cl, w->ns, base, (uint64_t)i, name, sizeof name);
        uint32_t idx;
        st = make_pod(x, w, name, -1, okind, jname, x->s_batch_v1, &idx);
        if (st == KP_ENOMEM) st = fail_nomem(x);
        if (st != KP_OK) break;
        w = &cl->workloads[wi];
        j = &w->job;
        kp_pod *p = &cl->pods[idx];
        p->labels = labels;
        if (done) { /* addCompletionIndexAnnotation, addCompletionIndexLabel */
            snprintf(num, sizeof num, "%d", next);
            if (kp__labels_set(cl, &p->labels, "batch.kubernetes.io/job-completion-index", num) !=
                    KP_OK ||
                kp__labels_set(cl, &p->annotations, "batch.kubernetes.io/job-completion-index",
                               num) != KP_OK)
                st = fail_nomem(x);
            done[next] = 1;
        }
    }
    kp__free(done);
    return st;
}

/* A CronJob fired now (KP_EXPAND_CRONJOBS): one Job's worth of pods, as syncCronJob would create
 * at a schedule time, unless suspended or concurrencyPolicy Forbid meets an active Job. The
 * Job's name is NAME-next (upstream: NAME-<scheduled time in minutes>). */
static kp_status expand_cronjob(ex *x, uint32_t wi) {
    const kp_workload *w = &x->cl->workloads[wi];
    if (w->suspend || (w->concurrency == KP_CONCURRENCY_FORBID && w->n_active_jobs > 0))
        return KP_OK;
    char job[400];
    snprintf(job, sizeof job, "%.52s-next", kp__s(x->cl, w->name));
    return expand_job(x, wi, job, true);
}

/* mirrors DaemonSetsController.manage with NodeShouldRunDaemonPod: one pod per node whose name
 * (template spec.nodeName), node selector and required node affinity fit and whose NoSchedule /
 * NoExecute taints the pod tolerates (with the controller's default tolerations), unless a
 * non-terminal pod of the DaemonSet is there or targets it already. */
static kp_status expand_daemonset(ex *x, uint32_t wi) {
    kp_cluster *cl = x->cl;
    const kp_workload *w = &cl->workloads[wi];
    kp_toleration *tols = NULL;
    uint16_t n_tols = 0;
    kp_str okind = intern(cl, "DaemonSet");
    if (okind == UINT32_MAX) return fail_nomem(x);
    bool prepared = false;
    char base[420], name[480];
    snprintf(base, sizeof base, "%s-", kp__s(cl, w->name));
    for (uint32_t n = 0; n < cl->n_nodes; n++) {
        const kp_node *node = &cl->nodes[n];
        if (!w->template) return check_template(x, w); /* eligibility needs the template */
        bool run, cont;
        kp__daemon_should_run(cl, w, node, &run, &cont);
        if (!run) continue;
        if (!prepared && kp__daemon_tolerations(cl, w, &tols, &n_tols) != KP_OK)
            return fail_nomem(x);
        prepared = true;
        if (count_keys(x, KP_WL_DS, w->ns, w->name, node->name) > 0 || adopt(x, w, node->name) > 0)
            continue;
        kp_status st = check_template(x, w);
        if (st != KP_OK) return st;
        uint32_t idx;
        kp__workload_generate_name(cl, w->ns, base, n, name, sizeof name);
        kp_str node_name = node->name;
        if ((st = make_pod(x, w, name, -1, okind, w->name, x->s_apps_v1, &idx)) != KP_OK)
            return st == KP_ENOMEM ? fail_nomem(x) : st;
        w = &cl->workloads[wi];
        kp_pod *p = &cl->pods[idx];
        p->tolerations = tols;
        p->n_tolerations = n_tols;
        if (!(p->node_affinity = kp__daemon_pin(cl, w->template, node_name))) return fail_nomem(x);
    }
    return KP_OK;
}

static kp_status expand_all(ex *x, uint32_t *deps, uint32_t *n_deps, uint32_t *n_cron) {
    kp_cluster *cl = x->cl;
    uint32_t n_wl = cl->n_workloads;
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < n_wl && st == KP_OK; i++) {
        bool made = false;
        switch (cl->workloads[i].kind) {
        case KP_WL_RC:
        case KP_WL_RS:
        case KP_WL_DEPLOY: st = expand_replicated(x, i, &made); break;
        case KP_WL_STS: st = expand_statefulset(x, i); break;
        case KP_WL_DS: st = expand_daemonset(x, i); break;
        case KP_WL_JOB: st = expand_job(x, i, kp__s(cl, cl->workloads[i].name), false); break;
        case KP_WL_CRONJOB:
            if (x->flags & KP_EXPAND_CRONJOBS) st = expand_cronjob(x, i);
            else (*n_cron)++;
            break;
        case KP_WL_SERVICE:
        case KP_WL_KINDS: break;
        }
        if (made) deps[(*n_deps)++] = i;
    }
    return st;
}

kp_status kp_ctrl_expand(kp_cluster *cl, kp_error *err) {
    if (!(cl->expand_flags & (KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS)) || cl->finalized)
        return KP_OK;
    unsigned flags = cl->expand_flags;
    /* once: templates still decode for what is loaded next */
    cl->expand_flags = KP_WORKLOAD_TEMPLATES;
    /* finalize's first check comes first, as when finalize expanded */
    kp_status vst = kp__cluster_validate_classes(cl, err);
    if (vst != KP_OK) return vst;
    ex x;
    memset(&x, 0, sizeof x);
    x.cl = cl;
    x.err = err;
    x.now = KP_TIME_NONE;
    x.flags = flags;
    x.s_apps_v1 = intern(cl, "apps/v1");
    x.s_batch_v1 = intern(cl, "batch/v1");
    x.s_v1 = intern(cl, "v1");
    x.s_rs = intern(cl, "ReplicaSet");
    uint32_t *deps = kp__malloc(((size_t)cl->n_workloads + 1) * sizeof *deps), n_deps = 0;
    uint32_t n_cron = 0;
    kp_status st = KP_OK;
    if (!deps || x.s_apps_v1 == UINT32_MAX || x.s_batch_v1 == UINT32_MAX || x.s_v1 == UINT32_MAX ||
        x.s_rs == UINT32_MAX || index_pods(&x) != KP_OK)
        st = fail_nomem(&x);
    if (st == KP_OK) st = expand_all(&x, deps, &n_deps, &n_cron);
    for (uint32_t i = 0; i < n_deps && st == KP_OK; i++) {
        uint32_t rs;
        if (kp__workload_new_replicaset(cl, deps[i], &rs) != KP_OK) st = fail_nomem(&x);
    }
    if (st == KP_OK && n_cron &&
        kp__cluster_warn(cl,
                         "%u CronJob(s) not expanded: a CronJob has no pods until its schedule "
                         "fires (--expand-cronjobs fires each once now)",
                         n_cron) != KP_OK)
        st = fail_nomem(&x);
    kp__free(deps);
    kp__free(x.keys);
    kp__free(x.wl);
    kp__free(x.scaled);
    kp__free(x.orphans);
    kp__free(x.adopted);
    return st;
}
