/* The kubelet's part of a pod's life that the scheduler side reads: starting a bound pod
 * (phase Running, status.startTime, as the kubelet's status manager writes them once the pod's
 * sandbox is up). Preemption orders victims of equal priority by start time
 * (MoreImportantPod), so a simulated pod must carry one once it runs. */
#include "core/cluster.h"
#include "core/pod.h"

kp_status kp_cluster_pod_set_running(kp_cluster *cl, kp_index pod, int64_t now, kp_error *err) {
    if (pod < 0 || (size_t)pod >= cl->n_pods || cl->pods[pod].node < 0)
        return kp_error_set(err, KP_EINVAL, "pod index %ld is not bound to a node", pod);
    kp_pod *p = &cl->pods[pod];
    p->phase = KP_PHASE_RUNNING;
    if (p->start_time == KP_TIME_NONE) p->start_time = now;
    return KP_OK;
}
