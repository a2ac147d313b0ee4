/* What one watch event of a trace becomes (docs/live.md "Replaying a trace"): the users' changes
 * as scenario actions, the cluster's decisions as recorded decisions, and nothing for what the
 * simulation does itself (the pods its controllers create and delete, its scheduler's bindings
 * and preemptions, its controllers' taints).
 *
 * Each object's first event is its state when the watch began (kubectl lists before it
 * watches): an object the snapshot has is not created again; a later event is compared with
 * the one before it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "io/decode_trace.h"

/* the order of actions at the same instant: classes and nodes before what runs on them */
enum { RANK_CLASS = 0, RANK_NODE, RANK_PDB, RANK_WORKLOAD, RANK_POD };

typedef struct {
    const char *kind, *ns, *name, *uid;
    const char *owner_kind, *owner_name; /* the controller ownerReference ("" none) */
    const kp_tnode *obj, *meta, *spec, *status;
    bool deleted; /* DELETED */
    bool added; /* ADDED */
} ev;

static const char *str_of(const kp_tnode *obj, const char *key) {
    const kp_tnode *n = obj ? kp__tree_get(obj, key) : NULL;
    return n && n->type == KP_T_STR ? n->s : "";
}

/* status.conditions[type]: the condition or NULL */
static const kp_tnode *condition(const kp_tnode *status, const char *type) {
    const kp_tnode *c = status ? kp__tree_get(status, "conditions") : NULL;
    if (!c || c->type != KP_T_ARR) return NULL;
    for (const kp_tnode *i = c->first; i; i = i->next)
        if (i->type == KP_T_OBJ && strcmp(str_of(i, "type"), type) == 0) return i;
    return NULL;
}

/* ---------------------------------------------------------------- object texts */

static bool drop(const char *where, const kp_tnode *m, bool drop_node) {
    static const char *const meta[] = {"generateName",      "resourceVersion",
                                       "deletionTimestamp", "deletionGracePeriodSeconds",
                                       "managedFields",     NULL};
    if (strcmp(where, "metadata") == 0) {
        for (size_t i = 0; meta[i]; i++)
            if (kp__tree_key_is(m, meta[i])) return true;
    } else if (strcmp(where, "spec") == 0) {
        return drop_node && kp__tree_key_is(m, "nodeName");
    }
    return false;
}

static void put_members(kp_tbuf *b, const kp_tnode *obj, const char *where, bool drop_node) {
    kp__tbuf_put(b, "{", 1);
    bool first = true;
    for (const kp_tnode *m = obj->first; m; m = m->next) {
        if (drop(where, m, drop_node)) continue;
        if (!first) kp__tbuf_put(b, ",", 1);
        first = false;
        kp__tbuf_quoted(b, m->key, m->key_len);
        kp__tbuf_put(b, ":", 1);
        kp__tree_text(b, m);
    }
    kp__tbuf_put(b, "}", 1);
}

/* The object as it is created: without its status (keep_status: a Node's, its capacity), the
 * server's metadata (a generateName is dropped, the name generated then kept, so the simulated
 * pod has the recorded one's name) and, drop_node, the binding the scheduler made. */
static void object_text(kp__tctx *x, const kp_tnode *obj, bool keep_status, bool drop_node) {
    kp_tbuf *b = &x->text;
    b->n = 0;
    kp__tbuf_put(b, "{", 1);
    bool first = true;
    for (const kp_tnode *m = obj->first; m; m = m->next) {
        if (!keep_status && kp__tree_key_is(m, "status")) continue;
        if (!first) kp__tbuf_put(b, ",", 1);
        first = false;
        kp__tbuf_quoted(b, m->key, m->key_len);
        kp__tbuf_put(b, ":", 1);
        if (m->type == KP_T_OBJ && kp__tree_key_is(m, "metadata"))
            put_members(b, m, "metadata", drop_node);
        else if (m->type == KP_T_OBJ && kp__tree_key_is(m, "spec"))
            put_members(b, m, "spec", drop_node);
        else kp__tree_text(b, m);
    }
    kp__tbuf_put(b, "}", 1);
}

/* The JSON text of n in the trace's arena ("" for NULL); NULL when out of memory. */
static const char *text_of(kp__tctx *x, const kp_tnode *n) {
    if (!n) return "";
    x->text.n = 0;
    kp__tree_text(&x->text, n);
    return x->text.oom ? NULL : kp__trace_dup(x, x->text.p, x->text.n);
}

static kp_status ref_action(kp__tctx *x, kp_action_type t, uint32_t rank, const ev *e) {
    kp_scenario_action *a = kp__trace_action(x, t, rank);
    if (!a) return kp__sc_nomem(&x->d);
    a->ref.kind = (char *)e->kind;
    a->ref.ns = (char *)e->ns;
    a->ref.name = (char *)e->name;
    return KP_OK;
}

