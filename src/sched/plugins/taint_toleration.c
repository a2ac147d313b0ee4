/* TaintToleration (pkg/scheduler/framework/plugins/tainttoleration). */
#include "sched/plugins/taint_toleration.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/taints.h"
#include "sched/plugins/helper.h"
#include "sched/status.h"

int kp__first_untolerated_taint(const kp_pod *p, const kp_node *n) {
    for (uint16_t i = 0; i < n->n_taints; i++) {
        const kp_taint *t = &n->taints[i];
        if (t->effect != KP_EFFECT_NOSCHEDULE && t->effect != KP_EFFECT_NOEXECUTE) continue;
        if (!kp__tolerations_tolerate(p, t)) return i;
    }
    return -1;
}

/* mirrors TaintToleration.Filter: rejects the node at its first NoSchedule/NoExecute taint (node
 * order) the pod does not tolerate. The reason names no taint ("node(s) had untolerated
 * taint(s)"; --explain names it); --compat 1.34 and older: "node(s) had untolerated taint {key:
 * value}", formatted when the scheduler was made. */
void kp__filter_taints(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    if (!n->n_taints) return;
    int i = kp__first_untolerated_taint(c->p, n);
    if (i < 0) return;
    const kp_reasons *rs = &c->s->reasons;
    st->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(st, rs->generic_taint
                                  ? KP_REASON_UNTOLERATED_TAINTS
                                  : rs->taint[rs->taint_off[n - c->s->cl->nodes] + (uint32_t)i]);
}

/* mirrors TaintToleration.Score: intolerable PreferNoSchedule taints (reversed by the
 * normalisation) */
static int64_t taint_score(const kp_pod *p, const kp_node *n) {
    int64_t cnt = 0;
    for (uint16_t i = 0; i < n->n_taints; i++) {
        const kp_taint *t = &n->taints[i];
        if (t->effect != KP_EFFECT_PREFERNOSCHEDULE) continue;
        bool tol = false;
        for (uint16_t j = 0; j < p->n_tolerations && !tol; j++) {
            const kp_toleration *to = &p->tolerations[j];
            if (to->effect != KP_EFFECT_NONE && to->effect != KP_EFFECT_PREFERNOSCHEDULE) continue;
            tol = kp__toleration_tolerates(to, t);
        }
        if (!tol) cnt++;
    }
    return cnt;
}


/* Score + NormalizeScore (reverse) over the feasible nodes */
void kp__taint_toleration_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes,
                                uint32_t n, int64_t *out) {
    const kp_cluster *cl = s->cl;
    for (uint32_t i = 0; i < n; i++) {
        const kp_node *nd = &cl->nodes[nodes[i]];
        out[i] = nd->n_taints ? taint_score(p, nd) : 0;
    }
    kp__default_normalize_score(out, n, true);
}
