/* The FitError text (mirrors framework.FitError.Error() over a Diagnosis): "0/N nodes are
 * available: <count reason>, ...", the histogram of every node's reasons sorted as strings. The
 * single copy used by the scheduling attempt and by preemption's "preemption: ..." message. */
#ifndef KP_SCHED_DIAGNOSIS_H
#define KP_SCHED_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"
#include "sched/status.h"

typedef struct {
    const char *reason; /* borrowed: valid until the message is built */
    uint32_t count;
} kp_reason_count;

/* Reason histogram (NodeToStatus's reasons counted); grows without a cap. */
typedef struct {
    kp_reason_count *ents;
    uint32_t n, cap;
    uint32_t last; /* entry of the last reason added (consecutive nodes mostly share it) */
} kp_diagnosis;

void kp__diagnosis_init(kp_diagnosis *d);
void kp__diagnosis_fini(kp_diagnosis *d);
/* Adds count to reason's entry (a new entry when first seen). KP_ENOMEM. */
kp_status kp__diagnosis_add(kp_diagnosis *d, const char *reason, uint32_t count);
/* Counts each reason of st once. KP_ENOMEM. */
kp_status kp__diagnosis_add_status(kp_diagnosis *d, const kp_node_status *st);
/* Writes "<prefix>0/<n_nodes> nodes are available" then ": " and the sorted "count reason"
 * items joined by ", " and ".". Without items: "." when period_if_empty, else ":" (the
 * scheduling attempt's historical form). Truncated to cap. KP_ENOMEM. */
kp_status kp__diagnosis_message(const kp_diagnosis *d, const char *prefix, uint32_t n_nodes,
                                bool period_if_empty, char *buf, size_t cap);
/* The same text, whole, in a heap string *out (kp__free). KP_ENOMEM. */
kp_status kp__diagnosis_text(const kp_diagnosis *d, const char *prefix, uint32_t n_nodes,
                             bool period_if_empty, char **out);

/* DynamicResources' PostFilter reason for a pod without resource claims. */
#define KP_REASON_NO_CLAIMS "no new claims to deallocate"
/* The PostFilter part of the FitError text: appends to the FitError text
 * *msg (heap, replaced) " " and the PostFilter reasons joined by ", " in plugin order:
 * DynamicResources' KP_REASON_NO_CLAIMS when dra (before or after DefaultPreemption as
 * dra_first says) and preemption's message (NULL or "": none). A nominating preemption is a
 * Success that ends the PostFilter run: only its message is kept. KP_ENOMEM. */
kp_status kp__postfilter_join(char **msg, const char *dra, bool dra_first, const char *preempt_msg,
                              bool nominated);

#endif
