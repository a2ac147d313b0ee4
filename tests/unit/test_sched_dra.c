/* DynamicResources and the structured allocator: rows of upstream's
 * pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go (TestPlugin: each
 * test names its row) and staging/src/k8s.io/dynamic-resource-allocation/structured/internal/
 * allocatortesting/allocator_testing.go (TestAllocator), with the DRA objects filled in directly
 * (core/dra.h), and the scheduler's answers for a cluster with devices: pending with upstream's
 * message, bound with the claim allocated and reserved, preemption on cpu where the claims fit
 * and none for a device. */
#include "core/cluster.h"
#include "core/dra.h"
#include "sched/plugins/dynamic_resources.h"
#include "test_sched_util.h"

#define NODE(name, cpu)                                                                       \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {zone: " name "}}\n" \
    "status: {allocatable: {cpu: \"" cpu "\", memory: 8Gi, pods: \"110\"}}\n"
#define POD(name, spec)                                                                         \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default, uid: " name \
    "-uid}\nspec: " spec "\n"
#define CT(cpu) "{name: c, resources: {requests: {cpu: \"" cpu "\"}}}"

/* ---- the DRA objects, in static storage (given back before the cluster is freed) ---- */

enum { MAXO = 8, MAXD = 8 };
typedef struct {
    kp_dra_class classes[MAXO];
    kp_dra_slice slices[MAXO];
    kp_dra_device devs[MAXO][MAXD];
    kp_dra_claim claims[MAXO];
    kp_dra_request reqs[MAXO][2];
    kp_dra_exact subs[MAXO][2];
    kp_dra_result results[MAXO][MAXD];
    kp_dra_consumer reserved[MAXO][2];
    kp_pod_claim pclaims[MAXO];
    kp_dra_constraint cons[MAXO];
    kp_taint taints[MAXO];
    kp_toleration tols[MAXO];
    kp_dra_attr attrs[MAXO][MAXD];
} td_store;
static td_store T;

