/* Node-local Filter plugins: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
 * NodePorts, NodeResourcesFit (pkg/scheduler/framework/plugins/{nodeunschedulable,nodename,
 * tainttoleration,nodeaffinity,nodeports,noderesources}). Reason strings are upstream's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sched/sched_int.h"

/* ---- NodeUnschedulable ---- */

/* mirrors NodeUnschedulable.Filter: a pod tolerating node.kubernetes.io/unschedulable:NoSchedule
 * may land on a cordoned node */
void kp__filter_node_unschedulable(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    if (!n->unschedulable) return;
    const kp_cluster *cl = c->s->cl;
    const char *k = "node.kubernetes.io/unschedulable";
    kp_taint t;
    memset(&t, 0, sizeof t);
    t.key = kp__intern_find(&cl->strs, k, strlen(k));
    t.effect = KP_EFFECT_NOSCHEDULE;
    if (t.key != UINT32_MAX && kp__tolerations_tolerate(c->p, &t)) return;
    if (t.key == UINT32_MAX) {
        /* the key string is not interned: only an empty-key Exists toleration can match */
        for (uint16_t i = 0; i < c->p->n_tolerations; i++) {
            const kp_toleration *tol = &c->p->tolerations[i];
            if (tol->key == 0 && tol->op == KP_TOL_EXISTS &&
                (tol->effect == KP_EFFECT_NONE || tol->effect == KP_EFFECT_NOSCHEDULE))
                return;
        }
    }
    st->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(st, "node(s) were unschedulable");
}

/* ---- NodeName ---- */

void kp__filter_node_name(const kp_cycle *c, uint32_t node, kp_node_status *st) {
    const kp_pod *p = c->p;
    if (!p->node_name || p->node_name == c->s->cl->nodes[node].name) return;
    st->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(st, "node(s) didn't match the requested node name");
}

/* ---- TaintToleration ---- */

/* mirrors TaintToleration.Filter: the first NoSchedule/NoExecute taint (node order) the pod does
 * not tolerate */
void kp__filter_taints(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    for (uint16_t i = 0; i < n->n_taints; i++) {
        const kp_taint *t = &n->taints[i];
        if (t->effect != KP_EFFECT_NOSCHEDULE && t->effect != KP_EFFECT_NOEXECUTE) continue;
        if (kp__tolerations_tolerate(c->p, t)) continue;
        char buf[112];
        snprintf(buf, sizeof buf, "node(s) had untolerated taint {%s: %s}", kp__s(cl, t->key), kp__s(cl, t->value));
        st->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(st, buf);
        return;
    }
}

/* ---- NodeAffinity ---- */

void kp__filter_node_affinity(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    if (kp__pod_matches_node_selector_and_affinity(c->s->cl, c->p, n)) return;
    st->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(st, "node(s) didn't match Pod's node affinity/selector");
}

static bool sreq_is_name_in(const kp_cluster *cl, const kp_selreq *r) {
    return r->op == KP_OP_IN && strcmp(kp__s(cl, r->key), "metadata.name") == 0;
}

static bool req_has_value(const kp_selreq *r, kp_str v) {
    for (uint16_t w = 0; w < r->n_values; w++)
        if (r->values[w] == v) return true;
    return false;
}

/* mirrors NodeAffinity.PreFilter: terms whose matchFields pin metadata.name In (...) narrow the
 * node set (PreFilterResult: union over terms of the intersection within a term); disjoint pins
 * make the pod unschedulable ("pod affinity terms conflict"). Names that are not nodes are
 * dropped later, as findNodesThatFitPod does. */
