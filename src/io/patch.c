/* kp_cluster_patch (include/kprio/update.h): the API server's PATCH of an object with a JSON
 * merge patch (RFC 7386, `kubectl patch --type merge`). The object as it is now is written as
 * JSON by the encoders, the patch merged into it (io/merge_patch.c), the result read back by the
 * loader's decoders (kp__load_into), the update validated against the object as the API server's
 * update validation does (patch_validate.c), and the changed fields swapped in by core's one
 * update writer (core/object_update.c). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/namespace.h"
#include "core/node.h"
#include "core/object_update.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/workload.h"
#include "io/decode_common.h"
#include "io/encode_json.h"
#include "io/merge_patch.h"
#include "io/patch_validate.h"
#include "io/tree.h"
#include "io/tree_text.h"
#include "kprio/update.h"

/* The kinds an update reaches and the resource name kubectl's NotFound prints. */
typedef struct {
    const char *kind, *resource;
} kind_row;
static const kind_row KINDS[] = {{"Pod", "pods"},
                                 {"Node", "nodes"},
                                 {"PriorityClass", "priorityclasses.scheduling.k8s.io"},
                                 {"PodDisruptionBudget", "poddisruptionbudgets.policy"},
                                 {"Namespace", "namespaces"},
                                 {"Service", "services"},
                                 {"ReplicationController", "replicationcontrollers"},
                                 {"ReplicaSet", "replicasets.apps"},
                                 {"StatefulSet", "statefulsets.apps"},
                                 {"Deployment", "deployments.apps"},
                                 {"DaemonSet", "daemonsets.apps"},
                                 {"Job", "jobs.batch"},
                                 {"CronJob", "cronjobs.batch"}};

static kp_status write_tbuf(void *ctx, const char *buf, size_t len) {
    kp_tbuf *b = ctx;
    kp__tbuf_put(b, buf, len);
    return b->oom ? KP_ENOMEM : KP_OK;
}

/* The live object's index among its kind, -1 when there is none. */
static long find_live(const kp_cluster *cl, const char *kind, const char *ns, const char *name) {
    kp_str nsid = kp__intern_find(&cl->strs, ns, strlen(ns));
    kp_str nid = kp__intern_find(&cl->strs, name, strlen(name));
    if (nid == UINT32_MAX || nsid == UINT32_MAX) return -1;
    long i = kp__cluster_find_object(cl, kind, nsid, nid);
    if (i < 0) return -1;
    if (strcmp(kind, "Pod") == 0) return cl->pods[i].deleted ? -1 : i;
    if (strcmp(kind, "Node") == 0) return cl->nodes[i].deleted ? -1 : i;
    if (strcmp(kind, "PriorityClass") == 0) return cl->classes[i].deleted ? -1 : i;
    if (strcmp(kind, "PodDisruptionBudget") == 0) return cl->pdbs[i].deleted ? -1 : i;
    if (strcmp(kind, "Namespace") == 0) return i;
    return cl->workloads[i].deleted ? -1 : i;
}

/* ---------------------------------------------------------------- merge */

typedef struct {
    const char *patch;
    size_t patch_len;
    const kp_tnode *target;
    kp_tbuf *out;
} merge_ctx;

static kp_status on_patch(void *ctx, const kp_tnode *patch, const kp_tdoc *doc, kp_error *err) {
    (void)doc;
    (void)err;
    merge_ctx *m = ctx;
    kp__merge_patch(m->out, m->target, patch);
    return m->out->oom ? KP_ENOMEM : KP_OK;
}

static kp_status on_target(void *ctx, const kp_tnode *target, const kp_tdoc *doc, kp_error *err) {
    (void)doc;
    merge_ctx *m = ctx;
    m->target = target;
    return kp__tree_parse("patch", m->patch, m->patch_len, false, on_patch, m, err);
}

/* ---------------------------------------------------------------- the objects */

static void init_obj(const kp_cluster *cl, const char *kind, long i, kp__upd_obj *o) {
    memset(o, 0, sizeof *o);
    if (strcmp(kind, "Pod") == 0) {
        const kp_pod *p = &cl->pods[i];
        o->pod.ns = p->ns;
        o->pod.name = p->name;
        o->pod.creation_ts = o->pod.deletion_ts = o->pod.start_time = KP_TIME_NONE;
        o->pod.node = -1;
        o->pod.termination_grace = 30;
        o->pod.src_file = p->src_file;
        o->pod.src_index = p->src_index;
    } else if (strcmp(kind, "Node") == 0) {
        o->node.name = cl->nodes[i].name;
        o->node.creation_ts = KP_TIME_NONE;
    } else if (strcmp(kind, "PriorityClass") == 0) {
        o->pc.name = cl->classes[i].name;
    } else if (strcmp(kind, "PodDisruptionBudget") == 0) {
        o->pdb.ns = cl->pdbs[i].ns;
        o->pdb.name = cl->pdbs[i].name;
    } else if (strcmp(kind, "Namespace") == 0) {
        o->ns.name = cl->namespaces[i].name;
    } else {
        o->wl.kind = cl->workloads[i].kind;
        o->wl.ns = cl->workloads[i].ns;
        o->wl.name = cl->workloads[i].name;
    }
}