static kp_str S(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

static void td_reset(kp_cluster *cl) {
    memset(&T, 0, sizeof T);
    memset(&cl->dra, 0, sizeof cl->dra);
    cl->dra.classes = T.classes;
    cl->dra.slices = T.slices;
    cl->dra.claims = T.claims;
}

static void td_done(kp_cluster *cl) {
    for (uint32_t i = 0; i < cl->n_pods; i++) { /* claims arrays are the test's */
        cl->pods[i].claims = NULL;
        cl->pods[i].n_claims = 0;
    }
    memset(&cl->dra, 0, sizeof cl->dra);
}

static void td_class(kp_cluster *cl, const char *name) {
    T.classes[cl->dra.n_classes++].name = S(cl, name);
}

/* a slice of n devices "dev-<i>" of driver "driver.example.com", pool = node (or pool) */
static kp_dra_slice *td_slice(kp_cluster *cl, const char *node, const char *pool, uint32_t n,
                              int64_t gen, int64_t count) {
    uint32_t k = cl->dra.n_slices++;
    kp_dra_slice *s = &T.slices[k];
    s->name = S(cl, pool);
    s->driver = S(cl, "driver.example.com");
    s->pool = S(cl, pool);
    s->generation = gen;
    s->slice_count = count;
    if (node) s->nodes.node_name = S(cl, node);
    else s->nodes.all_nodes = true;
    s->devices = T.devs[k];
    s->n_devices = n;
    for (uint32_t i = 0; i < n; i++) {
        char b[16];
        snprintf(b, sizeof b, "dev-%u", i);
        T.devs[k][i].name = S(cl, b);
    }
    return s;
}

/* a claim with one `exactly` request "req-1" of count devices of class cls */
static kp_dra_claim *td_claim(kp_cluster *cl, const char *name, const char *cls, int64_t count,
                              kp_dra_mode mode) {
    uint32_t k = cl->dra.n_claims++;
    kp_dra_claim *c = &T.claims[k];
    c->ns = S(cl, "default");
    c->name = S(cl, name);
    c->uid = S(cl, name);
    c->creation_ts = c->deletion_ts = c->alloc_ts = KP_TIME_NONE;
    c->spec.requests = T.reqs[k];
    c->spec.n_requests = 1;
    kp_dra_request *r = &T.reqs[k][0];
    r->name = S(cl, "req-1");
    r->exactly.class_name = S(cl, cls);
    r->exactly.count = count;
    r->exactly.mode = (uint8_t)mode;
    c->results = T.results[k];
    c->reserved = T.reserved[k];
    c->cap_reserved = 2;
    return c;
}

/* the claim allocated device dev of pool, reserved by pod (NULL: nobody) */
static void td_allocated(kp_cluster *cl, kp_dra_claim *c, const char *pool, const char *dev,
                         const char *pod) {
    c->allocated = true;
    c->n_results = 1;
    c->results[0].request = S(cl, "req-1");
    c->results[0].driver = S(cl, "driver.example.com");
    c->results[0].pool = S(cl, pool);
    c->results[0].device = S(cl, dev);
    if (pod) {
        c->reserved[0].resource = S(cl, "pods");
        c->reserved[0].name = S(cl, pod);
        char b[64];
        snprintf(b, sizeof b, "%s-uid", pod);
        c->reserved[0].uid = S(cl, b);
        c->n_reserved = 1;
    }
}

static void td_pod_claims(kp_cluster *cl, const char *pod, const char *claim) {
    long p = kp_cluster_find_pod(cl, pod);
    KT_CHECK(p >= 0);
    static uint32_t used;
    if (cl->dra.n_claims <= 1) used = 0;
    kp_pod_claim *pc = &T.pclaims[used++ % MAXO];
    pc->name = S(cl, "my-resource");
    pc->claim_name = S(cl, claim);
    cl->pods[p].claims = pc;
    cl->pods[p].n_claims = 1;
}

/* the Filter status of pod on node, and the PostFilter text */
static kp_node_status td_filter(kp_sched *s, const char *pod, const char *node, char *post,
                                size_t cap) {
    kp_node_status st;
    kp__status_reset(&st);
    long p = kp_cluster_find_pod(s->cl, pod), n = kp_cluster_find_node(s->cl, node);
    kp_node_status pre;
    kp_cycle *c = kp__cycle_new(s, (uint32_t)p, &pre);
    KT_CHECK(c != NULL);
    if (!c) return st;
    if (pre.code != KP_CODE_SUCCESS) st = pre;
    else kp__cycle_filter(c, (uint32_t)n, &st);
    snprintf(post, cap, "%s", kp__dra_postfilter(c));
    /* the reasons may be the cycle's: keep a copy of the first in post's tail */
    static char first[512];
    snprintf(first, sizeof first, "%s", st.n_reasons ? st.reasons[0] : "");
    if (st.n_reasons) st.reasons[0] = first;
    kp__cycle_free(c);
    return st;
}

static const char *ONE_NODE =
    NODE("worker", "4") POD("my-pod", "{priority: 100, containers: [" CT("1") "]}")
        POD("other", "{nodeName: worker, priority: 0, containers: [" CT("1") "]}");

#define SETUP(cluster)                 \
    kp_cluster *cl = ts_load(cluster); \
    KT_CHECK(cl != NULL);              \
    if (!cl) return;                   \
    td_reset(cl)

#define TEARDOWN()    \
    kp_sched_free(s); \
    td_done(cl);      \
    kp_cluster_free(cl)

/* TestPlugin "no-resources": a pending claim, its class, no slice */
KT_TEST(dra_no_resources_cannot_allocate) {
    SETUP(ONE_NODE);
    td_class(cl, "my-resource-class");
    td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    char post[128];
    kp_node_status st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "cannot allocate all claims");
    KT_CHECK_STR(post, "still not schedulable");
    TEARDOWN();
}

/* TestPlugin "missing-class": PreFilter rejects; PostFilter finds no claims */
KT_TEST(dra_missing_class) {
    SETUP(ONE_NODE);
    td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    char post[128];
    kp_node_status st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "request req-1: device class my-resource-class does not exist");
    KT_CHECK_STR(post, "no new claims to deallocate");
    TEARDOWN();
}

/* TestPlugin "claim-missing" / "waiting-for-claim" (resourceclaim.Name: a template's claim not
 * created yet) */