kp_status kp__prefilter_node_affinity(kp_cycle *c, kp_node_status *pre) {
    const kp_pod *p = c->p;
    if (!p->node_affinity || !p->node_affinity->has_required) return KP_OK;
    kp_cluster *cl = c->s->cl;
    const kp_node_affinity *na = p->node_affinity;
    /* first pass: does every term pin names? (else every node is allowed) */
    for (uint16_t t = 0; t < na->n_required; t++) {
        const kp_nsterm *term = &na->required[t];
        bool has_names = false;
        for (uint16_t f = 0; f < term->n_fields && !has_names; f++) has_names = sreq_is_name_in(cl, &term->fields[f]);
        if (!has_names) return KP_OK;
    }
    uint8_t *set = kp__calloc(cl->n_nodes + 1, 1);
    if (!set) return KP_ENOMEM;
    uint32_t n_names = 0;
    for (uint16_t t = 0; t < na->n_required; t++) {
        const kp_nsterm *term = &na->required[t];
        const kp_selreq *first = NULL;
        for (uint16_t f = 0; f < term->n_fields && !first; f++)
            if (sreq_is_name_in(cl, &term->fields[f])) first = &term->fields[f];
        for (uint16_t v = 0; v < first->n_values; v++) {
            kp_str name = first->values[v];
            bool in_all = true;
            for (uint16_t f = 0; f < term->n_fields && in_all; f++)
                if (sreq_is_name_in(cl, &term->fields[f])) in_all = req_has_value(&term->fields[f], name);
            if (!in_all) continue;
            n_names++;
            long nd = kp_cluster_find_node(cl, kp__s(cl, name));
            if (nd >= 0) set[nd] = 1;
        }
    }
    if (n_names == 0) {
        kp__free(set);
        pre->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(pre, "pod affinity terms conflict");
        return KP_OK;
    }
    c->allowed = set;
    return KP_OK;
}

/* ---- NodePorts ---- */

typedef struct {
    kp_str ip, proto;
    int32_t port;
} hport;

static bool ports_conflict(const kp_cluster *cl, const hport *used, uint32_t n_used, const kp_port *want) {
    for (uint32_t i = 0; i < n_used; i++) {
        if (used[i].port != want->host_port || used[i].proto != want->protocol) continue;
        /* mirrors HostPortInfo.CheckConflict: 0.0.0.0 conflicts with every IP */
        if (want->host_ip == cl->s_any_ip || used[i].ip == cl->s_any_ip || used[i].ip == want->host_ip)
            return true;
    }
    return false;
}

static uint32_t collect_ports(const kp_pod *p, hport *out, uint32_t n, uint32_t cap) {
    for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init; i++) {
        const kp_container *ct = &p->containers[i];
        if (ct->is_init && !ct->is_sidecar) continue;
        for (uint16_t j = 0; j < ct->n_ports && n < cap; j++) {
            out[n].ip = ct->ports[j].host_ip;
            out[n].proto = ct->ports[j].protocol;
            out[n].port = ct->ports[j].host_port;
            n++;
        }
    }
    return n;
}

/* mirrors NodePorts.Filter (fitsPorts against NodeInfo.UsedPorts) */
void kp__filter_node_ports(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    hport used[512];
    uint32_t n_used = 0;
    for (uint32_t i = 0; i < n->n_pods; i++) n_used = collect_ports(&cl->pods[n->pods[i]], used, n_used, 512);
    for (uint32_t i = 0; i < c->n_extra; i++) n_used = collect_ports(&cl->pods[c->extra[i]], used, n_used, 512);
    const kp_pod *p = c->p;
    for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init; i++) {
        const kp_container *ct = &p->containers[i];
        if (ct->is_init && !ct->is_sidecar) continue;
        for (uint16_t j = 0; j < ct->n_ports; j++) {
            if (ports_conflict(cl, used, n_used, &ct->ports[j])) {
                st->code = KP_CODE_UNSCHEDULABLE;
                kp__status_add_reason(st, "node(s) didn't have free ports for the requested pod ports");
                return;
            }
        }
    }
}

/* ---- NodeResourcesFit ---- */