/* patch {"spec": {MEMBER: value}} (member NULL: {"spec": value}) of the object of e */
static kp_status patch_action(kp__tctx *x, uint32_t rank, const ev *e, const char *member,
                              const char *value) {
    kp_status st = ref_action(x, KP_ACT_PATCH, rank, e);
    if (st != KP_OK) return st;
    kp_scenario_action *a = &x->acts[x->n_acts - 1].a;
    x->text.n = 0;
    kp__tbuf_put(&x->text, "{\"spec\":", 8);
    if (member) {
        kp__tbuf_put(&x->text, "{", 1);
        kp__tbuf_quoted(&x->text, member, strlen(member));
        kp__tbuf_put(&x->text, ":", 1);
    }
    kp__tbuf_put(&x->text, value, strlen(value));
    kp__tbuf_put(&x->text, member ? "}}" : "}", member ? 2 : 1);
    if (x->text.oom || !(a->patch = (char *)kp__trace_dup(x, x->text.p, x->text.n)))
        return kp__sc_nomem(&x->d);
    a->patch_len = x->text.n;
    return KP_OK;
}

/* ---------------------------------------------------------------- pods */

/* kinds whose pods get names the API server generates (a different one in each run) */
static bool generates_names(const char *kind) {
    return strcmp(kind, "ReplicaSet") == 0 || strcmp(kind, "ReplicationController") == 0 ||
           strcmp(kind, "Job") == 0 || strcmp(kind, "DaemonSet") == 0;
}

/* The key a new pod is paired by (include/kprio/trace.h), counting it. */
static kp_status pod_key(kp__tctx *x, const ev *e, bool in_snapshot, bool snapshot_has_name,
                         kp_trace_pod_key *k) {
    char key[600];
    k->ns = e->ns;
    k->name = e->name;
    k->owner_kind = k->owner_name = "";
    k->rank = 0;
    if (!in_snapshot && str_of(e->meta, "generateName")[0] && generates_names(e->owner_kind)) {
        snprintf(key, sizeof key, "O\x1f%s\x1f%s\x1f%s", e->owner_kind, e->ns, e->owner_name);
        kp__tstate *c = kp__trace_state(x, key);
        if (!c) return kp__sc_nomem(&x->d);
        k->owner_kind = e->owner_kind;
        k->owner_name = e->owner_name;
        k->rank = c->count++;
        return KP_OK;
    }
    snprintf(key, sizeof key, "C\x1f%s\x1f%s", e->ns, e->name);
    kp__tstate *c = kp__trace_state(x, key);
    if (!c) return kp__sc_nomem(&x->d);
    if (c->count == 0 && snapshot_has_name && !in_snapshot) c->count = 1;
    k->rank = in_snapshot ? 0 : c->count;
    if (c->count <= k->rank) c->count = k->rank + 1;
    return KP_OK;
}

/* the first event of a pod: its state (the snapshot's pod) or its creation */
static kp_status pod_first(kp__tctx *x, const ev *e, kp__tstate *s, const char *node) {
    char ref[520];
    snprintf(ref, sizeof ref, "%s/%s", e->ns, e->name);
    kp_index p = kp_cluster_find_pod(x->cl, ref);
    bool in_snap = false;
    if (p >= 0) {
        kp_pod_info pi;
        in_snap = kp_cluster_pod_info(x->cl, p, &pi) == KP_OK &&
                  (!e->uid[0] || !pi.uid[0] || strcmp(pi.uid, e->uid) == 0);
    }
    s->seen = true;
    s->in_snapshot = in_snap;
    s->node = "";
    kp_status st = pod_key(x, e, in_snap, p >= 0, &s->key);
    if (st != KP_OK || in_snap) {
        s->node = node;
        return st;
    }
    if (e->deleted) { /* created and deleted between two looks: nothing to replay */
        s->deleting = true;
        return KP_OK;
    }
    const kp_tnode *ann = kp__tree_get(e->meta, "annotations");
    bool mirror = ann && ann->type == KP_T_OBJ && kp__tree_get(ann, "kubernetes.io/config.mirror");
    if (e->owner_kind[0] && !mirror) {
        x->stats.controllers++; /* the simulated controller creates its own */
        return KP_OK;
    }
    /* a user's pod (or a static pod's mirror, bound to its node): created as recorded, the
     * scheduler's binding left to the simulated scheduler */
    object_text(x, e->obj, false, !mirror);
    st = kp__trace_create(x, e->obj, RANK_POD);
    if (st == KP_OK && mirror) s->node = node;
    return st;
}

/* a delete action of the pod of e: by name, or (a generated name) by its controller and rank */
static kp_status delete_action(kp__tctx *x, const ev *e, const kp_trace_pod_key *key) {
    kp_status st = ref_action(x, KP_ACT_DELETE, RANK_POD, e);
    if (st != KP_OK || !key->owner_kind[0]) return st;
    kp_scenario_action *a = &x->acts[x->n_acts - 1].a;
    a->owner.kind = (char *)key->owner_kind;
    a->owner.ns = (char *)e->ns;
    a->owner.name = (char *)key->owner_name;
    a->owner_rank = key->rank;
    x->stats.by_controller++;
    return KP_OK;
}

