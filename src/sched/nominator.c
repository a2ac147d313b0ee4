/* The nominator: see nominator.h. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "core/resources.h"
#include "sched/framework.h"
#include "sched/nominator.h"

/* The nominated pods of one priority on one node: how many, and their requests summed. */
struct kp_nomgroup {
    int32_t prio;
    uint32_t n;
    int64_t sum[KP_MAX_RES];
};

uint32_t kp__sched_nominated_on(kp_sched *s, uint32_t node, const uint32_t **pods) {
    *pods = s->nom_pods[node];
    return s->nom_n[node];
}

void kp__sched_nominator_free(kp_sched *s) {
    if (s->nom_groups)
        for (uint32_t i = 0; i < s->n_nodes_seen; i++) kp__free(s->nom_groups[i]);
    kp__free(s->nom_groups);
    kp__free(s->nom_n_groups);
    kp__free(s->nom_cap_groups);
    s->nom_groups = NULL;
    s->nom_n_groups = s->nom_cap_groups = NULL;
}

static void group_apply(struct kp_nomgroup *g, const kp_pod *p, int sign) {
    g->n = sign > 0 ? g->n + 1 : g->n - 1;
    for (uint16_t k = 0; k < p->req.n; k++) g->sum[p->req.e[k].res] += sign * p->req.e[k].v;
}

/* Adds the pod's requests to its node's group of its priority (groups sorted by priority,
 * descending). KP_ENOMEM (nothing changed). */
static kp_status agg_add(kp_sched *s, uint32_t node, const kp_pod *p) {
    uint32_t nn = s->cl->n_nodes ? s->cl->n_nodes : 1;
    if (!s->nom_groups) {
        s->nom_groups = kp__calloc(nn, sizeof *s->nom_groups);
        s->nom_n_groups = kp__calloc(nn, sizeof *s->nom_n_groups);
        s->nom_cap_groups = kp__calloc(nn, sizeof *s->nom_cap_groups);
        if (!s->nom_groups || !s->nom_n_groups || !s->nom_cap_groups) {
            kp__sched_nominator_free(s);
            return KP_ENOMEM;
        }
    }
    struct kp_nomgroup *g = s->nom_groups[node];
    uint32_t n = s->nom_n_groups[node], i = 0;
    while (i < n && g[i].prio > p->priority) i++;
    if (i == n || g[i].prio != p->priority) {
        if (!kp__grow32((void **)&s->nom_groups[node], &s->nom_cap_groups[node], (size_t)n + 1,
                        sizeof *g, 2))
            return KP_ENOMEM;
        g = s->nom_groups[node];
        memmove(g + i + 1, g + i, (n - i) * sizeof *g);
        memset(&g[i], 0, sizeof *g);
        g[i].prio = p->priority;
        s->nom_n_groups[node]++;
    }
    group_apply(&g[i], p, 1);
    return KP_OK;
}

/* Takes the pod's requests out of its node's group (the group goes when empty). */
static void agg_remove(kp_sched *s, uint32_t node, const kp_pod *p) {
    struct kp_nomgroup *g = s->nom_groups[node];
    uint32_t n = s->nom_n_groups[node], i = 0;
    while (i < n && g[i].prio != p->priority) i++;
    if (i == n) return; /* cannot happen: every nominated pod was added */
    group_apply(&g[i], p, -1);
    if (g[i].n == 0) {
        memmove(g + i, g + i + 1, (n - i - 1) * sizeof *g);
        s->nom_n_groups[node]--;
    }
}

uint32_t kp__sched_nominated_sum(kp_sched *s, uint32_t node, int32_t prio, uint32_t self,
                                 int64_t *sum) {
    /* every resource index a caller reads is < n_res (cpu, memory, ephemeral-storage and pods
     * are registered first) */
    uint32_t n_res = s->cl->n_res < KP_RES_FIXED ? KP_RES_FIXED : s->cl->n_res, count = 0;
    if (n_res > KP_MAX_RES) n_res = KP_MAX_RES;
    memset(sum, 0, n_res * sizeof *sum);
    if (!s->nom_groups || s->nom_n_groups[node] == 0) return 0;
    const struct kp_nomgroup *g = s->nom_groups[node];
    if (g[0].prio < prio) return 0;
    for (uint32_t i = 0, n = s->nom_n_groups[node]; i < n && g[i].prio >= prio; i++) {
        count += g[i].n;
        for (uint32_t r = 0; r < n_res; r++) sum[r] += g[i].sum[r];
    }
    if (self != UINT32_MAX && s->nom_of[self] == (int32_t)node) {
        const kp_pod *p = &s->cl->pods[self];
        if (p->priority >= prio) {
            count--;
            for (uint16_t k = 0; k < p->req.n; k++) sum[p->req.e[k].res] -= p->req.e[k].v;
        }
    }
    return count;
}

/* mirrors nominator.deleteNominatedPodIfExistsUnlocked + addNominatedPodUnlocked */
kp_status kp__sched_nominate(kp_sched *s, uint32_t pod, int32_t node) {
    int32_t old = s->nom_of[pod];
    kp_pod *p = &s->cl->pods[pod];
    if (old >= 0) {
        uint32_t *l = s->nom_pods[old], n = s->nom_n[old];
        for (uint32_t i = 0; i < n; i++) {
            if (l[i] == pod) {
                memmove(l + i, l + i + 1, (n - i - 1) * sizeof *l);
                s->nom_n[old]--;
                break;
            }
        }
        agg_remove(s, (uint32_t)old, p);
        s->nom_of[pod] = -1;
    }
    if (node >= 0 && p->node < 0) {
        if (agg_add(s, (uint32_t)node, p) != KP_OK) {
            p->nominated_node = 0;
            return KP_ENOMEM;
        }
        if (s->nom_n[node] == s->nom_cap[node]) {
            uint32_t ncap = s->nom_cap[node] ? s->nom_cap[node] * 2 : 4;
            uint32_t *nl = kp__realloc(s->nom_pods[node], ncap * sizeof *nl);
            if (!nl) {
                agg_remove(s, (uint32_t)node, p);
                p->nominated_node = 0;
                return KP_ENOMEM;
            }
            s->nom_pods[node] = nl;
            s->nom_cap[node] = ncap;
            if (ncap > s->cap_nom_scratch) {
                uint32_t *ns = kp__realloc(s->nom_scratch, ncap * sizeof *ns);
                if (!ns) {
                    agg_remove(s, (uint32_t)node, p);
                    p->nominated_node = 0;
                    return KP_ENOMEM;
                }
                s->nom_scratch = ns;
                s->cap_nom_scratch = ncap;
            }
        }
        s->nom_pods[node][s->nom_n[node]++] = pod;
        s->nom_of[pod] = node;
        p->nominated_node = s->cl->nodes[node].name;
    } else {
        p->nominated_node = 0;
    }
    return KP_OK;
}
