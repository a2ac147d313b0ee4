/* whatif: asks libkprio one what-if question.
 *
 *     build/examples/whatif NAMESPACE/NAME FILE...
 *
 * "If pod NAMESPACE/NAME (a pending pod in one of the FILEs, e.g. a manifest you are about to
 * apply) were scheduled now, would it preempt, on which node, and whom?" Prints the answer and
 * exits 0; 1 on bad input. Uses only the public headers. */
#include <stdio.h>

#include "kprio/cluster.h"
#include "kprio/preempt.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s NAMESPACE/NAME FILE...\n", argv[0]);
        return 2;
    }
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return 1;
    for (int i = 2; i < argc; i++) {
        if (kp_cluster_load_path(cl, argv[i], false, &err) != KP_OK) goto fail;
    }
    if (kp_cluster_finalize(cl, &err) != KP_OK) goto fail;
    kp_index pod = kp_cluster_find_pod(cl, argv[1]);
    if (pod < 0) {
        fprintf(stderr, "whatif: no pod %s\n", argv[1]);
        kp_cluster_free(cl);
        return 1;
    }
    kp_preempt_options opt;
    kp_preempt_options_init(&opt);
    kp_preemption *p = NULL;
    if (kp_preemption_new(cl, pod, &opt, &p, &err) != KP_OK) goto fail;

    switch (kp_preemption_outcome(p)) {
    case KP_PREEMPTION_NOT_NEEDED:
        printf("%s fits on node %s: no preemption needed\n", argv[1],
               kp_cluster_node_name(cl, kp_preemption_node(p)));
        break;
    case KP_PREEMPTION_NOMINATED:
        printf("%s would preempt on node %s (%s), %d PDB violation(s):\n", argv[1],
               kp_cluster_node_name(cl, kp_preemption_node(p)), kp_preemption_decided_by(p),
               kp_preemption_pdb_violations(p));
        for (size_t i = 0; i < kp_preemption_victim_count(p); i++) {
            kp_index v = kp_preemption_victim(p, i);
            printf("  evict %s/%s (priority %d)\n", kp_cluster_pod_namespace(cl, v),
                   kp_cluster_pod_name(cl, v), kp_cluster_pod_priority(cl, v));
        }
        break;
    case KP_PREEMPTION_NOT_ELIGIBLE:
    case KP_PREEMPTION_NO_CANDIDATES:
        printf("%s stays pending: %s\n", argv[1], kp_preemption_message(p));
        break;
    }
    kp_preemption_free(p);
    kp_cluster_free(cl);
    return 0;
fail:
    fprintf(stderr, "whatif: %s%s%s\n", err.source, err.source[0] ? ": " : "", err.msg);
    kp_cluster_free(cl);
    return 1;
}
