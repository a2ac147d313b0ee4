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
    uint64_t objects, events; /* kp_convert_simkube: objects in the snapshot, watch events */
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

/* A SimKube trace (msgpack, trace format version 2: SimKube's sk-tracer export) into a trace
 * directory as `kubectl kprio record` writes it (kprio/trace.h): the objects at the trace's
 * start are the snapshot, every applied or deleted object a watch event, a bare pod's recorded
 * end its deletion. `kprio simulate --trace DIR` replays it. Errors name the file, the event
 * and object, and the field: `t.sktrace: events[3].applied_objs[0] (Deployment shop/web):
 * spec.replicas: ...` (KP_EINVAL, KP_EIO, KP_ELIMIT, KP_ENOMEM). */
kp_status kp_convert_simkube(const char *trace, kp_converted **out, kp_error *err);

/* The files of the result by index i from 0, NULL past the last: *name the path relative to
 * the output directory ("cluster.json", "scenario.json"; a trace: "manifest.json",
 * "snapshot/cluster.json", "watch/simkube.json", "README"), *len the text's size; borrowed. */
const char *kp_converted_file(const kp_converted *c, size_t i, const char **name, size_t *len);

/* The snapshot (a JSON v1 List) and the Scenario (JSON), borrowed; *len their sizes (a trace's
 * Scenario is empty: its actions are the watch file's). */
const char *kp_converted_cluster(const kp_converted *c, size_t *len);
const char *kp_converted_scenario(const kp_converted *c, size_t *len);
void kp_converted_stats_get(const kp_converted *c, kp_converted_stats *out);
void kp_converted_free(kp_converted *c);

#ifdef __cplusplus
}
#endif
#endif
