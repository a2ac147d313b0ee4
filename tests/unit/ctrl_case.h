/* Shared by the controllers' unit tests (test_ctrl_*.c): a cluster from YAML text, a workload by
 * kind and name, and a recording sink (the fake pod control of upstream's controller tests:
 * what each sync created, deleted and reported). Header-only, static. */
#ifndef KP_TEST_CTRL_CASE_H
#define KP_TEST_CTRL_CASE_H

#include <stdio.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/ctrl.h"

static inline kp_cluster *cc_load(const char *text) {
    kp_error err;
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(&err);
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* the same from two texts (a C string literal has a length limit) */
static inline kp_cluster *cc_load2(const char *a, const char *b) {
    static char buf[16384];
    snprintf(buf, sizeof buf, "%s%s", a, b);
    return cc_load(buf);
}

static inline kp_index cc_workload(const kp_cluster *cl, const char *kind, const char *name) {
    for (size_t i = 0; i < kp_cluster_workload_count(cl); i++) {
        kp_workload_info w;
        if (kp_cluster_workload_info(cl, (kp_index)i, &w) == KP_OK && strcmp(w.kind, kind) == 0 &&
            strcmp(w.name, name) == 0 && !w.deleted)
            return (kp_index)i;
    }
    return -1;
}

static inline kp_index cc_pod(const kp_cluster *cl, const char *name) {
    char ref[300];
    snprintf(ref, sizeof ref, "default/%s", name);
    return kp_cluster_find_pod(cl, ref);
}

#define CC_MAX 128

/* What the controllers did, in order. */
typedef struct {
    kp_cluster *cl;
    int n_events;
    char events[CC_MAX][320]; /* "REASON MESSAGE" ("W " first for a Warning) */
    kp_index event_cause[CC_MAX];
    int n_created;
    kp_index created[CC_MAX], replaces[CC_MAX];
    int n_deleting;
    kp_index deleting[CC_MAX];
    int n_deleted;
    kp_index deleted[CC_MAX];
    int n_resync;
} cc_rec;

static inline void cc_note(cc_rec *r, const kp_ctrl_event *ev) {
    if (!ev || r->n_events >= CC_MAX) return;
    snprintf(r->events[r->n_events], sizeof r->events[0], "%s%s %s", ev->warning ? "W " : "",
             ev->reason, ev->message);
    r->event_cause[r->n_events++] = ev->cause_pod;
}

static inline kp_status cc_event(void *ctx, const kp_ctrl_event *ev, kp_error *err) {
    (void)err;
    cc_note(ctx, ev);
    return KP_OK;
}

static inline kp_status cc_created(void *ctx, kp_index pod, kp_index replaces,
                                   const kp_ctrl_event *ev, kp_error *err) {
    cc_rec *r = ctx;
    (void)err;
    cc_note(r, ev);
    if (r->n_created < CC_MAX) {
        r->replaces[r->n_created] = replaces;
        r->created[r->n_created++] = pod;
    }
    return KP_OK;
}

/* a pod on no node goes at once (the API server); a running one stays terminating */
static inline kp_status cc_deleting(void *ctx, kp_index pod, const char *cause,
                                    const kp_ctrl_event *ev, kp_error *err) {
    cc_rec *r = ctx;
    (void)cause;
    cc_note(r, ev);
    if (r->n_deleting < CC_MAX) r->deleting[r->n_deleting++] = pod;
    return kp_cluster_pod_node(r->cl, pod) < 0 ? kp_cluster_delete_pod(r->cl, pod, err) : KP_OK;
}

static inline kp_status cc_deleted(void *ctx, kp_index pod, const kp_ctrl_event *ev,
                                   kp_error *err) {
    cc_rec *r = ctx;
    cc_note(r, ev);
    if (r->n_deleted < CC_MAX) r->deleted[r->n_deleted++] = pod;
    return kp_cluster_delete_pod(r->cl, pod, err);
}

static inline kp_status cc_resync(void *ctx, int kind, kp_index obj, int64_t t_ms, kp_error *err) {
    (void)kind, (void)obj, (void)t_ms, (void)err;
    ((cc_rec *)ctx)->n_resync++;
    return KP_OK;
}

/* a fresh record and its sink */
static inline kp_ctrl_sink cc_sink(cc_rec *r, kp_cluster *cl) {
    memset(r, 0, sizeof *r);
    r->cl = cl;
    kp_ctrl_sink s = {r, cc_event, cc_created, cc_deleting, cc_deleted, cc_resync, NULL};
    return s;
}

/* the number of events whose text starts with prefix */
static inline int cc_count(const cc_rec *r, const char *prefix) {
    int n = 0;
    for (int i = 0; i < r->n_events; i++) n += strncmp(r->events[i], prefix, strlen(prefix)) == 0;
    return n;
}

/* YAML objects */
#define CC_NODE(name, extra)                                              \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name "}\n" extra \
    "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n"
/* a pod of the controller KIND/OWNER, bound to NODE ("" for none), in phase PHASE */
#define CC_POD(name, kind, owner, node, phase)                                                 \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name "\n  namespace: default\n"      \
    "  labels: {app: " owner "}\n  creationTimestamp: \"2024-01-01T00:00:00Z\"\n"              \
    "  ownerReferences: [{apiVersion: apps/v1, kind: " kind ", name: " owner ", uid: u-" owner \
    ", controller: true}]\nspec:\n  nodeName: \"" node "\"\n"                                  \
    "  containers: [{name: c, image: x, resources: {requests: {cpu: 10m}}}]\nstatus: "         \
    "{phase: " phase "}\n"
/* a workload KIND NAME (apiVersion API) with spec lines SPEC, selector and template app=NAME */
#define CC_WL(api, kind, name, spec)                                                               \
    "---\napiVersion: " api "\nkind: " kind "\nmetadata: {name: " name                             \
    ", namespace: default, uid: u-" name "}\nspec:\n" spec "  selector: {matchLabels: {app: " name \
    "}}\n  template:\n    metadata: {labels: {app: " name                                          \
    "}}\n    spec:\n      containers: [{name: c, image: x, resources: {requests: {cpu: "           \
    "10m}}}]\n"

#endif