KT_TEST(dra_claim_missing_and_not_created) {
    SETUP(ONE_NODE);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    char post[128];
    kp_node_status st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "could not find ResourceClaim \"default/my-pod-my-resource\"");
    long p = kp_cluster_find_pod(cl, "default/my-pod");
    kp_pod_claim *pc = &T.pclaims[0];
    cl->pods[p].claims = pc;
    pc->claim_name = 0;
    pc->template_name = S(cl, "my-template");
    st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_STR(st.reasons[0], "pod \"default/my-pod\": ResourceClaim not created yet");
    pc->has_status = true; /* status names no claim: nothing needed, Filter skipped */
    st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
    KT_CHECK_STR(post, "no new claims to deallocate");
    TEARDOWN();
}

/* TestPlugin "with-resources": allocated at bind with the node's device, reserved for the pod,
 * the allocation pinned to the node (createNodeSelector) */
KT_TEST(dra_with_resources_bound_allocated_reserved) {
    SETUP(ONE_NODE);
    td_class(cl, "my-resource-class");
    td_slice(cl, "worker", "worker", 1, 1, 1);
    kp_dra_claim *c = td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_STR(ts_node_of(s, "default/my-pod"), "worker");
    KT_CHECK(c->allocated);
    KT_CHECK_INT(c->n_results, 1);
    KT_CHECK_STR(kp__s(cl, c->results[0].device), "dev-0");
    KT_CHECK_STR(kp__s(cl, c->results[0].request), "req-1");
    KT_CHECK(c->alloc_has_nodes && c->alloc_nodes.node_name == S(cl, "worker"));
    KT_CHECK_INT(c->n_reserved, 1);
    KT_CHECK(c->reserved[0].uid == S(cl, "my-pod-uid"));
    TEARDOWN();
}

/* TestPlugin "exhausted-resources": the only device is allocated to another claim; the holder
 * is not preempted (no DRA preemption in v1.37) */
KT_TEST(dra_exhausted_resources_pending_no_preemption) {
    SETUP(ONE_NODE);
    td_class(cl, "my-resource-class");
    td_slice(cl, "worker", "worker", 1, 1, 1);
    td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    kp_dra_claim *o = td_claim(cl, "other-claim", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    td_allocated(cl, o, "worker", "dev-0", "other");
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "default/my-pod");
    KT_CHECK(r && r->outcome == KP_OUTCOME_UNSCHEDULABLE && r->n_victims == 0);
    if (r)
        KT_CHECK_STR(r->message,
                     "0/1 nodes are available: 1 cannot allocate all claims. still not "
                     "schedulable, preemption: 0/1 nodes are available: 1 Preemption is not "
                     "helpful for scheduling.");
    /* isSchedulableAfterClaimChange: another claim deallocated queues the pod, an unrelated
     * claim's change does not, its own claim's change does; a slice added queues it */
    kp_index pod = kp_cluster_find_pod(cl, "default/my-pod");
    kp_sched_event ev = {.kind = KP_SCHED_EV_CLAIM_CHANGE, .node = -1, .pod = -1, .object = 1};
    KT_CHECK_INT(kp_sched_queueing_hint(s, pod, &ev), KP_HINT_SKIP);
    ev.deallocated = true;
    KT_CHECK_INT(kp_sched_queueing_hint(s, pod, &ev), KP_HINT_QUEUE);
    ev.deallocated = false;
    ev.object = 0;
    KT_CHECK_INT(kp_sched_queueing_hint(s, pod, &ev), KP_HINT_QUEUE);
    ev = (kp_sched_event){.kind = KP_SCHED_EV_SLICE_ADD, .node = -1, .pod = -1, .object = 0};
    KT_CHECK_INT(kp_sched_queueing_hint(s, pod, &ev), KP_HINT_QUEUE);
    ev = (kp_sched_event){.kind = KP_SCHED_EV_PV_ADD, .node = -1, .pod = -1, .object = 0};
    KT_CHECK(kp_sched_event_may_queue(s, KP_SCHED_EV_CLAIM_CHANGE));
    TEARDOWN();
}

/* TestPlugin "request-admin-access-with-DRAAdminAccess-featuregate" and
 * "structured-ignore-allocated-admin-access" */
