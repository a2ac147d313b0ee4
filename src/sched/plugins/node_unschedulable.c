/* NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable). */
#include <string.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/taints.h"
#include "sched/plugins/node_unschedulable.h"

/* mirrors NodeUnschedulable.Filter: a pod tolerating node.kubernetes.io/unschedulable:NoSchedule
 * may land on a cordoned node */
void kp__filter_node_unschedulable(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    if (!n->unschedulable) return;
    const kp_cluster *cl = c->s->cl;
    const char *k = "node.kubernetes.io/unschedulable";
    kp_taint t;
    memset(&t, 0, sizeof t);
    t.key = kp__intern_find(&cl->strs, k, strlen(k));
    t.effect = KP_EFFECT_NOSCHEDULE;
    if (t.key != UINT32_MAX && kp__tolerations_tolerate(c->p, &t)) return;
    if (t.key == UINT32_MAX) {
        /* the key string is not interned: only an empty-key Exists toleration can match */
        for (uint16_t i = 0; i < c->p->n_tolerations; i++) {
            const kp_toleration *tol = &c->p->tolerations[i];
            if (tol->key == 0 && tol->op == KP_TOL_EXISTS &&
                (tol->effect == KP_EFFECT_NONE || tol->effect == KP_EFFECT_NOSCHEDULE))
                return;
        }
    }
    st->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(st, "node(s) were unschedulable");
}
