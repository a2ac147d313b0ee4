/* The two Summary API decoders are a differential pair: on every summary the event-stream
 * decoder accepts, the reference decoder over the value tree gives the same summary
 * (kp__summary_equal). Run over the summaries of the golden cases and a YAML rendering. */
#include <stdlib.h>
#include <string.h>

#include "core/summary.h"
#include "harness.h"
#include "io/decode_summary.h"
#include "io/decode_summary_tree.h"
#include "kprio/eviction.h"

static const char *const FILES[] = {
    "tests/golden/evict-memory-pressure/s1.json", "tests/golden/evict-memory-pressure/s2.json",
    "tests/golden/evict-inodes/s1.json",          "tests/golden/evict-inodes/s3.json",
    "tests/golden/evict-local-storage/s1.json",   "tests/golden/evict-disk-imagefs/s1.json",
    "tests/golden/evict-pid-pressure/s1.json",    "tests/golden/evict-message-spelling/s1.json"};

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = kp_malloc(1 << 22);
    *len = buf ? fread(buf, 1, (1 << 22) - 1, f) : 0;
    fclose(f);
    return buf;
}

static void check_pair(const char *what, const char *buf, size_t len) {
    kp_evict_summary *fast = NULL, *ref = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status sf = kp__summary_decode_events(buf, len, &fast);
    kp_status sr = kp__summary_decode_tree(what, buf, len, &ref, &err);
    if (sf == KP_OK) {
        KT_CHECK_INT(sr, KP_OK);
        if (sr == KP_OK && !kp__summary_equal(fast, ref)) {
            fprintf(stderr, "  %s: the decoders disagree\n", what);
            KT_CHECK(0);
        }
    }
    kp_evict_summary_free(fast);
    kp_evict_summary_free(ref);
}

KT_TEST(decoders_agree_on_golden_summaries) {
    int seen = 0;
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        size_t len = 0;
        char *buf = slurp(FILES[i], &len);
        if (!buf) continue;
        kp_evict_summary *fast = NULL;
        KT_CHECK_INT(kp__summary_decode_events(buf, len, &fast),
                     KP_OK); /* the fast path takes them */
        kp_evict_summary_free(fast);
        check_pair(FILES[i], buf, len);
        kp_free(buf);
        seen++;
    }
    KT_CHECK(seen >= 4);
}

KT_TEST(decoders_agree_on_yaml_and_odd_shapes) {
    static const char *const DOCS[] = {
        "node:\n  memory:\n    time: \"2024-01-01T00:00:10Z\"\n    availableBytes: 100\n    "
        "workingSetBytes: 5\n"
        "  systemContainers:\n  - name: pods\n    memory: {availableBytes: 7, workingSetBytes: 3}\n"
        "pods:\n- podRef: {name: a, namespace: ns, uid: u1}\n  memory: {workingSetBytes: 9}\n"
        "  containers:\n  - name: c\n    rootfs: {usedBytes: 1, inodesUsed: 2}\n    logs: "
        "{usedBytes: 3}\n"
        "  volume:\n  - name: v\n    usedBytes: 4\n",
        "{\"node\":{\"fs\":{\"availableBytes\":1,\"capacityBytes\":2,\"inodesFree\":3,\"inodes\":4}"
        ","
        "\"rlimit\":{\"time\":\"2024-01-01T00:00:00Z\",\"maxpid\":10,\"curproc\":5}},\"pods\":"
        "null}",
        "{\"node\":{\"memory\":{\"availableBytes\":1,\"availableBytes\":2}},\"pods\":[{\"podRef\":{"
        "\"name\":\"x\"},"
        "\"memory\":null,\"ephemeral-storage\":{\"usedBytes\":8}}]}",
        "{\"node\":{\"memory\":{\"availableBytes\":-1}}}", /* declined by the fast path: no
                                                              comparison */
        ""};
    for (size_t i = 0; i < sizeof DOCS / sizeof DOCS[0]; i++)
        check_pair("doc", DOCS[i], strlen(DOCS[i]));
}

/* Found by fuzz_summary: the fast path skipped members it does not read without checking them,
 * so a document with a syntax error inside such a member was accepted while the reference
 * decoder (and the kubelet's encoding/json) rejects it. */
KT_TEST(malformed_json_in_a_skipped_member_is_rejected) {
    static const char *const DOCS[] = {
        "{\"n5ode\": {\"a\": 0 \"b\": 1}, \"node\": {\"nodeName\": \"n1\"}}",
        "{\"node\": {\"nodeName\": \"n1\", \"unknown\": [1 2]}}",
        "{\"node\": {\"memory\": {\"availableBytes\": 1, \"x\": {\"y\": tru}}}}",
    };
    for (size_t i = 0; i < sizeof DOCS / sizeof DOCS[0]; i++) {
        size_t len = strlen(DOCS[i]);
        char *buf = kp_calloc(1, len + 64); /* the JSON back end's padding */
        KT_CHECK(buf != NULL);
        if (!buf) return;
        memcpy(buf, DOCS[i], len);
        kp_evict_summary *fast = NULL, *pub = NULL;
        kp_error err;
        kp_error_clear(&err);
        KT_CHECK(kp__summary_decode_events(buf, len, &fast) != KP_OK);
        KT_CHECK_INT(kp_evict_summary_load_buffer("s.json", buf, len, &pub, &err), KP_ESYNTAX);
        KT_CHECK(err.msg[0] != 0);
        kp_evict_summary_free(fast);
        kp_evict_summary_free(pub);
        kp_free(buf);
    }
}

KT_MAIN(KT_CASE(decoders_agree_on_golden_summaries), KT_CASE(decoders_agree_on_yaml_and_odd_shapes),
        KT_CASE(malformed_json_in_a_skipped_member_is_rejected))
