/* Partitionable devices (shared counters) and consumable capacity in the structured allocator:
 * rows of upstream's staging/src/k8s.io/dynamic-resource-allocation/structured/internal/
 * allocatortesting/allocator_testing.go (TestAllocator, "partitionable-devices-*") and of
 * internal/incubating/consumable_capacity_test.go (testCalculateConsumedCapacity,
 * testViolateCapacityRequestPolicy), each naming its row; the allocator is driven directly
 * (sched/dra/allocator.h) over DRA objects filled in by hand (core/dra.h). */
#include "core/cluster.h"
#include "core/dra.h"
#include "sched/dra/allocator.h"
#include "sched/dra/capacity.h"
#include "sched/dra/index.h"
#include "test_sched_util.h"

enum { MAXS = 6, MAXD = 4 };
static struct {
    kp_dra_class cls;
    kp_dra_slice slices[MAXS];
    kp_dra_device devs[MAXS][MAXD];
    kp_dra_counter_set sets[MAXS][MAXD][2];
    kp_dra_counter ctrs[MAXS][MAXD][2][2];
    kp_dra_claim claims[3];
    kp_dra_request reqs[3][2];
    kp_dra_result results[3][2];
    kp_dra_capacity caps[MAXD], creq[2], consumed[2];
    kp_dra_cap_policy pol;
    kp_quantity valid[2];
} T;

