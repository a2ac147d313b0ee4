/* The `patch` action of a Scenario (docs/scenario.md "patch"): the object it updates (kind,
 * namespace, name), the subresource and the JSON merge patch, checked for what is wrong whatever
 * the cluster holds then (a kind kprio does not update, a subresource the kind does not have, a
 * patch that is not an object or renames the object, a part of the patch the API server would
 * drop); the patch is kept as text for kp_cluster_patch (include/kprio/update.h). */
#include <string.h>

#include "io/decode_common.h"
#include "io/decode_scenario.h"
#include "io/tree_text.h"

static const char *const KINDS[] = {"Pod",
                                    "Node",
                                    "PriorityClass",
                                    "PodDisruptionBudget",
                                    "Namespace",
                                    "Service",
                                    "ReplicationController",
                                    "ReplicaSet",
                                    "StatefulSet",
                                    "Deployment",
                                    "DaemonSet",
                                    "Job",
                                    "CronJob",
                                    NULL};

static bool cluster_scoped(const char *kind) {
    return strcmp(kind, "Node") == 0 || strcmp(kind, "PriorityClass") == 0 ||
           strcmp(kind, "Namespace") == 0;
}

/* The patch's member `key` when it is there (and not null: a null removes nothing there). */
static const kp_tnode *member(const kp_tnode *obj, const char *key) {
    const kp_tnode *n = obj && obj->type == KP_T_OBJ ? kp__tree_get(obj, key) : NULL;
    return n && n->type != KP_T_NULL ? n : NULL;
}

/* What the API server keeps of the object whatever the patch says: its kind, name and
 * namespace (a patch may repeat them), and the parts a subresource drops. */
static kp_status check_patch(kp_dctx *d, const kp_tnode *p, const kp_scenario_action *a) {
    const kp_tnode *k = member(p, "kind");
    if (k && !(k->type == KP_T_STR && strcmp(k->s, a->ref.kind) == 0))
        return kp__dctx_fail(d, k, KP_EINVAL, "patch.kind", "may not be changed");
    const kp_tnode *meta = member(p, "metadata");
    const kp_tnode *nm = member(meta, "name"), *ns = member(meta, "namespace");
    if (nm && !(nm->type == KP_T_STR && strcmp(nm->s, a->ref.name) == 0))
        return kp__dctx_fail(d, nm, KP_EINVAL, "patch.metadata.name",
                             "may not be changed (the object is named by `name`)");
    if (ns && !(ns->type == KP_T_STR && strcmp(ns->s, a->ref.ns) == 0))
        return kp__dctx_fail(d, ns, KP_EINVAL, "patch.metadata.namespace",
                             "may not be changed (the object is named by `namespace`)");
    const char *sub = a->subresource;
    if (strcmp(a->ref.kind, "Node") == 0 && !sub[0] && member(p, "status"))
        return kp__dctx_fail(d, member(p, "status"), KP_EINVAL, "patch.status",
                             "the API server drops a node's status from a patch of the node "
                             "itself: patch it with subresource: status (kubectl patch "
                             "--subresource status)");
    if (strcmp(sub, "status") == 0 && (member(p, "spec") || member(p, "metadata")))
        return kp__dctx_fail(d, member(p, "spec") ? member(p, "spec") : member(p, "metadata"),
                             KP_EINVAL, member(p, "spec") ? "patch.spec" : "patch.metadata",
                             "the status subresource changes the status only (the API server "
                             "drops the rest)");
    if (strcmp(sub, "resize") == 0) {
        const kp_tnode *spec = member(p, "spec");
        if (!member(spec, "containers") && !member(spec, "initContainers"))
            return kp__dctx_fail(d, p, KP_EINVAL, "patch",
                                 "the resize subresource changes spec.containers[*].resources "
                                 "only: the patch has no spec.containers");
    }
    return KP_OK;
}

kp_status kp__sc_decode_patch(kp_dctx *d, scen *s, const kp_tnode *body, bool yaml,
                              kp_tbuf *scratch, kp_scenario_action *a) {
    static const char *const keys[] = {"kind", "namespace", "name", "subresource", "patch", NULL};
    kp_status st;
    if ((st = kp__sc_only_keys(d, body, keys)) != KP_OK ||
        (st = kp__sc_req_str(d, s, body, "kind", &a->ref.kind)) != KP_OK ||
        (st = kp__sc_req_str(d, s, body, "name", &a->ref.name)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, body, "namespace", &a->ref.ns)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, body, "subresource", &a->subresource)) != KP_OK)
        return st;
    bool known = false;
    for (int i = 0; KINDS[i] && !known; i++) known = strcmp(KINDS[i], a->ref.kind) == 0;
    if (!known)
        return kp__dctx_fail(d, kp__tree_get(body, "kind"), KP_EINVAL, "kind",
                             "Unsupported value: \"%s\": kprio updates Pod, Node, PriorityClass, "
                             "PodDisruptionBudget, Namespace, Service, ReplicationController, "
                             "ReplicaSet, StatefulSet, Deployment, DaemonSet, Job and CronJob",
                             a->ref.kind);
    if (cluster_scoped(a->ref.kind) && a->ref.ns[0])
        return kp__dctx_fail(d, kp__tree_get(body, "namespace"), KP_EINVAL, "namespace",
                             "a %s has no namespace", a->ref.kind);
    if (!cluster_scoped(a->ref.kind) && !a->ref.ns[0] &&
        !(a->ref.ns = kp__sc_sdup(s, "default", 7)))
        return kp__sc_nomem(d);
    const char *sub = a->subresource;
    if (sub[0] && !(strcmp(sub, "status") == 0 && strcmp(a->ref.kind, "Node") == 0) &&
        !(strcmp(sub, "resize") == 0 && strcmp(a->ref.kind, "Pod") == 0))
        return kp__dctx_fail(d, kp__tree_get(body, "subresource"), KP_EINVAL, "subresource",
                             "Unsupported value: \"%s\": a Node has \"status\", a Pod \"resize\"",
                             sub);
    const kp_tnode *p = kp__tree_get(body, "patch");
    if (!p || p->type == KP_T_NULL)
        return kp__dctx_fail(d, body, KP_EINVAL, "patch", "required value");
    if (p->type != KP_T_OBJ)
        return kp__dctx_fail(d, p, KP_EINVAL, "patch",
                             "expected an object (a JSON merge patch, RFC 7386)");
    if ((st = check_patch(d, p, a)) != KP_OK) return st;
    scratch->n = 0;
    if (yaml) kp__tbuf_put(scratch, "--- ", 4); /* read as YAML, plain scalars and all */
    kp__tree_text(scratch, p);
    kp__tbuf_put(scratch, "\n", 1);
    if (scratch->oom) return kp__sc_nomem(d);
    a->patch = kp__sc_sdup(s, scratch->p, scratch->n);
    a->patch_len = scratch->n;
    return a->patch ? KP_OK : kp__sc_nomem(d);
}
