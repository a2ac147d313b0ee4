/* kprio/summary_builder.h: a summary built from values equals, field by field, the one decoded
 * from the Summary API document kp_evict_summary_encode_json writes of it (both decoders); the
 * golden summaries survive decode -> encode -> decode; hostile values are refused as the
 * decoder refuses them, and an allocation failure reaches the caller as KP_ENOMEM. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/summary.h"
#include "harness.h"
#include "io/decode_summary.h"
#include "io/decode_summary_tree.h"
#include "kprio/eviction.h"
#include "kprio/summary_builder.h"

#define NS INT64_C(1000000000)

typedef struct {
    char *p;
    size_t len;
} text;

static kp_status keep(void *ctx, const char *buf, size_t len) {
    text *t = ctx;
    t->p = kp_malloc(len + 64); /* the JSON back end's padding, zeroed */
    if (!t->p) return KP_ENOMEM;
    memcpy(t->p, buf, len);
    memset(t->p + len, 0, 64);
    t->len = len;
    return KP_OK;
}

/* s encoded, then decoded by the public call and by each decoder: all equal to s */
static void check_round_trip(const char *what, const kp_evict_summary *s) {
    text t = {NULL, 0};
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_evict_summary_encode_json(s, keep, &t, &err), KP_OK);
    if (!t.p) return;
    kp_evict_summary *pub = NULL, *fast = NULL, *ref = NULL;
    KT_CHECK_INT(kp_evict_summary_load_buffer(what, t.p, t.len, &pub, &err), KP_OK);
    KT_CHECK_INT(kp__summary_decode_events(t.p, t.len, &fast), KP_OK); /* the fast path takes it */
    KT_CHECK_INT(kp__summary_decode_tree(what, t.p, t.len, &ref, &err), KP_OK);
    bool same = pub && fast && ref && kp__summary_equal(s, pub) && kp__summary_equal(s, fast) &&
                kp__summary_equal(s, ref);
    if (!same)
        fprintf(stderr, "  %s: not the same summary back from\n  %.*s\n", what, (int)t.len, t.p);
    KT_CHECK(same);
    kp_evict_summary_free(pub);
    kp_evict_summary_free(fast);
    kp_evict_summary_free(ref);
    kp_free(t.p);
}

static kp_summary_fs fs_all(int64_t t, int64_t base) {
    kp_summary_fs f = {KP_SUMMARY_AVAILABLE | KP_SUMMARY_CAPACITY | KP_SUMMARY_USED |
                           KP_SUMMARY_INODES_FREE | KP_SUMMARY_INODES | KP_SUMMARY_INODES_USED,
                       t,
                       base + 1,
                       base + 2,
                       base + 3,
                       base + 4,
                       base + 5,
                       base + 6};
    return f;
}

/* A summary using every call: odd names, partial objects, a fractional time; the status of
 * the last call (the first error sticks). */