/* the controllers the simulation runs whose deletions of their pods it makes itself */
static bool simulated_controller(const char *kind) {
    return generates_names(kind) || strcmp(kind, "StatefulSet") == 0;
}

/* the pod's deletion, first seen: who asked for it (its DisruptionTarget condition, set by
 * whoever deletes a pod to disrupt it) tells whether the simulation replays it or decides it */
static kp_status pod_deletion(kp__tctx *x, const ev *e, kp__tstate *s) {
    const kp_tnode *dt = condition(e->status, "DisruptionTarget");
    const char *reason =
        dt && strcmp(str_of(dt, "status"), "True") == 0 ? str_of(dt, "reason") : "";
    const char *phase = str_of(e->status, "phase");
    if (strcmp(reason, "PreemptionByScheduler") == 0)
        return kp__trace_decision(x, x->t_ms, KP_TRACE_PREEMPTED, NULL, &s->key, s->node,
                                  str_of(dt, "message"));
    if (strcmp(reason, "TerminationByKubelet") == 0)
        return kp__trace_decision(x, x->t_ms, KP_TRACE_EVICTED, NULL, &s->key, s->node,
                                  str_of(dt, "message"));
    /* an eviction through the API (which the cluster granted: replayed as the deletion it
     * became), a pod of a generated name on its controller's simulated pod of the same rank */
    if (strcmp(reason, "EvictionByEvictionAPI") == 0) return delete_action(x, e, &s->key);
    if (reason[0] || strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0) {
        /* the taint manager, the pod GC, a finished pod: the simulation's own */
        x->stats.controllers++;
        return KP_OK;
    }
    if (e->owner_kind[0] && !simulated_controller(e->owner_kind)) {
        x->stats.controllers++; /* a controller kprio does not run (its pods are not created) */
        return KP_OK;
    }
    if (!e->owner_kind[0]) return delete_action(x, e, &s->key); /* a user's */
    /* a controller's scale-down or a user's `kubectl delete pod`: told apart at the end, by
     * the controller's SuccessfulDelete events (kp__trace_owned_deletions) */
    if (!kp__grow((void **)&x->dels, &x->cap_dels, x->n_dels + 1, sizeof *x->dels, 64))
        return kp__sc_nomem(&x->d);
    kp__tdel *d = &x->dels[x->n_dels++];
    d->t_ms = x->t_ms;
    d->ns = e->ns;
    d->name = e->name;
    d->owner_kind = e->owner_kind;
    d->owner_name = e->owner_name;
    d->key = s->key;
    return KP_OK;
}

static kp_status on_pod(kp__tctx *x, const ev *e) {
    char key[600];
    if (e->uid[0]) snprintf(key, sizeof key, "U\x1f%s", e->uid);
    else snprintf(key, sizeof key, "U\x1f%s/%s", e->ns, e->name);
    kp__tstate *s = kp__trace_state(x, key);
    if (!s) return kp__sc_nomem(&x->d);
    const char *node =
        kp__trace_dup(x, str_of(e->spec, "nodeName"), strlen(str_of(e->spec, "nodeName")));
    if (!node) return kp__sc_nomem(&x->d);
    kp_status st = KP_OK;
    if (!s->seen) {
        if ((st = pod_first(x, e, s, node)) != KP_OK) return st;
        /* a new pod already bound when first seen: bound in between */
        if (!s->in_snapshot && node[0] && !s->node[0] && !e->deleted)
            st = kp__trace_decision(x, x->t_ms, KP_TRACE_SCHEDULED, NULL, &s->key, node, "");
    } else if (!s->node[0] && node[0]) {
        st = kp__trace_decision(x, x->t_ms, KP_TRACE_SCHEDULED, NULL, &s->key, node, "");
    }
    if (st != KP_OK) return st;
    if (node[0]) s->node = node;
    bool deleting = e->deleted || kp__tree_get(e->meta, "deletionTimestamp");
    if (deleting && !s->deleting && (s->in_snapshot || s->seen)) {
        s->deleting = true;
        st = pod_deletion(x, e, s);
    }
    return st;
}

/* ---------------------------------------------------------------- nodes */

/* the node's taints a user (or another program) set, one per line "key\x1fvalue\x1feffect":
 * the node lifecycle controller's (node.kubernetes.io/...) and the cloud provider's are the
 * simulation's own */
static const char *user_taints(kp__tctx *x, const ev *e) {
    const kp_tnode *t = e->spec ? kp__tree_get(e->spec, "taints") : NULL;
    x->text.n = 0;
    if (t && t->type == KP_T_ARR)
        for (const kp_tnode *i = t->first; i; i = i->next) {
            const char *k = str_of(i, "key");
            if (!k[0] || strncmp(k, "node.kubernetes.io/", 19) == 0 ||
                strncmp(k, "node.cloudprovider.kubernetes.io/", 33) == 0)
                continue;
            const char *v = str_of(i, "value"), *f = str_of(i, "effect");
            kp__tbuf_put(&x->text, k, strlen(k));
            kp__tbuf_put(&x->text, "\x1f", 1);
            kp__tbuf_put(&x->text, v, strlen(v));
            kp__tbuf_put(&x->text, "\x1f", 1);
            kp__tbuf_put(&x->text, f, strlen(f));
            kp__tbuf_put(&x->text, "\n", 1);
        }
    if (x->text.oom) return NULL;
    return kp__trace_dup(x, x->text.p ? x->text.p : "", x->text.n);
}