KT_TEST(dra_admin_access) {
    SETUP(ONE_NODE);
    td_class(cl, "my-resource-class");
    td_slice(cl, "worker", "worker", 1, 1, 1);
    kp_dra_claim *c = td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    kp_dra_claim *o = td_claim(cl, "other-claim", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    td_allocated(cl, o, "worker", "dev-0", "other");
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    c->spec.requests[0].exactly.admin_access = true;
    kp_sched *s = ts_sched(cl, NULL, 0);
    char post[128];
    kp_node_status st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
    c->spec.requests[0].exactly.admin_access = false;
    o->results[0].admin_access = true;
    cl->dra.gen_claims++; /* the index sees the change */
    st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
    TEARDOWN();
}

/* TestPlugin "wrong-topology" / "good-topology": an allocated claim's node selector */
KT_TEST(dra_allocated_claim_pins_to_its_node) {
    SETUP(NODE("worker", "4") NODE("worker-2", "4")
              POD("my-pod", "{priority: 100, containers: [" CT("1") "]}"));
    td_class(cl, "my-resource-class");
    kp_dra_claim *c = td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    td_allocated(cl, c, "worker-2", "dev-0", NULL);
    c->alloc_has_nodes = true;
    c->alloc_nodes.node_name = S(cl, "worker-2");
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    char post[128];
    kp_node_status st = td_filter(s, "default/my-pod", "worker-2", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
    /* elsewhere: unavailable, and PostFilter deallocates the claim (reserved by nobody: its
     * allocation cleared for the next attempt) */
    st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "resourceclaim not available on the node");
    KT_CHECK_STR(post, "deallocation of ResourceClaim completed");
    KT_CHECK_INT(c->allocated, false);
    KT_CHECK_INT(c->n_reserved, 0);
    TEARDOWN();
}

/* TestPlugin "tainted-device-enabled" (and the allocator's "tainted-device-tolerated") */
KT_TEST(dra_device_taints) {
    SETUP(ONE_NODE);
    td_class(cl, "my-resource-class");
    kp_dra_slice *sl = td_slice(cl, "worker", "worker", 1, 1, 1);
    T.taints[0].key = S(cl, "example.com/taint");
    T.taints[0].effect = KP_EFFECT_NOSCHEDULE;
    sl->devices[0].taints = T.taints;
    sl->devices[0].n_taints = 1;
    kp_dra_claim *c = td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    char post[128];
    kp_node_status st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_STR(st.reasons[0], "cannot allocate all claims");
    T.tols[0].key = S(cl, "example.com/taint");
    T.tols[0].op = KP_TOL_EXISTS;
    c->spec.requests[0].exactly.tolerations = T.tols;
    c->spec.requests[0].exactly.n_tolerations = 1;
    st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
    cl->gates.on[KP_GATE_DRA_DEVICE_TAINTS] = false; /* "tainted-device-disabled" */
    c->spec.requests[0].exactly.n_tolerations = 0;
    st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
    TEARDOWN();
}

/* TestAllocator "all-devices-single" / "all-devices-of-the-incomplete-pool" / "simple"
 * (count 2 of 3) / "too-many" (count 4 of 3) */
KT_TEST(dra_allocator_modes_and_pools) {
    SETUP(ONE_NODE);
    td_class(cl, "my-resource-class");
    td_slice(cl, "worker", "worker", 3, 1, 1);
    kp_dra_claim *c = td_claim(cl, "my-pod-my-resource", "my-resource-class", 2, KP_DRA_MODE_EXACT);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    char post[128];
    KT_CHECK_INT(td_filter(s, "default/my-pod", "worker", post, sizeof post).code, KP_CODE_SUCCESS);
    c->spec.requests[0].exactly.count = 4;
    KT_CHECK_INT(td_filter(s, "default/my-pod", "worker", post, sizeof post).code,
                 KP_CODE_UNRESOLVABLE);
    c->spec.requests[0].exactly.mode = KP_DRA_MODE_ALL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_INT(c->n_results, 3); /* every device of the pool */
    TEARDOWN();
}

KT_TEST(dra_allocator_incomplete_pool) {
    SETUP(ONE_NODE);
    td_class(cl, "my-resource-class");
    td_slice(cl, "worker", "worker", 2, 1, 2); /* one of two slices published */
    kp_dra_claim *c = td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    char post[128];
    kp_node_status st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_STR(st.reasons[0], "cannot allocate all claims"); /* ExactCount skips the pool */
    c->spec.requests[0].exactly.mode = KP_DRA_MODE_ALL;
    st = td_filter(s, "default/my-pod", "worker", post, sizeof post);
    KT_CHECK_STR(st.reasons[0],
                 "claim default/my-pod-my-resource, request req-1: asks for all devices, but "
                 "resource pool driver.example.com/worker is currently being updated");
    /* an older generation beside the newest: the newest wins ("obsolete slices") */
    T.slices[0].slice_count = 1;
    td_slice(cl, "worker", "worker", 1, 0, 1);
    c->spec.requests[0].exactly.mode = KP_DRA_MODE_EXACT;
    c->spec.requests[0].exactly.count = 2;
    KT_CHECK_INT(td_filter(s, "default/my-pod", "worker", post, sizeof post).code, KP_CODE_SUCCESS);
    TEARDOWN();
}

/* TestAllocator "prioritized-list-subrequests-*": the first subrequest that fits, scored */
KT_TEST(dra_allocator_first_available) {
    SETUP(ONE_NODE);
    td_class(cl, "big");
    td_class(cl, "small");
    td_slice(cl, "worker", "worker", 1, 1, 1);
    kp_dra_claim *c = td_claim(cl, "my-pod-my-resource", "big", 1, KP_DRA_MODE_EXACT);
    kp_dra_request *r = &c->spec.requests[0];
    r->first_available = true;
    r->subs = T.subs[0];
    r->n_subs = 2;
    r->subs[0] = (kp_dra_exact){.name = S(cl, "two"), .class_name = S(cl, "big"), .count = 2};
    r->subs[1] = (kp_dra_exact){.name = S(cl, "one"), .class_name = S(cl, "small"), .count = 1};
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_INT(c->n_results, 1);
    KT_CHECK_STR(kp__s(cl, c->results[0].request), "req-1/one");
    TEARDOWN();
}

/* TestAllocator "with-constraint" / "with-constraint-not-matching-int-attribute" */
KT_TEST(dra_allocator_match_attribute) {
    SETUP(ONE_NODE);
    td_class(cl, "my-resource-class");
    kp_dra_slice *sl = td_slice(cl, "worker", "worker", 3, 1, 1);
    kp_str dom = S(cl, "driver.example.com"), numa = S(cl, "numa");
    int64_t vals[3] = {0, 1, 1};
    for (int i = 0; i < 3; i++) {
        T.attrs[0][i] =
            (kp_dra_attr){.domain = dom, .name = numa, .type = KP_DRA_ATTR_INT, .i = vals[i]};
        sl->devices[i].attrs = &T.attrs[0][i];
        sl->devices[i].n_attrs = 1;
    }
    kp_dra_claim *c = td_claim(cl, "my-pod-my-resource", "my-resource-class", 2, KP_DRA_MODE_EXACT);
    T.cons[0].match_attribute = S(cl, "driver.example.com/numa");
    c->spec.constraints = T.cons;
    c->spec.n_constraints = 1;
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_INT(c->n_results, 2); /* dev-0 is skipped: dev-1 and dev-2 share numa 1 */
    if (c->n_results == 2) {
        KT_CHECK_STR(kp__s(cl, c->results[0].device), "dev-1");
        KT_CHECK_STR(kp__s(cl, c->results[1].device), "dev-2");
    }
    TEARDOWN();
}

/* The case: preemption still runs for cpu on a node where the claims fit; the device
 * holder on the other node is not a victim */
KT_TEST(dra_preemption_for_cpu_where_claims_fit) {
    SETUP(NODE("gpu-1", "2") NODE("gpu-2", "2")
              POD("holder", "{nodeName: gpu-1, priority: 0, containers: [" CT("1") "]}")
                  POD("filler", "{nodeName: gpu-2, priority: 0, containers: [" CT("2") "]}")
                      POD("my-pod", "{priority: 1000, containers: [" CT("2") "]}"));
    td_class(cl, "gpu.example.com");
    td_slice(cl, "gpu-1", "gpu-1", 1, 1, 1);
    td_slice(cl, "gpu-2", "gpu-2", 1, 1, 1);
    kp_dra_claim *h = td_claim(cl, "holder-gpu", "gpu.example.com", 1, KP_DRA_MODE_EXACT);
    td_allocated(cl, h, "gpu-1", "dev-0", "holder");
    td_claim(cl, "my-pod-my-resource", "gpu.example.com", 1, KP_DRA_MODE_EXACT);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "default/my-pod");
    KT_CHECK(r && r->outcome == KP_OUTCOME_NOMINATED);
    if (r && r->n_victims == 1) {
        KT_CHECK_INT(r->victims[0], kp_cluster_find_pod(cl, "default/filler"));
    } else {
        KT_CHECK(0);
    }
    TEARDOWN();
}