static kp_status build_rich(kp_summary_builder *b) {
    int64_t t = INT64_C(1767225600) * NS; /* 2026-01-01T00:00:00Z */
    (void)kp_summary_builder_node(b, "node \"1\"\\\n\x01é");
    kp_summary_memory m = {KP_SUMMARY_AVAILABLE | KP_SUMMARY_USAGE | KP_SUMMARY_WORKING_SET,
                           t + 500000000, 100, 200, 300};
    (void)kp_summary_builder_node_memory(b, &m);
    kp_summary_fs f = fs_all(t, 10);
    (void)kp_summary_builder_node_fs(b, KP_SUMMARY_NODE_FS, &f);
    f = fs_all(t + 1000, 20);
    f.has &= ~(unsigned)KP_SUMMARY_INODES;
    (void)kp_summary_builder_node_fs(b, KP_SUMMARY_IMAGE_FS, &f);
    f = fs_all(t + 10 * NS, 30); /* the newest node-level time: the summary's */
    (void)kp_summary_builder_node_fs(b, KP_SUMMARY_CONTAINER_FS, &f);
    (void)kp_summary_builder_rlimit(b, t, true, 32768, false, 0);
    kp_summary_memory pm = {KP_SUMMARY_WORKING_SET, t, 0, 0, 77};
    (void)kp_summary_builder_pods_memory(b, &pm);

    (void)kp_summary_builder_pod(b, "ns", "a", "uid-a");
    kp_summary_container c;
    memset(&c, 0, sizeof c);
    c.memory.has = KP_SUMMARY_WORKING_SET;
    c.memory.working_set = 5;
    c.rootfs.has = KP_SUMMARY_USED | KP_SUMMARY_INODES_USED;
    c.rootfs.used = 6;
    c.rootfs.inodes_used = 7;
    c.logs.has = KP_SUMMARY_USED;
    c.logs.used = 8;
    (void)kp_summary_builder_container(b, "app", &c);
    memset(&c, 0, sizeof c);
    c.logs.has = KP_SUMMARY_INODES_USED;
    c.logs.inodes_used = 9;
    (void)kp_summary_builder_container(b, "side\tcar", &c);
    (void)kp_summary_builder_container(b, NULL, NULL); /* no name, no stats */
    kp_summary_fs v = {KP_SUMMARY_USED | KP_SUMMARY_INODES_USED, 0, 0, 0, 11, 0, 0, 12};
    (void)kp_summary_builder_volume(b, "scratch", &v);
    kp_summary_pod ps;
    memset(&ps, 0, sizeof ps);
    ps.memory.has = KP_SUMMARY_WORKING_SET;
    ps.memory.working_set = 13;
    ps.ephemeral_storage.has = KP_SUMMARY_USED | KP_SUMMARY_INODES_USED;
    ps.ephemeral_storage.used = 25;
    ps.ephemeral_storage.inodes_used = 3;
    ps.has_processes = true;
    ps.processes = 4;
    (void)kp_summary_builder_pod_stats(b, &ps);

    (void)kp_summary_builder_pod(b, "ns", "b", NULL); /* no uid, no stats */
    (void)kp_summary_builder_pod(b, "other", "c", "");
    memset(&ps, 0, sizeof ps);
    ps.ephemeral_storage.has = KP_SUMMARY_USED;
    ps.ephemeral_storage.used = INT64_MAX;
    (void)kp_summary_builder_pod_stats(b, &ps);
    v.has = 0;
    return kp_summary_builder_volume(b, "empty", &v);
}

KT_TEST(built_summary_equals_the_one_decoded_from_its_json) {
    kp_summary_builder *b = kp_summary_builder_new();
    KT_CHECK(b != NULL);
    if (!b) return;
    KT_CHECK_INT(build_rich(b), KP_OK);
    kp_evict_summary *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_summary_builder_finish(b, &s, &err), KP_OK);
    if (!s) return;
    /* a few fields by name, then every field through the round trip */
    KT_CHECK_STR(kp_evict_summary_node_name(s), "node \"1\"\\\n\x01é");
    KT_CHECK_INT(kp_evict_summary_pod_count(s), 3);
    int64_t t = 0;
    KT_CHECK(kp_evict_summary_time(s, &t));
    KT_CHECK_INT(t, (INT64_C(1767225600) + 10) * NS);
    KT_CHECK_INT(s->n_conts, 3);
    KT_CHECK_INT(s->n_vols, 2);
    KT_CHECK_INT(s->pods[0].n_containers, 3);
    KT_CHECK_INT(s->pods[0].uid_hash, kp__ev_hash("uid-a", 5));
    KT_CHECK_INT(s->pods[0].eph_used, 25);
    KT_CHECK_INT(s->pods[0].eph_iused, 3);
    KT_CHECK_INT(s->pods[1].uid_len, 0);
    KT_CHECK_INT(s->pods[2].v0, 1);
    KT_CHECK_INT(s->pods[2].eph_used, (uint64_t)INT64_MAX);
    KT_CHECK(s->has_maxpid && !s->has_curproc && s->maxpid == 32768);
    KT_CHECK_INT(s->imagefs.has & KP__EVF_INODES, 0);
    check_round_trip("rich", s);
    /* finishing again gives the same summary; reset gives an empty one */
    kp_evict_summary *again = NULL;
    KT_CHECK_INT(kp_summary_builder_finish(b, &again, &err), KP_OK);
    KT_CHECK(again && kp__summary_equal(s, again));
    kp_evict_summary_free(again);
    kp_summary_builder_reset(b);
    KT_CHECK_INT(kp_summary_builder_node(b, "n"), KP_OK);
    KT_CHECK_INT(kp_summary_builder_finish(b, &again, &err), KP_OK);
    KT_CHECK(again && again->n_pods == 0 && again->n_conts == 0 && !again->has_time);
    if (again) check_round_trip("node only", again);
    kp_evict_summary_free(again);
    kp_evict_summary_free(s);
    kp_summary_builder_free(b);
}

