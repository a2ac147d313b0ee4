/* Critical-pod preemption on admission (internal): getPodsToPreempt (admit_preempt.c). */
#ifndef KP_KUBELET_ADMIT_PREEMPT_H
#define KP_KUBELET_ADMIT_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/admission.h"
#include "kubelet/admit_state.h"

/* mirrors getPodsToPreempt; victims go to a->victims in upstream order. On failure returns
 * false and writes upstream's error text ("no set of running pods found to reclaim resources:
 * [...]") into errbuf. KP_ENOMEM is reported through *st. */
bool kp__admit_pods_to_preempt(const kp_cluster *cl, uint32_t node, uint32_t pod,
                               const kp__admit_reqlist *reqs, kp_admission *a, char *errbuf,
                               size_t errcap, kp_status *st);
/* admissionRequirementList.toString: "[(res: cpu, q: 100), ]". */
void kp__admit_reqs_string(const kp_cluster *cl, const kp__admit_reqlist *l, char *buf, size_t cap);
/* Room for a message naming every requirement of l: the requirement list
 * (admissionRequirementList.toString) plus `extra` bytes of surrounding text. */
size_t kp__admit_reqs_text_bound(const kp_cluster *cl, const kp__admit_reqlist *l, size_t extra);

#endif