/* --explain's detail for a device shortage: the class, the free count, who holds the rest */
KT_TEST(dra_explain_device_shortage) {
    SETUP(ONE_NODE);
    td_class(cl, "gpu.example.com");
    td_slice(cl, "worker", "worker", 1, 1, 1);
    td_claim(cl, "my-pod-my-resource", "gpu.example.com", 1, KP_DRA_MODE_EXACT);
    kp_dra_claim *o = td_claim(cl, "other-claim", "gpu.example.com", 1, KP_DRA_MODE_EXACT);
    td_allocated(cl, o, "worker", "dev-0", "other");
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status pre;
    kp_cycle *c = kp__cycle_new(s, (uint32_t)kp_cluster_find_pod(cl, "default/my-pod"), &pre);
    KT_CHECK(c != NULL);
    if (c) {
        char note[512];
        kp__dra_note(c, &cl->nodes[kp_cluster_find_node(cl, "worker")], note, sizeof note);
        KT_CHECK_STR(note, "request req-1: 0 free of 1 device(s) matching class gpu.example.com, "
                           "held by default/other-claim (reserved by other)");
        kp__cycle_free(c);
    }
    TEARDOWN();
}

/* TestPlugin "claim-missing" (wantPreEnqueueStatus: DynamicResources.PreEnqueue rejects, the
 * pod is not attempted); once the claim exists the pod is queued and bound */
