/* The Filter reasons whose text depends on the cluster ("Insufficient <resource>", "node(s) had
 * untolerated taint {key: value}"), formatted once when the scheduler is created, so a status
 * holds pointers only (no text is copied while filtering, and no reason is truncated). Node
 * taints and resource names are fixed for a scheduler's life. */
#ifndef KP_SCHED_REASONS_H
#define KP_SCHED_REASONS_H

#include "kprio/common.h"

typedef struct kp_sched kp_sched;

/* Builds s->reasons for s->cl. KP_ENOMEM. */
kp_status kp__reasons_init(kp_sched *s);
void kp__reasons_free(kp_sched *s);

#endif