static bool has_line(const char *set, const char *line, size_t n) {
    for (const char *p = set; *p;) {
        const char *e = strchr(p, '\n');
        if ((size_t)(e - p) == n && memcmp(p, line, n) == 0) return true;
        p = e + 1;
    }
    return false;
}

/* taint / untaint actions for the lines of `from` missing in `in` */
static kp_status taint_diff(kp__tctx *x, const ev *e, const char *from, const char *in, bool add) {
    for (const char *p = from; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = (size_t)(end - p);
        if (!has_line(in, p, n)) {
            kp_status st = ref_action(x, add ? KP_ACT_TAINT : KP_ACT_UNTAINT, RANK_NODE, e);
            if (st != KP_OK) return st;
            kp_scenario_action *a = &x->acts[x->n_acts - 1].a;
            const char *s1 = memchr(p, '\x1f', n),
                       *s2 = memchr(s1 + 1, '\x1f', (size_t)(end - s1 - 1));
            a->ref.kind = "";
            a->ref.ns = "";
            if (!(a->taint.key = (char *)kp__trace_dup(x, p, (size_t)(s1 - p))) ||
                !(a->taint.value =
                      add ? (char *)kp__trace_dup(x, s1 + 1, (size_t)(s2 - s1 - 1)) : "") ||
                !(a->taint.effect = (char *)kp__trace_dup(x, s2 + 1, (size_t)(end - s2 - 1))))
                return kp__sc_nomem(&x->d);
        }
        p = end + 1;
    }
    return KP_OK;
}

/* the node's labels, one per line "key\x1fvalue" (the snapshot's node: in >= 0) */
static const char *label_lines(kp__tctx *x, const ev *e, kp_index in) {
    x->text.n = 0;
    if (in >= 0) {
        const kp_labels *l = &x->cl->nodes[in].labels;
        for (uint32_t i = 0; i < l->n; i++) {
            const char *k = kp__s(x->cl, l->items[i].key), *v = kp__s(x->cl, l->items[i].val);
            kp__tbuf_put(&x->text, k, strlen(k));
            kp__tbuf_put(&x->text, "\x1f", 1);
            kp__tbuf_put(&x->text, v, strlen(v));
            kp__tbuf_put(&x->text, "\n", 1);
        }
    } else {
        const kp_tnode *l = kp__tree_get(e->meta, "labels");
        for (const kp_tnode *m = l && l->type == KP_T_OBJ ? l->first : NULL; m; m = m->next) {
            /* (the API server's label syntax has neither separator) */
            if (m->type != KP_T_STR || memchr(m->key, '\n', m->key_len) ||
                memchr(m->key, '\x1f', m->key_len) || strpbrk(m->s, "\n\x1f"))
                continue;
            kp__tbuf_put(&x->text, m->key, m->key_len);
            kp__tbuf_put(&x->text, "\x1f", 1);
            kp__tbuf_put(&x->text, m->s, strlen(m->s));
            kp__tbuf_put(&x->text, "\n", 1);
        }
    }
    if (x->text.oom) return NULL;
    return kp__trace_dup(x, x->text.p ? x->text.p : "", x->text.n);
}

/* whether a line of set starts with key p[0..n) and the separator */
static bool has_key(const char *set, const char *p, size_t n) {
    for (const char *q = set; *q; q = strchr(q, '\n') + 1)
        if (strncmp(q, p, n) == 0 && q[n] == '\x1f') return true;
    return false;
}

/* The labels changed from `from` to `to` (label_lines): one patch of the node's
 * metadata.labels, a label removed set to null (a JSON merge patch, as `kubectl label node`
 * sends it). Its NodeUpdate wakes the pods whose queueing hints care (sim_patch.c). */
static kp_status label_patch(kp__tctx *x, const ev *e, const char *from, const char *to) {
    kp_tbuf *b = &x->text;
    b->n = 0;
    static const char head[] = "{\"metadata\":{\"labels\":{";
    kp__tbuf_put(b, head, sizeof head - 1);
    size_t empty = b->n;
    for (const char *p = to; *p; p = strchr(p, '\n') + 1) {
        const char *end = strchr(p, '\n'), *sep = memchr(p, '\x1f', (size_t)(end - p));
        if (has_line(from, p, (size_t)(end - p))) continue;
        if (b->n > empty) kp__tbuf_put(b, ",", 1);
        kp__tbuf_quoted(b, p, (size_t)(sep - p));
        kp__tbuf_put(b, ":", 1);
        kp__tbuf_quoted(b, sep + 1, (size_t)(end - sep - 1));
    }
    for (const char *p = from; *p; p = strchr(p, '\n') + 1) {
        const char *sep = strchr(p, '\x1f');
        if (has_key(to, p, (size_t)(sep - p))) continue;
        if (b->n > empty) kp__tbuf_put(b, ",", 1);
        kp__tbuf_quoted(b, p, (size_t)(sep - p));
        kp__tbuf_put(b, ":null", 5);
    }
    if (b->n == empty) return KP_OK;
    kp__tbuf_put(b, "}}}", 3);
    if (b->oom) return kp__sc_nomem(&x->d);
    kp_status st = ref_action(x, KP_ACT_PATCH, RANK_NODE, e);
    if (st != KP_OK) return st;
    kp_scenario_action *a = &x->acts[x->n_acts - 1].a;
    if (!(a->patch = (char *)kp__trace_dup(x, b->p, b->n))) return kp__sc_nomem(&x->d);
    a->patch_len = b->n;
    return KP_OK;
}

