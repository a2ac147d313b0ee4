/* The resourceclaim controller (src/ctrl/resourceclaim.c) and the claim lifecycle of core
 * (src/core/dra_claims.c), on rows of upstream's pkg/controller/resourceclaim/controller_test.go
 * TestSyncHandler (each named below): claims made from templates with their pods, found again,
 * made again; reservations of pods gone or done dropped, allocations cleared, generated claims
 * deleted. The DRA objects are filled in directly (core/dra.h), the pods loaded from YAML. */
#include "core/cluster.h"
#include "core/dra.h"
#include "core/meta.h"
#include "core/workload_ctrl.h"
#include "ctrl_case.h"
#include "harness.h"

/* clang-format off */
#define NS "my-namespace"
#define POD(name, uid, extra)                                                                   \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: " NS ", uid: " uid \
    "}\nspec:\n  containers: [{name: c, image: x}]\n" extra
static const char *NODE = "---\napiVersion: v1\nkind: Node\nmetadata: {name: worker}\n"
                          "status: {allocatable: {cpu: '8'}}\n";
/* clang-format on */

typedef struct {
    cc_rec r;
    int changes[4]; /* per kp_ctrl_claim_change */
} rc_rec;

static kp_status rc_changed(void *ctx, kp_index claim, int change, kp_index pod, kp_error *err) {
    (void)claim, (void)pod, (void)err;
    if (change >= 0 && change < 4) ((rc_rec *)ctx)->changes[change]++;
    return KP_OK;
}

static kp_ctrl_sink rc_sink(rc_rec *r, kp_cluster *cl) {
    memset(r, 0, sizeof *r);
    kp_ctrl_sink s = cc_sink(&r->r, cl);
    s.ctx = r; /* cc_rec is rc_rec's first member */
    s.claim_changed = rc_changed;
    return s;
}

static kp_cluster *load(const char *pods) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%s", NODE, pods);
    return cc_load(buf);
}

