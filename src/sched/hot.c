/* The scheduler's compact per-pod array: see hot.h. */
#include "sched/hot.h"

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "sched/framework.h"

static void fill(kp_hot_pod *h, const kp_pod *p) {
    h->labels = p->labels.items;
    h->n_labels = p->labels.n;
    h->node = p->node >= 0 && p->deletion_ts == KP_TIME_NONE ? p->node : -1;
    h->ns = p->ns;
    h->prio = p->priority;
}

const kp_hot_pod *kp__sched_hot_ensure(kp_sched *s) {
    const kp_cluster *cl = s->cl;
    if (s->hot && s->n_hot == cl->n_pods && !s->hot_stale) return s->hot;
    kp__sched_hot_free(s);
    s->hot = kp__malloc((cl->n_pods ? cl->n_pods : 1) * sizeof *s->hot);
    if (!s->hot) return NULL;
    for (uint32_t i = 0; i < cl->n_pods; i++) fill(&s->hot[i], &cl->pods[i]);
    s->n_hot = cl->n_pods;
    return s->hot;
}

kp_status kp__sched_hot_grow(kp_sched *s) {
    const kp_cluster *cl = s->cl;
    if (!s->hot || s->hot_stale || s->n_hot >= cl->n_pods) return KP_OK;
    kp_hot_pod *h = kp__realloc(s->hot, cl->n_pods * sizeof *h);
    if (!h) return KP_ENOMEM;
    s->hot = h;
    for (uint32_t i = s->n_hot; i < cl->n_pods; i++) fill(&h[i], &cl->pods[i]);
    s->n_hot = cl->n_pods;
    return KP_OK;
}

void kp__sched_hot_update(kp_sched *s, uint32_t pod) {
    if (!s || !s->hot) return;
    if (pod >= s->n_hot) s->hot_stale = true;
    else fill(&s->hot[pod], &s->cl->pods[pod]);
}

void kp__sched_hot_free(kp_sched *s) {
    kp__free(s->hot);
    s->hot = NULL;
    s->n_hot = 0;
    s->hot_stale = false;
}