static kp_status on_node(kp__tctx *x, ev *e) {
    char key[600];
    snprintf(key, sizeof key, "N\x1f%s", e->name);
    kp__tstate *s = kp__trace_state(x, key);
    if (!s) return kp__sc_nomem(&x->d);
    e->kind = "Node";
    e->ns = "";
    if (e->deleted) {
        kp_status st = KP_OK;
        if (!s->gone && (s->seen || kp_cluster_find_node(x->cl, e->name) >= 0))
            st = ref_action(x, KP_ACT_DELETE, RANK_NODE, e);
        s->gone = true;
        s->seen = false;
        return st;
    }
    bool unsched = false;
    const kp_tnode *u = e->spec ? kp__tree_get(e->spec, "unschedulable") : NULL;
    if (u && u->type == KP_T_BOOL) unsched = u->b;
    const kp_tnode *rc = condition(e->status, "Ready");
    int8_t ready = rc ? (strcmp(str_of(rc, "status"), "True") == 0 ? 1 : 0) : -1;
    const char *taints = user_taints(x, e), *labels = label_lines(x, e, -1);
    if (!taints || !labels) return kp__sc_nomem(&x->d);
    kp_status st = KP_OK;
    if (!s->seen) {
        kp_index in = s->gone ? -1 : kp_cluster_find_node(x->cl, e->name);
        if (in < 0) {
            object_text(x, e->obj, true, false);
            st = kp__trace_create(x, e->obj, RANK_NODE);
        } else {
            /* cordoned (or uncordoned), labelled between the snapshot and the watch */
            if (kp_cluster_node_unschedulable(x->cl, in) != unsched)
                st = ref_action(x, unsched ? KP_ACT_CORDON : KP_ACT_UNCORDON, RANK_NODE, e);
            const char *had = st == KP_OK ? label_lines(x, e, in) : "";
            if (!had) return kp__sc_nomem(&x->d);
            if (st == KP_OK) st = label_patch(x, e, had, labels);
        }
    } else {
        kp_action_type cordon = unsched ? KP_ACT_CORDON : KP_ACT_UNCORDON;
        if (unsched != s->unsched) st = ref_action(x, cordon, RANK_NODE, e);
        if (st == KP_OK) st = taint_diff(x, e, taints, s->text, true);
        if (st == KP_OK) st = taint_diff(x, e, s->text, taints, false);
        if (st == KP_OK) st = label_patch(x, e, s->labels, labels);
        /* the kubelet stopped posting Ready, or posts it again */
        if (st == KP_OK && s->ready == 1 && ready == 0)
            st = ref_action(x, KP_ACT_FAIL, RANK_NODE, e);
        if (st == KP_OK && s->ready == 0 && ready == 1)
            st = ref_action(x, KP_ACT_RECOVER, RANK_NODE, e);
    }
    s->seen = true;
    s->gone = false;
    s->unsched = unsched;
    s->text = taints;
    s->labels = labels;
    if (ready >= 0) s->ready = ready;
    return st;
}

/* ---------------------------------------------------------------- workloads, PDBs, classes */

static bool scalable(const char *kind) {
    return strcmp(kind, "Deployment") == 0 || strcmp(kind, "ReplicaSet") == 0 ||
           strcmp(kind, "StatefulSet") == 0 || strcmp(kind, "ReplicationController") == 0;
}

/* A Deployment, ReplicaSet, ReplicationController, StatefulSet, DaemonSet, Job or CronJob, a
 * PodDisruptionBudget or a PriorityClass (in_snapshot: the snapshot has it). Workloads another
 * workload controls (a Deployment's ReplicaSets, a CronJob's Jobs) are their controller's. */