KT_TEST(dra_pre_enqueue_missing_claim) {
    SETUP(ONE_NODE);
    td_pod_claims(cl, "default/my-pod", "my-pod-my-resource");
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_index pod = kp_cluster_find_pod(cl, "default/my-pod");
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_explain(s, pod, &err), KP_OK);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = kp_sched_result_of(s, pod);
    KT_CHECK(r != NULL);
    if (r) {
        KT_CHECK_INT(r->outcome, KP_OUTCOME_GATED);
        KT_CHECK_STR(r->message, "could not find ResourceClaim \"default/my-pod-my-resource\"");
    }
    kp_sched_explanation x;
    KT_CHECK(kp_sched_explanation_get(s, &x));
    KT_CHECK(!x.attempted);
    KT_CHECK_STR(x.pre_enqueue_message,
                 "could not find ResourceClaim \"default/my-pod-my-resource\"");
    td_class(cl, "my-resource-class");
    td_slice(cl, "worker", "worker", 1, 1, 1);
    td_claim(cl, "my-pod-my-resource", "my-resource-class", 1, KP_DRA_MODE_EXACT);
    KT_CHECK_INT(kp_sched_schedule_one(s, pod, &err), KP_OK);
    KT_CHECK_STR(ts_node_of(s, "default/my-pod"), "worker");
    TEARDOWN();
}

KT_MAIN(KT_CASE(dra_explain_device_shortage), KT_CASE(dra_pre_enqueue_missing_claim),
        KT_CASE(dra_no_resources_cannot_allocate), KT_CASE(dra_missing_class),
        KT_CASE(dra_claim_missing_and_not_created),
        KT_CASE(dra_with_resources_bound_allocated_reserved),
        KT_CASE(dra_exhausted_resources_pending_no_preemption), KT_CASE(dra_admin_access),
        KT_CASE(dra_allocated_claim_pins_to_its_node), KT_CASE(dra_device_taints),
        KT_CASE(dra_allocator_modes_and_pools), KT_CASE(dra_allocator_incomplete_pool),
        KT_CASE(dra_allocator_first_available), KT_CASE(dra_allocator_match_attribute),
        KT_CASE(dra_preemption_for_cpu_where_claims_fit))