static kp_str S(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

static kp_index pod_of(const kp_cluster *cl, const char *name) {
    char ref[200];
    snprintf(ref, sizeof ref, NS "/%s", name);
    return kp_cluster_find_pod(cl, ref);
}

/* makeTemplate(templateName, testNamespace, className), with a label in spec.metadata */
static void add_template(kp_cluster *cl) {
    kp_dra_template *t = kp__cluster_new_dra(cl, KP_DK_TEMPLATE, S(cl, NS), S(cl, "my-template"));
    kp_dra_request *rq = kp__arena_alloc(&cl->arena, sizeof *rq);
    memset(rq, 0, sizeof *rq);
    rq->name = S(cl, "req");
    rq->exactly.class_name = S(cl, "my-resource-class");
    rq->exactly.count = 1;
    t->spec.requests = rq;
    t->spec.n_requests = 1;
    KT_CHECK_INT(kp__labels_set(cl, &t->labels, "team", "ml"), KP_OK);
}

/* makePodResourceClaim(podResourceClaimName, templateName); status: the claim it names */
static void pod_claim(kp_cluster *cl, kp_index pod, const char *status) {
    kp_pod_claim *pc = kp__arena_alloc(&cl->arena, sizeof *pc);
    memset(pc, 0, sizeof *pc);
    pc->name = S(cl, "acme-resource");
    pc->template_name = S(cl, "my-template");
    if (status) {
        pc->status_claim = S(cl, status);
        pc->has_status = true;
    }
    cl->pods[pod].claims = pc;
    cl->pods[pod].n_claims = 1;
}

/* makeClaim / makeGeneratedClaim, owned by pod (-1: no owner), allocated and reserved for the
 * pods named in `reserved` (name:uid pairs) */
static uint32_t add_claim(kp_cluster *cl, const char *ns, const char *name, kp_index owner,
                          bool annotated, bool allocated, const char *const *reserved) {
    kp_dra_claim *c = kp__cluster_new_dra(cl, KP_DK_CLAIM, S(cl, ns), S(cl, name));
    c->creation_ts = c->deletion_ts = c->alloc_ts = KP_TIME_NONE;
    if (owner >= 0) {
        c->owner_kind = S(cl, "Pod");
        c->owner_name = cl->pods[owner].name;
        c->owner_uid = cl->pods[owner].uid;
    }
    if (annotated) c->pod_claim_name = S(cl, "acme-resource");
    c->allocated = allocated;
    uint16_t n = 0;
    while (reserved && reserved[n]) n++;
    c->reserved = kp__arena_alloc(&cl->arena, (n ? n : 1) * sizeof *c->reserved);
    for (uint16_t i = 0; i < n; i++) {
        char nm[100];
        const char *colon = strchr(reserved[i], ':');
        snprintf(nm, sizeof nm, "%.*s", (int)(colon - reserved[i]), reserved[i]);
        c->reserved[i] = (kp_dra_consumer){S(cl, "pods"), S(cl, nm), S(cl, colon + 1)};
    }
    c->n_reserved = n;
    c->cap_reserved = n;
    return (uint32_t)(c - cl->dra.claims);
}

static const char *status_of(const kp_cluster *cl, kp_index pod) {
    const kp_pod_claim *pc = &cl->pods[pod].claims[0];
    return pc->has_status ? kp__s(cl, pc->status_claim) : NULL;
}

static size_t live_claims(const kp_cluster *cl) {
    size_t n = 0;
    for (uint32_t i = 0; i < cl->dra.n_claims; i++) n += !cl->dra.claims[i].deleted;
    return n;
}

/* "create": the claim generated from the template, named generateName + 5 characters, owned by
 * the pod, annotated, with the template's labels; the pod's status names it */
KT_TEST(create) {
    kp_cluster *cl = load(POD("test-pod", "uidpod1", ""));
    if (!cl) return;
    add_template(cl);
    kp_index pod = pod_of(cl, "test-pod");
    pod_claim(cl, pod, NULL);
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_ctrl_set_seed(c, 7);
    rc_rec r;
    kp_ctrl_sink s = rc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_resourceclaim_pod(c, pod, 0, &s, &err), KP_OK);
    KT_CHECK_INT(cl->dra.n_claims, 1);
    KT_CHECK_INT(r.changes[KP_CTRL_CLAIM_CREATED], 1);
    const kp_dra_claim *cd = &cl->dra.claims[0];
    const char *name = kp__s(cl, cd->name);
    KT_CHECK(strncmp(name, "test-pod-acme-resource-", 23) == 0 && strlen(name) == 28);
    for (size_t i = 23; i < strlen(name); i++)
        KT_CHECK(strchr("bcdfghjklmnpqrstvwxz2456789", name[i]) != NULL);
    KT_CHECK_STR(status_of(cl, pod), name);
    KT_CHECK_STR(kp__s(cl, cd->owner_kind), "Pod");
    KT_CHECK(cd->owner_uid == cl->pods[pod].uid);
    KT_CHECK_STR(kp__s(cl, cd->pod_claim_name), "acme-resource");
    kp_str v;
    KT_CHECK(kp__labels_get(&cd->annotations, S(cl, "resource.kubernetes.io/pod-claim-name"), &v) &&
             strcmp(kp__s(cl, v), "acme-resource") == 0);
    KT_CHECK(kp__labels_get(&cd->labels, S(cl, "team"), &v) && strcmp(kp__s(cl, v), "ml") == 0);
    KT_CHECK_STR(kp__s(cl, cd->spec.requests[0].exactly.class_name), "my-resource-class");
    KT_CHECK(!cd->allocated);
    /* the public view */
    kp_claim_info ci;
    KT_CHECK_INT(kp_cluster_claim_info(cl, 0, &ci), KP_OK);
    KT_CHECK_STR(ci.device_class, "my-resource-class");
    KT_CHECK_STR(ci.owner_pod, "test-pod");
    KT_CHECK_INT(kp_cluster_pod_claim(cl, pod, 0), 0);
    /* "nop": synced again, nothing more */
    KT_CHECK_INT(kp_ctrl_resourceclaim_pod(c, pod, 0, &s, &err), KP_OK);
    KT_CHECK_INT(cl->dra.n_claims, 1);
    /* the same seed names the same claim */
    kp_cluster *cl2 = load(POD("test-pod", "uidpod1", ""));
    add_template(cl2);
    pod_claim(cl2, pod, NULL);
    size_t made = 0;
    KT_CHECK_INT(kp_ctrl_resourceclaim_create_all(cl2, 7, 0, &made, &err), KP_OK);
    KT_CHECK_INT(made, 1);
    KT_CHECK_STR(kp__s(cl2, cl2->dra.claims[0].name), name);
    kp_cluster_free(cl2);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* pods of a snapshot without uids: each gets its own claim (IsForPod compares the name too) */
KT_TEST(no_uids) {
    kp_cluster *cl = load("---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: " NS
                          "}\nspec:\n  containers: [{name: c, image: x}]\n"
                          "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: " NS
                          "}\nspec:\n  containers: [{name: c, image: x}]\n");
    if (!cl) return;
    add_template(cl);
    kp_index a = pod_of(cl, "a"), b = pod_of(cl, "b");
    pod_claim(cl, a, NULL);
    pod_claim(cl, b, NULL);
    size_t made = 0;
    kp_error err;
    KT_CHECK_INT(kp_ctrl_resourceclaim_create_all(cl, 0, 0, &made, &err), KP_OK);
    KT_CHECK_INT(made, 2);
    KT_CHECK(kp_cluster_pod_claim(cl, a, 0) != kp_cluster_pod_claim(cl, b, 0));
    kp_cluster_free(cl);
}

/* "recreate": the status names a claim that is gone: a new one is made */
KT_TEST(recreate) {
    kp_cluster *cl = load(POD("test-pod", "uidpod1", ""));
    if (!cl) return;
    add_template(cl);
    kp_index pod = pod_of(cl, "test-pod");
    pod_claim(cl, pod, "test-pod-acme-resource-1");
    kp_ctrl *c = kp_ctrl_new(cl);
    rc_rec r;
    kp_ctrl_sink s = rc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_resourceclaim_pod(c, pod, 0, &s, &err), KP_OK);
    KT_CHECK_INT(live_claims(cl), 1);
    KT_CHECK_INT(r.changes[KP_CTRL_CLAIM_CREATED], 1);
    KT_CHECK(strcmp(status_of(cl, pod), "test-pod-acme-resource-1") != 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* "missing-template": FailedResourceClaimCreation, no claim */
KT_TEST(missing_template) {
    kp_cluster *cl = load(POD("test-pod", "uidpod1", ""));
    if (!cl) return;
    kp_index pod = pod_of(cl, "test-pod");
    pod_claim(cl, pod, NULL);
    kp_ctrl *c = kp_ctrl_new(cl);
    rc_rec r;
    kp_ctrl_sink s = rc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_resourceclaim_pod(c, pod, 0, &s, &err), KP_OK);
    KT_CHECK_INT(cl->dra.n_claims, 0);
    KT_CHECK_INT(r.r.n_events, 1);
    KT_CHECK_STR(r.r.events[0],
                 "W FailedResourceClaimCreation PodResourceClaim acme-resource: resource claim "
                 "template \"my-template\": resourceclaimtemplate.resource.k8s.io \"my-template\" "
                 "not found");
    KT_CHECK(status_of(cl, pod) == NULL);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* "find-existing-claim-by-label" and "find-existing-claim-by-name": a claim owned by the pod (the
 * annotation; or the name of Kubernetes <= 1.27) completes the status, nothing is made;
 * "create-with-other-claim": one of that name in another namespace does not count */
KT_TEST(find_existing) {
    for (int by_name = 0; by_name < 2; by_name++) {
        kp_cluster *cl = load(POD("test-pod", "uidpod1", ""));
        if (!cl) return;
        add_template(cl);
        kp_index pod = pod_of(cl, "test-pod");
        pod_claim(cl, pod, NULL);
        add_claim(cl, NS, by_name ? "test-pod-acme-resource" : "test-pod-acme-resource-1", pod,
                  !by_name, false, NULL);
        kp_ctrl *c = kp_ctrl_new(cl);
        rc_rec r;
        kp_ctrl_sink s = rc_sink(&r, cl);
        kp_error err;
        KT_CHECK_INT(kp_ctrl_resourceclaim_start(c, 0, &s, &err), KP_OK);
        KT_CHECK_INT(cl->dra.n_claims, 1);
        KT_CHECK_INT(r.changes[KP_CTRL_CLAIM_CREATED], 0);
        KT_CHECK_STR(status_of(cl, pod),
                     by_name ? "test-pod-acme-resource" : "test-pod-acme-resource-1");
        kp_ctrl_free(c);
        kp_cluster_free(cl);
    }
    kp_cluster *cl = load(POD("test-pod", "uidpod1", ""));
    if (!cl) return;
    add_template(cl);
    kp_index pod = pod_of(cl, "test-pod");
    pod_claim(cl, pod, NULL);
    add_claim(cl, "not-my-namespace", "test-pod-acme-resource", -1, false, false, NULL);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_resourceclaim_create_all(cl, 0, 0, NULL, &err), KP_OK);
    KT_CHECK_INT(cl->dra.n_claims, 2);
    KT_CHECK_STR(status_of(cl, pod), kp__s(cl, cl->dra.claims[1].name));
    kp_cluster_free(cl);
}

/* "pod-deleted" (a deletionTimestamp) and "no-volumes" (no spec.resourceClaims): nothing */
KT_TEST(nothing_to_do) {
    kp_cluster *cl =
        load(POD("test-pod", "uidpod1", "") POD("deleted", "uid2", "") POD("plain", "uid3", ""));
    if (!cl) return;
    add_template(cl);
    kp_index pod = pod_of(cl, "deleted");
    pod_claim(cl, pod, NULL);
    cl->pods[pod].deletion_ts = 1;
    kp_ctrl *c = kp_ctrl_new(cl);
    rc_rec r;
    kp_ctrl_sink s = rc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_resourceclaim_pod(c, pod, 0, &s, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_resourceclaim_pod(c, pod_of(cl, "plain"), 0, &s, &err), KP_OK);
    KT_CHECK_INT(cl->dra.n_claims, 0);
    KT_CHECK_INT(r.r.n_events, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

static const char *const RES_POD[] = {"test-pod:uidpod1", NULL};
static const char *const RES_TWICE[] = {"test-pod:uidpod1", "test-pod-II:uidpod1-II", NULL};

/* "stay-reserved-seen": the pod that reserved the claim exists: kept. "remove-reserved": the
 * entry of a pod that is gone is dropped, the allocation kept while another remains
 * ("dont-clear-reserved-delayed-allocation-structured") */
KT_TEST(reservations) {
    kp_cluster *cl = load(POD("test-pod", "uidpod1", ""));
    if (!cl) return;
    kp_index pod = pod_of(cl, "test-pod");
    pod_claim(cl, pod, "test-pod-acme-resource");
    uint32_t a = add_claim(cl, NS, "test-pod-acme-resource", pod, false, true, RES_TWICE);
    kp_ctrl *c = kp_ctrl_new(cl);
    rc_rec r;
    kp_ctrl_sink s = rc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_resourceclaim_start(c, 0, &s, &err), KP_OK);
    const kp_dra_claim *cd = &cl->dra.claims[a];
    KT_CHECK_INT(cd->n_reserved, 1);
    KT_CHECK_STR(kp__s(cl, cd->reserved[0].name), "test-pod");
    KT_CHECK(cd->allocated && !cd->deleted);
    KT_CHECK_INT(r.changes[KP_CTRL_CLAIM_UNRESERVED], 1);
    KT_CHECK_INT(r.changes[KP_CTRL_CLAIM_DEALLOCATED], 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* "clear-reserved-delayed-allocation-structured": the pod is gone: its reservation dropped, the
 * allocation cleared; the garbage collector then deletes the claim it owned.
 * "clear-reserved-when-done-delayed-allocation": a pod that succeeded, a claim it does not own:
 * reservation dropped and allocation cleared, the claim stays. "delete-claim-when-done": a claim
 * generated for a pod that succeeded is deleted. */
KT_TEST(release) {
    kp_cluster *cl = load(POD("test-pod", "uidpod1", "") POD("done", "uid-done", "")
                              POD("done2", "uid-done2", ""));
    if (!cl) return;
    kp_index pod = pod_of(cl, "test-pod"), done = pod_of(cl, "done"), done2 = pod_of(cl, "done2");
    static const char *const RES_DONE[] = {"done:uid-done", NULL};
    static const char *const RES_DONE2[] = {"done2:uid-done2", NULL};
    uint32_t a = add_claim(cl, NS, "test-pod-acme-resource", pod, true, true, RES_POD);
    uint32_t b = add_claim(cl, NS, "shared", -1, false, true, RES_DONE);
    uint32_t g = add_claim(cl, NS, "done2-acme-resource-x", done2, true, true, RES_DONE2);
    pod_claim(cl, pod, "test-pod-acme-resource");
    pod_claim(cl, done2, "done2-acme-resource-x");
    kp_ctrl *c = kp_ctrl_new(cl);
    rc_rec r;
    kp_ctrl_sink s = rc_sink(&r, cl);
    kp_error err;
    /* the pod goes (a tombstone: its name is no longer found) */
    KT_CHECK_INT(kp_cluster_delete_pod(cl, pod, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_resourceclaim_pod(c, pod, 0, &s, &err), KP_OK);
    KT_CHECK(cl->dra.claims[a].deleted && !cl->dra.claims[a].allocated);
    KT_CHECK_INT(r.changes[KP_CTRL_CLAIM_DEALLOCATED], 1);
    KT_CHECK_INT(r.changes[KP_CTRL_CLAIM_DELETED], 1);
    KT_CHECK_INT(kp_cluster_pod_claim(cl, pod, 0), -1);
    /* pods that succeeded */
    kp_cluster_pod_set_running(cl, done, 0, NULL);
    KT_CHECK_INT(kp_cluster_finish_pod(cl, done, KP_POD_PHASE_SUCCEEDED, NULL, NULL, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finish_pod(cl, done2, KP_POD_PHASE_SUCCEEDED, NULL, NULL, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_resourceclaim_start(c, 0, &s, &err), KP_OK);
    KT_CHECK(!cl->dra.claims[b].allocated && !cl->dra.claims[b].deleted);
    KT_CHECK_INT(cl->dra.claims[b].n_reserved, 0);
    KT_CHECK(cl->dra.claims[g].deleted);
    KT_CHECK_INT(live_claims(cl), 1);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* "add-reserved": a pod bound to its node already whose generated claim is allocated: reserved
 * for it */
KT_TEST(add_reserved) {
    kp_cluster *cl = load(POD("test-pod", "uidpod1", "  nodeName: worker\n"));
    if (!cl) return;
    add_template(cl);
    kp_index pod = pod_of(cl, "test-pod");
    uint32_t a = add_claim(cl, NS, "test-pod-acme-resource-1", pod, true, true, NULL);
    pod_claim(cl, pod, "test-pod-acme-resource-1");
    kp_ctrl *c = kp_ctrl_new(cl);
    rc_rec r;
    kp_ctrl_sink s = rc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_resourceclaim_pod(c, pod, 0, &s, &err), KP_OK);
    KT_CHECK_INT(cl->dra.claims[a].n_reserved, 1);
    KT_CHECK(cl->dra.claims[a].reserved[0].uid == cl->pods[pod].uid);
    KT_CHECK_INT(cl->dra.n_claims, 1);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* the generateName base (Controller.handleClaim): "<pod>-<podClaim>-" up to 57 bytes; past that
 * both cut in proportion, joined without a trailing "-" */
KT_TEST(generate_base) {
    char out[128];
    kp__dra_claim_generate_base("test-pod", "acme-resource", out, sizeof out);
    KT_CHECK_STR(out, "test-pod-acme-resource-");
    const char *pod = "a-very-long-pod-name-0123456789-0123456789-0123456789"; /* 53 */
    kp__dra_claim_generate_base(pod, "gpu-claim", out, sizeof out); /* 53 + 9 + 2 = 64 */
    /* 53 * 57 / 64 = 47, 9 * 57 / 64 = 8 */
    KT_CHECK_STR(out, "a-very-long-pod-name-0123456789-0123456789-0123-gpu-clai");
    KT_CHECK(strlen(out) <= 57);
}

/* core's writes refuse what the API server refuses */
KT_TEST(core_writes) {
    kp_cluster *cl = load(POD("test-pod", "uidpod1", ""));
    if (!cl) return;
    kp_index pod = pod_of(cl, "test-pod");
    uint32_t a = add_claim(cl, NS, "c", -1, false, true, RES_POD);
    KT_CHECK_INT(kp__dra_claim_deallocate(cl, a), KP_EINVAL); /* still reserved */
    uint64_t gen = cl->dra.gen_claims;
    KT_CHECK_INT(kp__dra_claim_unreserve(cl, a, (uint32_t)pod), KP_OK);
    KT_CHECK_INT(cl->dra.claims[a].n_reserved, 0);
    KT_CHECK(cl->dra.gen_claims > gen);
    KT_CHECK_INT(kp__dra_claim_unreserve(cl, a, (uint32_t)pod), KP_OK); /* absent: no-op */
    KT_CHECK_INT(kp__dra_claim_deallocate(cl, a), KP_OK);
    KT_CHECK(!cl->dra.claims[a].allocated);
    KT_CHECK_INT(kp__dra_claim_delete(cl, a), KP_OK);
    KT_CHECK(kp__cluster_find_dra(cl, KP_DK_CLAIM, S(cl, NS), S(cl, "c")) < 0);
    KT_CHECK_INT(kp__dra_claim_delete(cl, 99), KP_EINVAL);
    pod_claim(cl, pod, NULL);
    uint32_t out;
    KT_CHECK_INT(kp__dra_claim_create(cl, (uint32_t)pod, 0, "x", 0, &out), KP_ENOTFOUND);
    KT_CHECK_INT(kp__dra_claim_create(cl, (uint32_t)pod, 1, "x", 0, &out), KP_EINVAL);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(create), KT_CASE(no_uids), KT_CASE(recreate), KT_CASE(missing_template),
        KT_CASE(find_existing), KT_CASE(nothing_to_do), KT_CASE(reservations), KT_CASE(release),
        KT_CASE(add_reserved), KT_CASE(generate_base), KT_CASE(core_writes))