static kp_status on_object(kp__tctx *x, const ev *e, bool in_snapshot, uint32_t rank) {
    char key[600];
    snprintf(key, sizeof key, "W\x1f%s\x1f%s\x1f%s", e->kind, e->ns, e->name);
    kp__tstate *s = kp__trace_state(x, key);
    if (!s) return kp__sc_nomem(&x->d);
    bool owned = e->owner_kind[0] != 0;
    /* from then on the garbage collector may delete its pods (kp__trace_owned_deletions) */
    if ((e->deleted || kp__tree_get(e->meta, "deletionTimestamp")) && !s->has_gone_ms) {
        s->has_gone_ms = true;
        s->gone_ms = x->t_ms;
    }
    if (e->deleted) {
        kp_status st = KP_OK;
        if (owned) x->stats.controllers++;
        else if (!s->gone && (s->seen || in_snapshot)) st = ref_action(x, KP_ACT_DELETE, rank, e);
        s->gone = true;
        s->seen = false;
        return st;
    }
    bool is_pdb = strcmp(e->kind, "PodDisruptionBudget") == 0;
    bool is_class = strcmp(e->kind, "PriorityClass") == 0;
    const kp_tnode *tpl = NULL;
    if (!is_pdb && !is_class && e->spec)
        tpl = kp__tree_get(e->spec, strcmp(e->kind, "CronJob") == 0 ? "jobTemplate" : "template");
    const char *text = is_pdb ? text_of(x, e->spec) : is_class ? "" : text_of(x, tpl);
    if (!text) return kp__sc_nomem(&x->d);
    int32_t replicas = -1;
    const kp_tnode *r = e->spec ? kp__tree_get(e->spec, "replicas") : NULL;
    if (scalable(e->kind)) replicas = 1;
    if (r && r->type == KP_T_NUM && scalable(e->kind)) replicas = (int32_t)strtol(r->s, NULL, 10);
    kp_status st = KP_OK;
    if (!s->seen) {
        if (!(in_snapshot && !s->gone)) {
            if (owned) x->stats.controllers++;
            else {
                object_text(x, e->obj, false, false);
                st = kp__trace_create(x, e->obj, rank);
            }
        }
    } else if (!owned) {
        if (replicas >= 0 && replicas != s->replicas) {
            st = ref_action(x, KP_ACT_SCALE, rank, e);
            if (st == KP_OK) x->acts[x->n_acts - 1].a.replicas = replicas;
        }
        /* a changed pod template (a Deployment's rollout) or budget */
        bool patchable = is_pdb || (tpl && strcmp(e->kind, "Job") != 0);
        if (st == KP_OK && patchable && strcmp(text, s->text) != 0)
            st = patch_action(x, rank, e,
                              is_pdb                            ? NULL
                              : strcmp(e->kind, "CronJob") == 0 ? "jobTemplate"
                                                                : "template",
                              text);
    }
    s->seen = true;
    s->gone = false;
    s->replicas = replicas;
    s->text = text;
    return st;
}

/* ---------------------------------------------------------------- events */

/* An event's own time (eventTime, else lastTimestamp, else firstTimestamp): false when it has
 * none. */
static bool event_time(const ev *e, int64_t *secs, int32_t *nanos) {
    static const char *const times[] = {"eventTime", "lastTimestamp", "firstTimestamp"};
    for (size_t i = 0; i < 3; i++) {
        const char *t = str_of(e->obj, times[i]);
        if (t[0] && kp__parse_time(t, strlen(t), secs, nanos) == KP_OK) return true;
    }
    return false;
}

/* A controller's SuccessfulDelete event: the pod it deleted, by name, in the messages the
 * ReplicaSet, ReplicationController, Job and DaemonSet controllers write (RealPodControl.DeletePod:
 * "Deleted pod: NAME") and the StatefulSet controller's (recordPodEvent: "delete Pod NAME in
 * StatefulSet SET successful"). Kept as "D" keys with the event's times. */
static kp_status controller_deleted(kp__tctx *x, const ev *e, const kp_tnode *io) {
    const char *msg = str_of(e->obj, "message");
    if (!msg[0]) msg = str_of(e->obj, "note");
    const char *name = NULL;
    size_t n = 0;
    if (strncmp(msg, "Deleted pod: ", 13) == 0) {
        name = msg + 13;
        n = strcspn(name, " ");
    } else if (strncmp(msg, "delete Pod ", 11) == 0) {
        name = msg + 11;
        n = strcspn(name, " ");
    }
    if (!name || !n || n > 253) return KP_OK;
    int64_t secs = 0, t_ms = x->t_ms;
    int32_t nanos = 0;
    if (event_time(e, &secs, &nanos)) {
        if (secs < x->start) return KP_OK; /* history */
        t_ms = kp__trace_ms(x, secs, nanos);
    }
    char key[600];
    snprintf(key, sizeof key, "D\x1f%s\x1f%.*s", str_of(io, "namespace"), (int)n, name);
    kp__tstate *s = kp__trace_state(x, key);
    kp__tms *t = s ? kp__arena_alloc(&x->s->arena, sizeof *t) : NULL;
    if (!t) return kp__sc_nomem(&x->d);
    t->t_ms = t_ms;
    t->next = s->deleted_by_controller;
    s->deleted_by_controller = t;
    return KP_OK;
}

/* An Event about a pod: the scheduler's and the kubelets' decisions. Its time is its own
 * (eventTime, else lastTimestamp, else firstTimestamp); events from before the start, which the
 * watch lists first, are history. */