static const char *const GOLDEN[] = {
    "tests/golden/evict-memory-pressure/s1.json", "tests/golden/evict-inodes/s1.json",
    "tests/golden/evict-local-storage/s1.json",   "tests/golden/evict-disk-imagefs/s1.json",
    "tests/golden/evict-pid-pressure/s1.json",    "tests/golden/evict-message-spelling/s1.json"};

/* The encoder on summaries it did not build: what a decoded summary holds comes back. */
KT_TEST(golden_summaries_survive_encode_and_decode) {
    int seen = 0;
    for (size_t i = 0; i < sizeof GOLDEN / sizeof GOLDEN[0]; i++) {
        kp_evict_summary *s = NULL;
        kp_error err;
        kp_error_clear(&err);
        if (kp_evict_summary_load_path(GOLDEN[i], &s, &err) != KP_OK) continue;
        check_round_trip(GOLDEN[i], s);
        kp_evict_summary_free(s);
        seen++;
    }
    KT_CHECK(seen >= 4);
}

static void check_refused(kp_summary_builder *b, kp_status want, const char *msg) {
    kp_evict_summary *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_summary_builder_finish(b, &s, &err), want);
    KT_CHECK(s == NULL);
    KT_CHECK_STR(err.msg, msg);
    kp_evict_summary_free(s);
}

