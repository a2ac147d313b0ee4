/* Taints and tolerations (mirrors v1helper.TolerationsTolerateTaint). */
#include "core/taints.h"
#include "core/pod.h"

bool kp__toleration_tolerates(const kp_toleration *t, const kp_taint *taint) {
    if (t->effect != KP_EFFECT_NONE && t->effect != taint->effect) return false;
    if (t->key && t->key != taint->key) return false;
    if (t->op == KP_TOL_EXISTS) return true;
    return t->value == taint->value;
}

bool kp__tolerations_tolerate(const kp_pod *p, const kp_taint *taint) {
    for (uint16_t i = 0; i < p->n_tolerations; i++)
        if (kp__toleration_tolerates(&p->tolerations[i], taint)) return true;
    return false;
}