static kp_status on_event(kp__tctx *x, const ev *e) {
    const kp_tnode *io = kp__tree_get(e->obj, "involvedObject");
    if (!io) io = kp__tree_get(e->obj, "regarding");
    x->has_events = true;
    if (io && strcmp(str_of(e->obj, "reason"), "SuccessfulDelete") == 0)
        return controller_deleted(x, e, io);
    if (!io || strcmp(str_of(io, "kind"), "Pod") != 0) return KP_OK;
    const char *reason = str_of(e->obj, "reason");
    kp_trace_decision_kind k;
    if (strcmp(reason, "Scheduled") == 0) k = KP_TRACE_SCHEDULED;
    else if (strcmp(reason, "FailedScheduling") == 0) k = KP_TRACE_FAILED_SCHEDULING;
    else if (strcmp(reason, "Preempted") == 0) k = KP_TRACE_PREEMPTED;
    else if (strcmp(reason, "Evicted") == 0) k = KP_TRACE_EVICTED;
    else return KP_OK;
    int64_t secs = 0;
    int32_t nanos = 0;
    bool have = event_time(e, &secs, &nanos);
    int64_t t_ms = x->t_ms;
    if (have) {
        if (secs < x->start) {
            x->stats.before_start++;
            return KP_OK;
        }
        t_ms = kp__trace_ms(x, secs, nanos);
    }
    const char *msg = str_of(e->obj, "message");
    if (!msg[0]) msg = str_of(e->obj, "note");
    /* "Successfully assigned NS/NAME to NODE", "Preempted by pod UID on node NODE" */
    const char *node = "", *p = NULL;
    if (k == KP_TRACE_SCHEDULED && (p = strstr(msg, " to "))) {
        const char *q;
        while ((q = strstr(p + 4, " to "))) p = q;
        node = p + 4;
    } else if (k == KP_TRACE_PREEMPTED && (p = strstr(msg, " on node "))) {
        node = p + 9;
    }
    kp_trace_pod_key key = {0};
    const char *ns = str_of(io, "namespace"), *name = str_of(io, "name"), *uid = str_of(io, "uid");
    if (!(key.ns = kp__trace_dup(x, ns, strlen(ns))) ||
        !(key.name = kp__trace_dup(x, name, strlen(name))) ||
        !(uid = kp__trace_dup(x, uid, strlen(uid))) ||
        !(node = kp__trace_dup(x, node, strlen(node))) ||
        !(msg = kp__trace_dup(x, msg, strlen(msg))))
        return kp__sc_nomem(&x->d);
    key.owner_kind = key.owner_name = "";
    return kp__trace_decision(x, t_ms, k, uid, &key, node, msg);
}

/* ---------------------------------------------------------------- dispatch */

/* the controller ownerReference of meta (kind and name "" when none) */
static void controller_of(const kp_tnode *meta, const char **kind, const char **name) {
    *kind = *name = "";
    const kp_tnode *refs = meta ? kp__tree_get(meta, "ownerReferences") : NULL;
    if (!refs || refs->type != KP_T_ARR) return;
    for (const kp_tnode *r = refs->first; r; r = r->next) {
        const kp_tnode *c = r->type == KP_T_OBJ ? kp__tree_get(r, "controller") : NULL;
        if (c && c->type == KP_T_BOOL && c->b) {
            *kind = str_of(r, "kind");
            *name = str_of(r, "name");
            return;
        }
    }
}