static void ident(const kp_cluster *cl, const char *kind, long i, kp_str *ns, kp_str *name) {
    *ns = 0;
    if (strcmp(kind, "Pod") == 0) *ns = cl->pods[i].ns, *name = cl->pods[i].name;
    else if (strcmp(kind, "Node") == 0) *name = cl->nodes[i].name;
    else if (strcmp(kind, "PriorityClass") == 0) *name = cl->classes[i].name;
    else if (strcmp(kind, "PodDisruptionBudget") == 0)
        *ns = cl->pdbs[i].ns, *name = cl->pdbs[i].name;
    else if (strcmp(kind, "Namespace") == 0) *name = cl->namespaces[i].name;
    else *ns = cl->workloads[i].ns, *name = cl->workloads[i].name;
}

/* kubectl's refusal of an invalid object: `The KIND "NAME" is invalid: ...` */
static kp_status invalid(kp_error *err, const char *kind, const char *name, const char *what) {
    return kp_error_set(err, KP_EINVAL, "The %s \"%s\" is invalid: %s", kind, name, what);
}

static kp_status apply(kp_cluster *cl, const char *kind, long i, const char *sub,
                       const kp__upd_obj *nw, kp_update_result *out, kp_error *err) {
    if (strcmp(kind, "Pod") == 0)
        return kp__cluster_update_pod(cl, (uint32_t)i, &nw->pod, strcmp(sub, "resize") == 0, err);
    if (strcmp(kind, "Node") == 0)
        return kp__cluster_update_node(cl, (uint32_t)i, &nw->node, strcmp(sub, "status") == 0, err);
    if (strcmp(kind, "PriorityClass") == 0)
        return kp__cluster_update_class(cl, (uint32_t)i, &nw->pc, err);
    if (strcmp(kind, "PodDisruptionBudget") == 0)
        return kp__cluster_update_pdb(cl, (uint32_t)i, &nw->pdb, err);
    if (strcmp(kind, "Namespace") == 0)
        return kp__cluster_update_namespace(cl, (uint32_t)i, &nw->ns, err);
    return kp__cluster_update_workload(cl, (uint32_t)i, &nw->wl, out->template_changed, err);
}

kp_status kp_cluster_patch(kp_cluster *cl, const char *kind, const char *ns, const char *name,
                           const char *subresource, const char *patch, size_t len,
                           kp_update_result *out, kp_error *err) {
    memset(out, 0, sizeof *out);
    out->index = -1;
    const char *sub = subresource ? subresource : "";
    const kind_row *row = NULL;
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0] && !row; k++)
        if (strcmp(KINDS[k].kind, kind) == 0) row = &KINDS[k];
    if (!row) return kp_error_set(err, KP_EINVAL, "%s: kprio cannot update this kind", kind);
    bool sub_ok = !sub[0] || (strcmp(sub, "status") == 0 && strcmp(kind, "Node") == 0) ||
                  (strcmp(sub, "resize") == 0 && strcmp(kind, "Pod") == 0);
    if (!sub_ok) /* the API server has no such subresource: kubectl's 404 */
        return kp_error_set(err, KP_ENOTFOUND,
                            "Error from server (NotFound): the server could not find the "
                            "requested resource");
    long i = find_live(cl, kind, ns ? ns : "", name);
    if (i < 0)
        return kp_error_set(err, KP_ENOTFOUND, "Error from server (NotFound): %s \"%s\" not found",
                            row->resource, name);
    out->index = i;
    kp_tbuf text = {0}, merged = {0};
    kp_status st = kp__encode_object(cl, kind, (uint32_t)i, write_tbuf, &text, err);
    bool yaml = len >= 3 && memcmp(patch, "---", 3) == 0;
    if (st == KP_OK && yaml) kp__tbuf_put(&merged, "--- ", 4); /* plain scalars as written */
    merge_ctx m = {patch, len, NULL, &merged};
    if (st == KP_OK) st = kp__tree_parse(kind, text.p, text.n, false, on_target, &m, err);
    if (st == KP_OK && merged.oom) st = kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_str nsid = 0, nid = 0;
    ident(cl, kind, i, &nsid, &nid);
    kp__upd_obj base, nw;
    init_obj(cl, kind, i, &base);
    init_obj(cl, kind, i, &nw);
    if (st == KP_OK) st = kp__load_into(cl, kind, text.p, text.n, kind, nsid, nid, &base, err);
    if (st == KP_OK) {
        kp_error e;
        kp_error_clear(&e);
        st = kp__load_into(cl, kind, merged.p, merged.n, kind, nsid, nid, &nw, &e);
        if (st == KP_EINVAL || st == KP_ESYNTAX || st == KP_ELIMIT) {
            const char *msg = e.msg, *colon = strstr(msg, ": ");
            if (colon && strncmp(msg, kind, strlen(kind)) == 0) msg = colon + 2; /* "Pod ns/x: " */
            st = invalid(err, kind, name, msg);
        } else if (st != KP_OK && err) {
            *err = e;
        }
    }
    if (st == KP_OK) {
        kp__upd_errs v;
        memset(&v, 0, sizeof v);
        st = kp__validate_update(cl, kind, sub, &base, &nw, &v, out);
        if (st == KP_OK && v.n) st = invalid(err, kind, name, kp__upd_errs_text(&v));
        else if (st != KP_OK) kp_error_set(err, st, "out of memory");
    }
    if (st == KP_OK && out->changed) st = apply(cl, kind, i, sub, &nw, out, err);
    if (st == KP_OK && strcmp(kind, "Pod") == 0 && out->resized && cl->pods[i].node >= 0)
        out->resize_pending = true;
    kp__free(text.p);
    kp__free(merged.p);
    return st;
}
