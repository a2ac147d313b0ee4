/* simulate: plays a snapshot forward ten virtual minutes and prints, minute by minute, how many
 * pods are still pending, then the preemptions of the run.
 *
 *     build/examples/simulate FILE...
 *
 * Uses only the public headers (kprio/sim.h drives the scheduler; the cluster is the state). */
#include <stdio.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/sim.h"

static size_t pending(const kp_sim *sim) {
    size_t n = 0;
    for (size_t i = 0; i < kp_sim_pod_count(sim); i++)
        n += kp_sim_pod_get(sim, i)->state == KP_SIM_POD_PENDING;
    return n;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    kp_sim *sim = NULL;
    if (!cl) return 1;
    for (int i = 1; i < argc; i++)
        if (kp_cluster_load_path(cl, argv[i], false, &err) != KP_OK) goto fail;
    if (kp_cluster_finalize(cl, &err) != KP_OK) goto fail;
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.duration_ms = 10 * 60 * 1000;
    if (kp_sim_new(cl, NULL, NULL, &o, &sim, &err) != KP_OK) goto fail;
    for (int64_t minute = 0; minute <= 10; minute++) {
        if (kp_sim_run_until(sim, minute * 60 * 1000, &err) != KP_OK) goto fail;
        printf("t=%2lldm  pending pods: %zu\n", (long long)minute, pending(sim));
    }
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (strcmp(e->reason, "Preempted") == 0)
            printf("%6llds  %s/%s: %s\n", (long long)(e->t_ms / 1000), e->ns, e->name, e->message);
    }
    kp_sim_free(sim);
    kp_cluster_free(cl);
    return 0;
fail:
    fprintf(stderr, "simulate: %s%s%s\n", err.source, *err.source ? ": " : "", err.msg);
    kp_sim_free(sim);
    kp_cluster_free(cl);
    return 1;
}