KT_TEST(hostile_values_are_refused_as_the_decoder_refuses_them) {
    kp_summary_builder *b = kp_summary_builder_new();
    KT_CHECK(b != NULL);
    if (!b) return;
    /* a negative number: the decoder refuses "-1" */
    kp_summary_memory m = {KP_SUMMARY_AVAILABLE, 0, -1, 0, 0};
    KT_CHECK_INT(kp_summary_builder_node_memory(b, &m), KP_ERANGE);
    /* the first error sticks: later calls return it and change nothing */
    KT_CHECK_INT(kp_summary_builder_node(b, "n"), KP_ERANGE);
    check_refused(b, KP_ERANGE, "Summary: node.memory.availableBytes: must not be negative");

    /* pod-side fields are named by index, as the decoder names them */
    kp_summary_builder_reset(b);
    KT_CHECK_INT(kp_summary_builder_node(b, "n"), KP_OK);
    KT_CHECK_INT(kp_summary_builder_pod(b, "ns", "a", "u"), KP_OK);
    KT_CHECK_INT(kp_summary_builder_pod(b, "ns", "b", "v"), KP_OK);
    KT_CHECK_INT(kp_summary_builder_container(b, "c0", NULL), KP_OK);
    kp_summary_container c;
    memset(&c, 0, sizeof c);
    c.rootfs.has = KP_SUMMARY_USED;
    c.rootfs.used = INT64_MIN; /* an overflowed sum */
    KT_CHECK_INT(kp_summary_builder_container(b, "c1", &c), KP_ERANGE);
    check_refused(b, KP_ERANGE,
                  "Summary: pods[1].containers[1].rootfs.usedBytes: must not be "
                  "negative");

    kp_summary_builder_reset(b);
    KT_CHECK_INT(kp_summary_builder_pod(b, "ns", "a", NULL), KP_OK);
    kp_summary_fs v = {KP_SUMMARY_INODES_USED, 0, 0, 0, 0, 0, 0, -5};
    KT_CHECK_INT(kp_summary_builder_volume(b, "v", &v), KP_ERANGE);
    check_refused(b, KP_ERANGE, "Summary: pods[0].volume[0].inodesUsed: must not be negative");

    kp_summary_builder_reset(b);
    KT_CHECK_INT(kp_summary_builder_pod(b, "ns", "a", NULL), KP_OK);
    kp_summary_pod ps;
    memset(&ps, 0, sizeof ps);
    ps.has_processes = true;
    ps.processes = -1;
    KT_CHECK_INT(kp_summary_builder_pod_stats(b, &ps), KP_ERANGE);
    check_refused(b, KP_ERANGE,
                  "Summary: pods[0].process_stats.process_count: must not be negative");

    kp_summary_builder_reset(b);
    KT_CHECK_INT(kp_summary_builder_rlimit(b, 0, true, 10, true, -2), KP_ERANGE);
    check_refused(b, KP_ERANGE, "Summary: node.rlimit.curproc: must not be negative");

    /* times the decoder cannot read back: before 1970, after 2262 */
    kp_summary_builder_reset(b);
    kp_summary_fs f = fs_all(-NS, 0);
    KT_CHECK_INT(kp_summary_builder_node_fs(b, KP_SUMMARY_IMAGE_FS, &f), KP_ERANGE);
    check_refused(b, KP_ERANGE, "Summary: node.runtime.imageFs.time: out of range");
    kp_summary_builder_reset(b);
    m.has = 0;
    m.time_ns = INT64_MAX;
    KT_CHECK_INT(kp_summary_builder_pods_memory(b, &m), KP_ERANGE);
    check_refused(b, KP_ERANGE, "Summary: node.systemContainers[pods].memory.time: out of range");

    /* the largest values and the latest time the decoder reads are taken, and come back */
    kp_summary_builder_reset(b);
    f = fs_all((INT64_MAX / NS - 1) * NS + 999999999, INT64_MAX - 7);
    KT_CHECK_INT(kp_summary_builder_node_fs(b, KP_SUMMARY_NODE_FS, &f), KP_OK);
    KT_CHECK_INT(kp_summary_builder_rlimit(b, 0, true, INT64_MAX, true, INT64_MAX), KP_OK);
    KT_CHECK_INT(kp_summary_builder_pod(b, "ns", "a", NULL), KP_OK);
    memset(&ps, 0, sizeof ps);
    ps.memory.has = KP_SUMMARY_WORKING_SET;
    ps.memory.working_set = INT64_MAX;
    KT_CHECK_INT(kp_summary_builder_pod_stats(b, &ps), KP_OK);
    kp_evict_summary *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_summary_builder_finish(b, &s, &err), KP_OK);
    if (s) check_round_trip("largest", s);
    kp_evict_summary_free(s);

    /* out of order, or no node object: not a Summary */
    kp_summary_builder_reset(b);
    KT_CHECK_INT(kp_summary_builder_container(b, "c", NULL), KP_EINVAL);
    check_refused(b, KP_EINVAL, "Summary: pods: a container before any pod");
    kp_summary_builder_reset(b);
    KT_CHECK_INT(kp_summary_builder_pod(b, "ns", "a", NULL), KP_OK);
    check_refused(b, KP_EINVAL, "Summary: node: missing (not a Summary)");
    kp_summary_builder_free(b);
    kp_summary_builder_free(NULL);
}

/* Every allocation of a build, an encode and a decode failed in turn: KP_ENOMEM with a message,
 * or the same summary. */
KT_TEST(allocation_failures_reach_the_caller) {
    kp__alloc_fail_after(-1, false);
    for (long n = 0; n < 40; n++) {
        kp__alloc_fail_after(n, false);
        kp_summary_builder *b = kp_summary_builder_new();
        kp_status st = KP_ENOMEM;
        kp_evict_summary *s = NULL;
        kp_error err;
        kp_error_clear(&err);
        if (b) {
            st = build_rich(b);
            KT_CHECK(st == KP_OK || st == KP_ENOMEM);
            st = kp_summary_builder_finish(b, &s, &err);
            if (st != KP_OK) KT_CHECK(err.msg[0] != 0);
        }
        KT_CHECK(st == KP_OK || st == KP_ENOMEM);
        text t = {NULL, 0};
        if (s) {
            kp_status e = kp_evict_summary_encode_json(s, keep, &t, &err);
            KT_CHECK(e == KP_OK || e == KP_ENOMEM);
        }
        kp__alloc_fail_after(-1, false);
        kp_free(t.p);
        kp_evict_summary_free(s);
        kp_summary_builder_free(b);
    }
    kp__alloc_fail_after(-1, false);
}

KT_MAIN(KT_CASE(built_summary_equals_the_one_decoded_from_its_json),
        KT_CASE(golden_summaries_survive_encode_and_decode),
        KT_CASE(hostile_values_are_refused_as_the_decoder_refuses_them),
        KT_CASE(allocation_failures_reach_the_caller))