kp_status kp__trace_event(kp__tctx *x, const char *type, const kp_tnode *obj) {
    ev e;
    memset(&e, 0, sizeof e);
    e.obj = obj;
    e.deleted = strcmp(type, "DELETED") == 0;
    e.added = strcmp(type, "ADDED") == 0;
    kp_status st;
    if ((st = kp__dget_str(&x->d, obj, "kind", &e.kind, NULL)) != KP_OK ||
        (st = kp__dget_obj(&x->d, obj, "metadata", &e.meta)) != KP_OK)
        return st;
    if (!e.kind || !e.kind[0]) return kp__dctx_fail(&x->d, obj, KP_EINVAL, "kind", "required");
    if (!e.meta) return kp__dctx_fail(&x->d, obj, KP_EINVAL, "metadata", "required");
    size_t saved = kp__dctx_push(&x->d, "metadata");
    e.ns = e.uid = "";
    if ((st = kp__dget_str(&x->d, e.meta, "name", &e.name, NULL)) == KP_OK &&
        (st = kp__dget_str(&x->d, e.meta, "namespace", &e.ns, NULL)) == KP_OK)
        st = kp__dget_str(&x->d, e.meta, "uid", &e.uid, NULL);
    if (st == KP_OK && (!e.name || !e.name[0]))
        st = kp__dctx_fail(&x->d, e.meta, KP_EINVAL, "name", "required");
    kp__dctx_pop(&x->d, saved);
    if (st != KP_OK) return st;
    if (!e.ns) e.ns = "";
    if (!e.uid) e.uid = "";
    /* the object's strings outlive the event in the trace's arena */
    if (!(e.kind = kp__trace_dup(x, e.kind, strlen(e.kind))) ||
        !(e.ns = kp__trace_dup(x, e.ns, strlen(e.ns))) ||
        !(e.name = kp__trace_dup(x, e.name, strlen(e.name))))
        return kp__sc_nomem(&x->d);
    size_t at = strlen(x->d.object);
    snprintf(x->d.object + at, sizeof x->d.object - at, " (%s %s%s%s)", e.kind, e.ns,
             e.ns[0] ? "/" : "", e.name);
    e.spec = kp__tree_get(obj, "spec");
    e.status = kp__tree_get(obj, "status");
    if (e.spec && e.spec->type != KP_T_OBJ) e.spec = NULL;
    if (e.status && e.status->type != KP_T_OBJ) e.status = NULL;
    const char *ok = "", *on = "";
    controller_of(e.meta, &ok, &on);
    if (!(e.owner_kind = kp__trace_dup(x, ok, strlen(ok))) ||
        !(e.owner_name = kp__trace_dup(x, on, strlen(on))))
        return kp__sc_nomem(&x->d);
    const char *k = e.kind;
    if (strcmp(k, "Pod") == 0) return on_pod(x, &e);
    if (strcmp(k, "Node") == 0) return on_node(x, &e);
    if (strcmp(k, "Event") == 0) return on_event(x, &e);
    if (strcmp(k, "PodDisruptionBudget") == 0)
        return on_object(x, &e, kp_cluster_find_pdb(x->cl, e.ns, e.name) >= 0, RANK_PDB);
    if (strcmp(k, "PriorityClass") == 0) {
        e.ns = "";
        return on_object(x, &e, kp_cluster_find_priority_class(x->cl, e.name) >= 0, RANK_CLASS);
    }
    if (strcmp(k, "Deployment") == 0 || strcmp(k, "DaemonSet") == 0 || strcmp(k, "Job") == 0 ||
        strcmp(k, "CronJob") == 0 || scalable(k)) {
        char key[600];
        snprintf(key, sizeof key, "S\x1f%s\x1f%s\x1f%s", e.kind, e.ns, e.name);
        kp__tstate *s = kp__trace_state(x, key);
        if (!s) return kp__sc_nomem(&x->d);
        return on_object(x, &e, s->in_snapshot, RANK_WORKLOAD);
    }
    return KP_OK; /* a kind the replay does not read */
}

/* How far apart a pod's deletion and the event or owner deletion that explains it may be
 * recorded: the watches are separate streams, the events' times the controllers' clocks. */
#define EXPLAINED_WITHIN_MS 60000

static bool near(int64_t a, int64_t b) {
    return a - b <= EXPLAINED_WITHIN_MS && b - a <= EXPLAINED_WITHIN_MS;
}

/* Whether the owned pod's deletion d is its controller's (or the garbage collector's): the
 * controller's SuccessfulDelete naming it, or its owner being deleted by then. A trace without
 * events cannot tell: the controller's, as before events were read. */
static bool controller_deletion(kp__tctx *x, const kp__tdel *d, bool *nomem) {
    char key[600];
    if (!x->has_events) return true;
    snprintf(key, sizeof key, "D\x1f%s\x1f%s", d->ns, d->name);
    kp__tstate *s = kp__trace_state(x, key);
    if (!s) return *nomem = true;
    for (const kp__tms *t = s->deleted_by_controller; t; t = t->next)
        if (near(t->t_ms, d->t_ms)) return true;
    snprintf(key, sizeof key, "W\x1f%s\x1f%s\x1f%s", d->owner_kind, d->ns, d->owner_name);
    if (!(s = kp__trace_state(x, key))) return *nomem = true;
    return s->has_gone_ms && s->gone_ms <= d->t_ms + EXPLAINED_WITHIN_MS;
}

kp_status kp__trace_owned_deletions(kp__tctx *x) {
    for (size_t i = 0; i < x->n_dels; i++) {
        const kp__tdel *d = &x->dels[i];
        bool nomem = false;
        if (controller_deletion(x, d, &nomem)) {
            if (nomem) return kp__sc_nomem(&x->d);
            x->stats.controllers++;
            continue;
        }
        /* a user's `kubectl delete pod`: its controller replaces it, in the run too */
        ev e;
        memset(&e, 0, sizeof e);
        e.kind = "Pod";
        e.ns = d->ns;
        e.name = d->name;
        x->t_ms = d->t_ms;
        kp_status st = delete_action(x, &e, &d->key);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* The snapshot's workloads, by kind, namespace and name (keys "S..."). */
kp_status kp__trace_snapshot_workloads(kp__tctx *x) {
    char key[600];
    for (size_t i = 0; i < kp_cluster_workload_count(x->cl); i++) {
        kp_workload_info wi;
        if (kp_cluster_workload_info(x->cl, (kp_index)i, &wi) != KP_OK || wi.deleted) continue;
        snprintf(key, sizeof key, "S\x1f%s\x1f%s\x1f%s", wi.kind, wi.ns, wi.name);
        kp__tstate *s = kp__trace_state(x, key);
        if (!s) return kp__sc_nomem(&x->d);
        s->in_snapshot = true;
    }
    return KP_OK;
}
