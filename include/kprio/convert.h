/* Public workload traces converted into a snapshot and a Scenario (`kprio convert`,
 * docs/live.md "Converting public traces"): the nodes become v1 Nodes, the pods or jobs timed
 * creations and deletions of pods, their classes PriorityClasses.
 *
 *     kp_converted *c;
 *     kp_convert_alibaba_gpu("openb_node_list_all_node.csv", "openb_pod_list_default.csv", &c,
 *                            &err);
 *     fwrite(kp_converted_cluster(c, &n), 1, n, f1);    // a v1 List (JSON)
 *     fwrite(kp_converted_scenario(c, &n), 1, n, f2);   // kind: Scenario (JSON)
 *     kp_converted_free(c);
 *
 * Errors: one line naming the file, the line and the column (KP_EINVAL, KP_EIO, KP_ELIMIT,
 * KP_ENOMEM). */
#ifndef KP_CONVERT_H
#define KP_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_converted kp_converted;

typedef struct {
    uint64_t nodes, pods, actions;
} kp_converted_stats;

/* Alibaba cluster-trace-gpu-v2023: the node list (sn, cpu_milli, memory_mib, gpu, model) and
 * a pod list (name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, creation_time,
 * deletion_time; other columns ignored), CSV with a header row. */
kp_status kp_convert_alibaba_gpu(const char *nodes_csv, const char *pods_csv, kp_converted **out,
                                 kp_error *err);
/* Alibaba cluster-trace-v2026-spot-gpu: node_info_df.csv (node_name, gpu_model,
 * gpu_capacity_num, cpu_num) and job_info_df.csv (job_name, organization, gpu_model,
 * cpu_request, gpu_request, worker_num, submit_time, duration, job_type HP or Spot). */
kp_status kp_convert_alibaba_spot(const char *nodes_csv, const char *jobs_csv, kp_converted **out,
                                  kp_error *err);

/* The snapshot (a JSON v1 List) and the Scenario (JSON), borrowed; *len their sizes. */
const char *kp_converted_cluster(const kp_converted *c, size_t *len);
const char *kp_converted_scenario(const kp_converted *c, size_t *len);
void kp_converted_stats_get(const kp_converted *c, kp_converted_stats *out);
void kp_converted_free(kp_converted *c);

#ifdef __cplusplus
}
#endif
#endif