bool kp__res_is_extended(const char *name) {
    /* v1helper.IsExtendedResourceName: not native (has '/', no kubernetes.io/ prefix), and not
     * "requests." prefixed */
    const char *slash = strchr(name, '/');
    if (!slash) return false;
    if (strstr(name, "kubernetes.io/") == name || strstr(name, ".kubernetes.io/") != NULL) return false;
    if (strncmp(name, "requests.", 9) == 0) return false;
    return true;
}

bool kp__res_is_scalar(const char *name) {
    /* IsScalarResourceName: extended, hugepages-*, prefixed native, attachable-volume-* */
    if (kp__res_is_extended(name)) return true;
    if (strncmp(name, "hugepages-", 10) == 0) return true;
    if (strncmp(name, "attachable-volumes-", 19) == 0) return true;
    if (strchr(name, '/') && (strstr(name, "kubernetes.io/") == name || strstr(name, ".kubernetes.io/")))
        return true;
    return false;
}

/* Appends the reason "Insufficient <resource>" (what kp__status_add_reason would store, without
 * formatting it twice: a preempting pod's Filter pass produces it for every node). */
static void add_insufficient(kp_node_status *st, const char *rn) {
    static const char prefix[] = "Insufficient ";
    if (st->n_reasons >= KP_STATUS_MAX_REASONS) return;
    char *dst = st->reasons[st->n_reasons++];
    size_t n_prefix = sizeof prefix - 1, n_rn = strlen(rn), room = sizeof st->reasons[0] - 1 - n_prefix;
    if (n_rn > room) n_rn = room;
    memcpy(dst, prefix, n_prefix);
    memcpy(dst + n_prefix, rn, n_rn);
    dst[n_prefix + n_rn] = '\0';
}

/* The per-pod part of fitsRequest: the requested resources the filter checks, in request order
 * (cpu, memory, ephemeral-storage, then scalar resources; zero requests, the pods count,
 * non-scalar unknown names and ignored extended resources are not checked). */
void kp__fit_prepare(kp_cycle *c) {
    const kp_cluster *cl = c->s->cl;
    const kp_pod *p = c->p;
    c->n_fit = 0;
    for (uint16_t i = 0; i < p->req.n && c->n_fit < KP_MAX_RES; i++) {
        int r = p->req.e[i].res;
        int64_t want = p->req.e[i].v;
        if (want <= 0 || r == KP_RES_PODS) continue;
        if (r >= KP_RES_FIXED) { /* scalar resources: hugepages, extended, ... */
            const char *rn = kp__s(cl, cl->res_names[r]);
            if (!kp__res_is_scalar(rn)) continue;
            if (kp__res_is_extended(rn) && c->s->ignored_res[r]) continue;
        }
        c->fit_res[c->n_fit] = (uint8_t)r;
        c->fit_want[c->n_fit++] = want;
    }
}

/* mirrors fitsRequest: every insufficiency is a reason; any request above allocatable makes
 * the status UnschedulableAndUnresolvable. Nominated pods of pass 1 (c->extra) count as on the
 * node. */
void kp__filter_fit(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    bool unresolvable = false;
    int64_t n_pods = n->n_pods + c->n_extra;
    if (n_pods + 1 > n->alloc[KP_RES_PODS]) kp__status_add_reason(st, "Too many pods");
    for (uint8_t i = 0; i < c->n_fit; i++) { /* the requests kp__fit_prepare selected */
        int r = c->fit_res[i];
        int64_t want = c->fit_want[i];
        int64_t used = n->requested[r];
        for (uint32_t k = 0; k < c->n_extra; k++) used += kp__resv_get(&cl->pods[c->extra[k]].req, r);
        int64_t alloc = n->alloc[r];
        if (want > alloc - used) {
            add_insufficient(st, kp__s(cl, cl->res_names[r]));
            if (want > alloc) unresolvable = true;
        }
    }
    if (st->n_reasons) st->code = unresolvable ? KP_CODE_UNRESOLVABLE : KP_CODE_UNSCHEDULABLE;
}
