/* kprio: the pod QoS class (v1.PodQOSClass).
 *
 * Typical use:
 *     const kp_admit_victim *v = kp_admission_victim(a, 0);
 *     if (v) printf("%s\n", kp_qos_name(v->qos));   // "BestEffort", "Burstable", "Guaranteed" */
#ifndef KP_KPRIO_QOS_H
#define KP_KPRIO_QOS_H

#ifdef __cplusplus
extern "C" {
#endif

/* status.qosClass, as computed by v1qos.ComputePodQOS (or as given in the pod's status). */
typedef enum { KP_QOS_BESTEFFORT = 0, KP_QOS_BURSTABLE, KP_QOS_GUARANTEED } kp_qos;

/* "BestEffort", "Burstable" or "Guaranteed" ("BestEffort" for a value out of range). */
const char *kp_qos_name(kp_qos q);

#ifdef __cplusplus
}
#endif

#endif
