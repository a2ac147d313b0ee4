/* The C++ JSON shim out of memory (issue 17 item 5): each of its three paths (a std::bad_alloc
 * caught at the C boundary, simdjson's MEMALLOC, the nothrow new of a big document's parser) is
 * reached by the allocation-failure sweep and ends as KP_ENOMEM, never as a crash or a syntax
 * error. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "io/events.h"
#include "kprio/cluster.h"

typedef struct {
    const char *text;
    size_t len;
    long fail_after;
    kp_status st;
} load_job;

static void *load_in_thread(void *arg) {
    load_job *j = arg;
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    kp__alloc_fail_after(j->fail_after, false);
    j->st = cl ? kp_cluster_load_buffer(cl, "in.json", j->text, j->len, &err) : KP_ENOMEM;
    kp__alloc_fail_after(-1, false);
    kp_cluster_free(cl);
    return NULL;
}

/* Sweeps the failing allocation over a load until one succeeds; each load runs in a new thread,
 * as the loads of a program's threads would. Returns the number of failed loads,
 * -1 if one failed with anything but KP_ENOMEM. */
static long sweep(const char *text, bool threads) {
    long failed = 0;
    for (long n = 0; n < 100000; n++) {
        load_job j = {text, strlen(text), n, KP_OK};
        if (threads) {
            pthread_t t;
            if (pthread_create(&t, NULL, load_in_thread, &j) != 0) return -1;
            pthread_join(t, NULL);
        } else {
            load_in_thread(&j);
        }
        if (j.st == KP_OK) return failed;
        if (j.st != KP_ENOMEM) {
            fprintf(stderr, "  fail_after %ld: status %d\n", n, (int)j.st);
            return -1;
        }
        failed++;
    }
    return -1;
}

KT_TEST(shim_bad_alloc_and_memalloc_end_as_enomem) {
    unsigned long before[3], after[3];
    kp__json_oom_counts(before);
    long failed = sweep("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
                        "\"managedFields\":[{\"a\":1}]},\"spec\":{\"priority\":5}}",
                        true);
    KT_CHECK(failed > 0);
    kp__json_oom_counts(after);
    KT_CHECK(after[0] > before[0]); /* std::bad_alloc */
    KT_CHECK(after[1] > before[1]); /* MEMALLOC */
}

KT_TEST(shim_big_parser_new_ends_as_enomem) {
    /* one object over the 16 MiB the reused parser takes: it gets a parser of its own */
    size_t n = (size_t)17 << 20;
    char *big = malloc(n + 200);
    KT_CHECK(big != NULL);
    if (!big) return;
    size_t k = (size_t)snprintf(big, 200,
                                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                                "\"a\",\"managedFields\":[");
    while (k < n) {
        memcpy(big + k, "{\"f\":{}},", 9);
        k += 9;
    }
    snprintf(big + k, 200, "{}]},\"spec\":{}}");
    unsigned long before[3], after[3];
    kp__json_oom_counts(before);
    KT_CHECK(sweep(big, false) > 0);
    kp__json_oom_counts(after);
    KT_CHECK(after[2] > before[2]);
    free(big);
}

KT_MAIN(KT_CASE(shim_bad_alloc_and_memalloc_end_as_enomem),
        KT_CASE(shim_big_parser_new_ends_as_enomem))