static kp_str S(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

static kp_quantity Q(const char *s) {
    kp_quantity q;
    memset(&q, 0, sizeof q);
    kp_error err;
    KT_CHECK_INT(kp_quantity_parse(s, strlen(s), &q, &err), KP_OK);
    return q;
}

static kp_cluster *load(void) {
    kp_cluster *cl = ts_load("---\napiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n"
                             "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n");
    if (!cl) return NULL;
    memset(&T, 0, sizeof T);
    memset(&cl->dra, 0, sizeof cl->dra);
    cl->dra.classes = &T.cls;
    cl->dra.n_classes = 1;
    T.cls.name = S(cl, "class-a");
    cl->dra.slices = T.slices;
    cl->dra.claims = T.claims;
    return cl;
}

static void done(kp_cluster *cl) {
    memset(&cl->dra, 0, sizeof cl->dra);
    kp_cluster_free(cl);
}

/* sliceWithDevices: n devices "device-1".. of driver-a in pool (resourceSliceCount count) */
static kp_dra_slice *slice(kp_cluster *cl, const char *pool, uint32_t n, int64_t count) {
    uint32_t k = cl->dra.n_slices++;
    kp_dra_slice *s = &T.slices[k];
    s->name = S(cl, pool);
    s->driver = S(cl, "driver-a");
    s->pool = S(cl, pool);
    s->generation = 1;
    s->slice_count = count;
    s->nodes.node_name = S(cl, "node-1");
    s->devices = T.devs[k];
    s->n_devices = n;
    for (uint32_t i = 0; i < n; i++) {
        char b[24];
        snprintf(b, sizeof b, "device-%u", i + 1);
        T.devs[k][i].name = S(cl, b);
    }
    return s;
}

/* withDeviceCounterConsumption(deviceCounterConsumption(set, {name: value, ...})) on device i of
 * slice k: up to two counters, "" ends */
static void consumes(kp_cluster *cl, uint32_t k, uint32_t i, uint32_t c, const char *set,
                     const char *n1, const char *v1, const char *n2, const char *v2) {
    kp_dra_device *d = &T.devs[k][i];
    kp_dra_counter_set *cs = &T.sets[k][i][c];
    d->consumes = T.sets[k][i];
    d->n_consumes = (uint16_t)(c + 1);
    cs->name = S(cl, set);
    cs->counters = T.ctrs[k][i][c];
    cs->counters[0] = (kp_dra_counter){S(cl, n1), Q(v1)};
    cs->n_counters = 1;
    if (n2) {
        cs->counters[1] = (kp_dra_counter){S(cl, n2), Q(v2)};
        cs->n_counters = 2;
    }
}

/* sliceWithCounterSets: counter set c of the counter slice k */
static void counter_set(kp_cluster *cl, uint32_t k, uint32_t c, const char *set, const char *n1,
                        const char *v1, const char *n2, const char *v2) {
    kp_dra_slice *s = &T.slices[k];
    s->counter_sets = T.sets[k][0];
    s->n_counter_sets = (uint16_t)(c + 1);
    kp_dra_counter_set *cs = &T.sets[k][0][c];
    cs->name = S(cl, set);
    cs->counters = T.ctrs[k][0][c];
    cs->counters[0] = (kp_dra_counter){S(cl, n1), Q(v1)};
    cs->n_counters = 1;
    if (n2) {
        cs->counters[1] = (kp_dra_counter){S(cl, n2), Q(v2)};
        cs->n_counters = 2;
    }
}

/* claimWithRequests(claim-N, nil, request(req-i, class-a, count)...) */
static kp_dra_claim *claim(kp_cluster *cl, uint16_t n_req, int64_t count) {
    uint32_t k = cl->dra.n_claims++;
    kp_dra_claim *c = &T.claims[k];
    char b[16];
    snprintf(b, sizeof b, "claim-%u", k);
    c->ns = S(cl, "default");
    c->name = c->uid = S(cl, b);
    c->spec.requests = T.reqs[k];
    c->spec.n_requests = n_req;
    for (uint16_t r = 0; r < n_req; r++) {
        snprintf(b, sizeof b, "req-%u", r);
        T.reqs[k][r].name = S(cl, b);
        T.reqs[k][r].exactly.class_name = S(cl, "class-a");
        T.reqs[k][r].exactly.count = count;
    }
    c->results = T.results[k];
    return c;
}

/* allocatedDevices: claim c holds device dev of pool */
static void holds(kp_cluster *cl, kp_dra_claim *c, const char *pool, const char *dev) {
    c->allocated = true;
    kp_dra_result *r = &c->results[c->n_results++];
    r->request = S(cl, "req-0");
    r->driver = S(cl, "driver-a");
    r->pool = S(cl, pool);
    r->device = S(cl, dev);
}

typedef struct {
    kp_dra_index *ix;
    kp_dra_alloc *a;
} run_t;

/* Allocate claim 0 on node-1: 1 allocated (results "pool/device" joined by spaces into out) */
static int run(kp_cluster *cl, const kp_dra_features *f, char *out, size_t cap) {
    kp_dra_index *ix = NULL;
    out[0] = 0;
    KT_CHECK_INT(kp__dra_index_sync(&ix, cl), KP_OK);
    uint32_t claims[1] = {0};
    kp_dra_alloc *a = kp__dra_alloc_new(cl, ix, f, claims, 1);
    KT_CHECK(a != NULL);
    const char *msg = NULL;
    int r = a ? kp__dra_alloc_node(a, 0, &msg) : -1;
    if (r == 1) {
        const kp_dra_claim_alloc *o = kp__dra_alloc_result(a, 0);
        size_t len = 0;
        for (uint16_t i = 0; i < o->n_results && len < cap; i++)
            len += (size_t)snprintf(out + len, cap - len, "%s%s/%s", i ? " " : "",
                                    kp__s(cl, o->results[i].pool), kp__s(cl, o->results[i].device));
    } else if (msg) {
        snprintf(out, cap, "%s", msg);
    }
    kp__dra_alloc_free(a);
    kp__dra_index_free(ix);
    return r;
}

static const kp_dra_features ALL = {true, true, true, true, true, true};

/* a pool of three devices consuming one counter set (memory 4Gi, 6Gi, 4Gi) and its counter
 * slice of memory mem */
static void three_devices(kp_cluster *cl, const char *pool, const char *mem) {
    uint32_t k = cl->dra.n_slices;
    slice(cl, pool, 3, 2);
    consumes(cl, k, 0, 0, "counter-set-1", "memory", "4Gi", NULL, NULL);
    consumes(cl, k, 1, 0, "counter-set-1", "memory", "6Gi", NULL, NULL);
    consumes(cl, k, 2, 0, "counter-set-1", "memory", "4Gi", NULL, NULL);
    slice(cl, pool, 0, 2);
    counter_set(cl, k + 1, 0, "counter-set-1", "memory", mem, NULL, NULL);
}

/* "partitionable-devices-single-device" */
KT_TEST(part_single_device) {
    kp_cluster *cl = load();
    if (!cl) return;
    slice(cl, "pool-1", 1, 2);
    consumes(cl, 0, 0, 0, "counter-set-1", "memory", "4Gi", NULL, NULL);
    slice(cl, "pool-1", 0, 2);
    counter_set(cl, 1, 0, "counter-set-1", "memory", "8Gi", NULL, NULL);
    claim(cl, 1, 1);
    char out[256];
    KT_CHECK_INT(run(cl, &ALL, out, sizeof out), 1);
    KT_CHECK_STR(out, "pool-1/device-1");
    /* DRAPartitionableDevices off: a device consuming counters is never allocated */
    kp_dra_features off = ALL;
    off.partitionable_devices = false;
    KT_CHECK_INT(run(cl, &off, out, sizeof out), 0);
    done(cl);
}

/* "partitionable-devices-multiple-devices": 4Gi + 6Gi > 8Gi, so req-1 gets device-3 */
KT_TEST(part_multiple_devices) {
    kp_cluster *cl = load();
    if (!cl) return;
    three_devices(cl, "pool-1", "8Gi");
    claim(cl, 2, 1);
    char out[256];
    KT_CHECK_INT(run(cl, &ALL, out, sizeof out), 1);
    KT_CHECK_STR(out, "pool-1/device-1 pool-1/device-3");
    done(cl);
}

/* "partitionable-devices-unused-counters-in-counter-set": a counter no device consumes */
KT_TEST(part_unused_counter) {
    kp_cluster *cl = load();
    if (!cl) return;
    slice(cl, "pool-1", 3, 2);
    consumes(cl, 0, 0, 0, "counter-set-1", "memory", "5Gi", NULL, NULL);
    consumes(cl, 0, 1, 0, "counter-set-1", "memory", "4Gi", NULL, NULL);
    consumes(cl, 0, 2, 0, "counter-set-1", "memory", "4Gi", NULL, NULL);
    slice(cl, "pool-1", 0, 2);
    counter_set(cl, 1, 0, "counter-set-1", "memory", "8Gi", "unused", "1Gi");
    claim(cl, 1, 2);
    char out[256];
    KT_CHECK_INT(run(cl, &ALL, out, sizeof out), 1);
    KT_CHECK_STR(out, "pool-1/device-2 pool-1/device-3");
    done(cl);
}

/* "partitionable-devices-multiple-counters": two counter sets, two counters each */
KT_TEST(part_multiple_counters) {
    kp_cluster *cl = load();
    if (!cl) return;
    slice(cl, "pool-1", 3, 2);
    consumes(cl, 0, 0, 0, "counter-set-1", "memory", "4Gi", "cpus", "6");
    consumes(cl, 0, 0, 1, "counter-set-2", "cpus", "4", "memory", "2Gi");
    consumes(cl, 0, 1, 0, "counter-set-1", "memory", "6Gi", "cpus", "4");
    consumes(cl, 0, 1, 1, "counter-set-2", "cpus", "6", "memory", "6Gi");
    consumes(cl, 0, 2, 0, "counter-set-1", "memory", "4Gi", "cpus", "4");
    consumes(cl, 0, 2, 1, "counter-set-2", "cpus", "4", "memory", "4Gi");
    slice(cl, "pool-1", 0, 2);
    counter_set(cl, 1, 0, "counter-set-1", "cpus", "8", "memory", "18Gi");
    counter_set(cl, 1, 1, "counter-set-2", "cpus", "12", "memory", "18Gi");
    claim(cl, 2, 1);
    char out[256];
    KT_CHECK_INT(run(cl, &ALL, out, sizeof out), 1);
    KT_CHECK_STR(out, "pool-1/device-2 pool-1/device-3");
    done(cl);
}

/* "partitionable-devices-multiple-pools": devices allocated to other claims consume the pool's
 * counters (pool-1 has 4Gi left; pool-2 10Gi after device-1) */
KT_TEST(part_multiple_pools_allocated) {
    kp_cluster *cl = load();
    if (!cl) return;
    slice(cl, "pool-1", 3, 2);
    consumes(cl, 0, 0, 0, "counter-set-1", "cpus", "6", "memory", "4Gi");
    consumes(cl, 0, 1, 0, "counter-set-1", "cpus", "4", "memory", "6Gi");
    consumes(cl, 0, 2, 0, "counter-set-1", "cpus", "4", "memory", "4Gi");
    slice(cl, "pool-1", 0, 2);
    counter_set(cl, 1, 0, "counter-set-1", "cpus", "8", "memory", "18Gi");
    slice(cl, "pool-2", 3, 2);
    consumes(cl, 2, 0, 0, "counter-set-1", "cpus", "6", "memory", "4Gi");
    consumes(cl, 2, 1, 0, "counter-set-1", "cpus", "1", "memory", "7Gi");
    consumes(cl, 2, 2, 0, "counter-set-1", "cpus", "1", "memory", "7Gi");
    slice(cl, "pool-2", 0, 2);
    counter_set(cl, 3, 0, "counter-set-1", "cpus", "8", "memory", "18Gi");
    claim(cl, 2, 1);
    kp_dra_claim *held = claim(cl, 1, 1);
    holds(cl, held, "pool-1", "device-2");
    holds(cl, held, "pool-1", "device-3");
    kp_dra_claim *held2 = claim(cl, 1, 1);
    holds(cl, held2, "pool-2", "device-1");
    char out[256];
    KT_CHECK_INT(run(cl, &ALL, out, sizeof out), 1);
    KT_CHECK_STR(out, "pool-2/device-2 pool-2/device-3");
    done(cl);
}

/* "partitionable-devices-no-capacity-available" (both slices counted in the pool: upstream's
 * row gives the pool a count of 1, which makes it incomplete too) */
KT_TEST(part_no_capacity_available) {
    kp_cluster *cl = load();
    if (!cl) return;
    slice(cl, "pool-1", 2, 2);
    consumes(cl, 0, 0, 0, "counter-set-1", "memory", "4Gi", NULL, NULL);
    consumes(cl, 0, 1, 0, "counter-set-1", "memory", "16Gi", NULL, NULL);
    slice(cl, "pool-1", 0, 2);
    counter_set(cl, 1, 0, "counter-set-1", "memory", "18Gi", NULL, NULL);
    claim(cl, 1, 1);
    holds(cl, claim(cl, 1, 1), "pool-1", "device-2");
    char out[256];
    KT_CHECK_INT(run(cl, &ALL, out, sizeof out), 0);
    done(cl);
}

/* buildPool's validation: a device consuming a counter set the pool lacks makes the pool
 * invalid; allocation on the node fails with upstream's node-level reason */
KT_TEST(part_invalid_pool) {
    kp_cluster *cl = load();
    if (!cl) return;
    three_devices(cl, "pool-1", "8Gi");
    consumes(cl, 0, 2, 0, "counter-set-9", "memory", "4Gi", NULL, NULL);
    claim(cl, 1, 1);
    char out[256];
    KT_CHECK_INT(run(cl, &ALL, out, sizeof out), 0);
    KT_CHECK_STR(out, "invalid resource pools were encountered");
    done(cl);
}

/* ---- consumable capacity ---- */

/* one device allowing multiple allocations, capacity memory = value with T.pol */
static kp_dra_device *shared_device(kp_cluster *cl, const char *value) {
    slice(cl, "pool-1", 1, 1);
    kp_dra_device *d = &T.devs[0][0];
    d->allow_multiple = true;
    d->caps = T.caps;
    d->n_caps = 1;
    T.caps[0] = (kp_dra_capacity){S(cl, "driver-a"), S(cl, "memory"), Q(value), &T.pol};
    return d;
}

/* a request for memory (NULL: none) */
static void request_memory(kp_cluster *cl, kp_dra_claim *c, const char *mem) {
    if (!mem) return;
    T.creq[0] = (kp_dra_capacity){0, S(cl, "memory"), Q(mem), NULL};
    c->spec.requests[0].exactly.cap_requests = T.creq;
    c->spec.requests[0].exactly.n_cap_requests = 1;
}

/* what claim 0 consumes of the device ("" when it cannot be allocated) */
static const char *consumed(kp_cluster *cl, const kp_dra_features *f) {
    static char out[160];
    out[0] = 0;
    kp_dra_index *ix = NULL;
    KT_CHECK_INT(kp__dra_index_sync(&ix, cl), KP_OK);
    uint32_t claims[1] = {0};
    kp_dra_alloc *a = kp__dra_alloc_new(cl, ix, f, claims, 1);
    const char *msg = NULL;
    if (a && kp__dra_alloc_node(a, 0, &msg) == 1) {
        const kp_dra_result *r = &kp__dra_alloc_result(a, 0)->results[0];
        KT_CHECK(r->share_id != 0 && strlen(kp__s(cl, r->share_id)) == 36);
        KT_CHECK_INT(r->n_consumed, 1);
        if (r->n_consumed)
            snprintf(out, sizeof out, "%s", kp_quantity_string(&r->consumed[0].value).s);
    } else if (msg) {
        snprintf(out, sizeof out, "%s", msg);
    }
    kp__dra_alloc_free(a);
    kp__dra_index_free(ix);
    return out;
}

/* testCalculateConsumedCapacity rows, through the allocator */
KT_TEST(cap_calculate_consumed) {
    static const struct {
        const char *row, *req, *value, *def, *min, *step, *valid, *want;
    } rows[] = {
        {"min in range", NULL, "2", "1", "1", NULL, NULL, "1"},
        {"default in set", NULL, "2", "1", NULL, NULL, "1", "1"},
        {"more than min in range", "2", "2", "1", "1", NULL, NULL, "2"},
        {"less than min in range", "1", "2", "1", "2", NULL, NULL, "2"},
        {"with step (round up)", "2", "3", "1", "1", "2", NULL, "3"},
        {"with step (no remaining)", "2", "2", "1", "1", "1", NULL, "2"},
        {"fractional step (round up)", "250m", "1", "200m", "200m", "100m", NULL, "300m"},
        {"empty (no policy, no request: the whole capacity)", NULL, "1", NULL, NULL, NULL, NULL,
         "1"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kp_cluster *cl = load();
        if (!cl) return;
        shared_device(cl, rows[i].value);
        if (rows[i].def) T.pol.has_default = true, T.pol.def = Q(rows[i].def);
        if (rows[i].min) T.pol.has_range = true, T.pol.min = Q(rows[i].min);
        if (rows[i].step) T.pol.has_step = true, T.pol.step = Q(rows[i].step);
        if (rows[i].valid) T.valid[0] = Q(rows[i].valid), T.pol.valid = T.valid, T.pol.n_valid = 1;
        if (!rows[i].def && !rows[i].min && !rows[i].valid) T.caps[0].policy = NULL;
        request_memory(cl, claim(cl, 1, 1), rows[i].req);
        const char *got = consumed(cl, &ALL);
        if (strcmp(got, rows[i].want)) fprintf(stderr, "  row %s\n", rows[i].row);
        KT_CHECK_STR(got, rows[i].want);
        done(cl);
    }
}

/* testViolateCapacityRequestPolicy "more than maximum" and "not in set": the device is skipped */
KT_TEST(cap_violates_policy) {
    kp_cluster *cl = load();
    if (!cl) return;
    shared_device(cl, "5");
    T.pol = (kp_dra_cap_policy){.has_default = true,
                                .def = Q("1"),
                                .has_range = true,
                                .min = Q("1"),
                                .has_max = true,
                                .max = Q("1")};
    request_memory(cl, claim(cl, 1, 1), "2");
    KT_CHECK_STR(consumed(cl, &ALL), "");
    T.pol = (kp_dra_cap_policy){.has_default = true, .def = Q("1"), .n_valid = 1, .valid = T.valid};
    T.valid[0] = Q("1");
    KT_CHECK_STR(consumed(cl, &ALL), "");
    T.creq[0].value = Q("1"); /* "in set" */
    KT_CHECK_STR(consumed(cl, &ALL), "1");
    /* a capacity the device does not have (requestsContainNonExistCapacity): skipped */
    T.creq[0].name = S(cl, "bandwidth");
    KT_CHECK_STR(consumed(cl, &ALL), "");
    done(cl);
}

/* a shared device: capacity already consumed by allocated shares (AggregatedCapacity) counts;
 * without DRAConsumableCapacity a shared allocation holds the device and a capacity request is
 * refused with upstream's message */
KT_TEST(cap_shared_device_capacity_left) {
    kp_cluster *cl = load();
    if (!cl) return;
    shared_device(cl, "40Gi");
    T.pol = (kp_dra_cap_policy){.has_default = true,
                                .def = Q("10Gi"),
                                .has_range = true,
                                .min = Q("5Gi"),
                                .has_step = true,
                                .step = Q("5Gi")};
    kp_dra_claim *c = claim(cl, 1, 1);
    request_memory(cl, c, "8Gi");
    kp_dra_claim *o = claim(cl, 1, 1);
    holds(cl, o, "pool-1", "device-1");
    o->results[0].share_id = S(cl, "0b3c0e4e-6f55-4b4a-9a3e-6c1f5d6b9a01");
    T.consumed[0] = (kp_dra_capacity){S(cl, "driver-a"), S(cl, "memory"), Q("30Gi"), NULL};
    o->results[0].consumed = T.consumed;
    o->results[0].n_consumed = 1;
    KT_CHECK_STR(consumed(cl, &ALL), "10Gi"); /* 8Gi rounds up to 10Gi: 40Gi in all */
    T.consumed[0].value = Q("35Gi");
    KT_CHECK_STR(consumed(cl, &ALL), "");
    T.consumed[0].value = Q("30Gi");
    kp_dra_features off = ALL;
    off.consumable_capacity = false;
    KT_CHECK_STR(consumed(cl, &off),
                 "claim default/claim-0, request req-0: has capacity requests, but the "
                 "DRAConsumableCapacity feature is disabled");
    c->spec.requests[0].exactly.n_cap_requests = 0;
    char out[256];
    KT_CHECK_INT(run(cl, &off, out, sizeof out), 0); /* the shared allocation holds it */
    done(cl);
}

/* two requests of one claim share the device, each with its own share ID */
KT_TEST(cap_two_requests_share_device) {
    kp_cluster *cl = load();
    if (!cl) return;
    shared_device(cl, "40Gi");
    T.pol = (kp_dra_cap_policy){.has_default = true,
                                .def = Q("10Gi"),
                                .has_range = true,
                                .min = Q("5Gi"),
                                .has_step = true,
                                .step = Q("5Gi")};
    claim(cl, 2, 1);
    kp_dra_index *ix = NULL;
    KT_CHECK_INT(kp__dra_index_sync(&ix, cl), KP_OK);
    uint32_t claims[1] = {0};
    kp_dra_alloc *a = kp__dra_alloc_new(cl, ix, &ALL, claims, 1);
    const char *msg = NULL;
    KT_CHECK_INT(a ? kp__dra_alloc_node(a, 0, &msg) : -1, 1);
    if (a) {
        const kp_dra_claim_alloc *o = kp__dra_alloc_result(a, 0);
        KT_CHECK_INT(o->n_results, 2);
        KT_CHECK(o->results[0].share_id && o->results[1].share_id &&
                 o->results[0].share_id != o->results[1].share_id);
        /* the scheduler's write at bind keeps the consumed capacity (one writer) */
        KT_CHECK_INT(kp__dra_claim_allocate(cl, 0, o->results, o->n_results, NULL, 0), KP_OK);
        KT_CHECK(T.claims[0].results[1].consumed != o->results[1].consumed);
        KT_CHECK_STR(kp_quantity_string(&T.claims[0].results[1].consumed[0].value).s, "10Gi");
    }
    kp__dra_alloc_free(a);
    kp__dra_index_free(ix);
    done(cl);
}

KT_MAIN(KT_CASE(part_single_device), KT_CASE(part_multiple_devices), KT_CASE(part_unused_counter),
        KT_CASE(part_multiple_counters), KT_CASE(part_multiple_pools_allocated),
        KT_CASE(part_no_capacity_available), KT_CASE(part_invalid_pool),
        KT_CASE(cap_calculate_consumed), KT_CASE(cap_violates_policy),
        KT_CASE(cap_shared_device_capacity_left), KT_CASE(cap_two_requests_share_device))
