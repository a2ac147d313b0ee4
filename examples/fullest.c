/* fullest: the nodes with the highest share of their allocatable cpu requested.
 *
 *     build/examples/fullest FILE...
 *
 * Loads the snapshot FILEs, computes the inspection kprio inspect prints (kprio/inspect.h) and
 * lists the nodes at or above 90% of allocatable cpu, with their QoS mix. Exits 0; 1 on bad
 * input or out of memory. Uses only the public headers. */
#include <stdio.h>

#include "kprio/cluster.h"
#include "kprio/inspect.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    kp_error err;
    kp_error_clear(&err);
    kp_inspection *in = NULL;
    kp_cluster *cl = kp_cluster_new();
    if (!cl) {
        fprintf(stderr, "fullest: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++)
        if (kp_cluster_load_path(cl, argv[i], false, &err) != KP_OK) goto fail;
    if (kp_cluster_finalize(cl, &err) != KP_OK || kp_inspection_new(cl, &in, &err) != KP_OK)
        goto fail;

    size_t shown = 0;
    for (size_t i = 0; i < kp_inspection_node_count(in); i++) {
        const kp_inspect_node *n = kp_inspection_node(in, i);
        if (n->percent_cpu < 90) continue;
        printf("%s: %lld%% cpu requested, %zu Guaranteed / %zu Burstable / %zu BestEffort pods\n",
               n->name, (long long)n->percent_cpu, n->pods_guaranteed, n->pods_burstable,
               n->pods_besteffort);
        shown++;
    }
    if (!shown) printf("no node has 90%% or more of its cpu requested\n");
    kp_inspection_free(in);
    kp_cluster_free(cl);
    return 0;
fail:
    fprintf(stderr, "fullest: %s%s%s\n", err.source, err.source[0] ? ": " : "", err.msg);
    kp_inspection_free(in);
    kp_cluster_free(cl);
    return 1;
}
