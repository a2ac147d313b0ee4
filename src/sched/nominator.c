/* The nominator: see nominator.h. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "sched/framework.h"
#include "sched/nominator.h"

uint32_t kp__sched_nominated_on(kp_sched *s, uint32_t node, const uint32_t **pods) {
    *pods = s->nom_pods[node];
    return s->nom_n[node];
}

/* mirrors nominator.deleteNominatedPodIfExistsUnlocked + addNominatedPodUnlocked */
kp_status kp__sched_nominate(kp_sched *s, uint32_t pod, int32_t node) {
    int32_t old = s->nom_of[pod];
    if (old >= 0) {
        uint32_t *l = s->nom_pods[old], n = s->nom_n[old];
        for (uint32_t i = 0; i < n; i++) {
            if (l[i] == pod) {
                memmove(l + i, l + i + 1, (n - i - 1) * sizeof *l);
                s->nom_n[old]--;
                break;
            }
        }
        s->nom_of[pod] = -1;
    }
    kp_pod *p = &s->cl->pods[pod];
    if (node >= 0 && p->node < 0) {
        if (s->nom_n[node] == s->nom_cap[node]) {
            uint32_t ncap = s->nom_cap[node] ? s->nom_cap[node] * 2 : 4;
            uint32_t *nl = kp__realloc(s->nom_pods[node], ncap * sizeof *nl);
            if (!nl) {
                p->nominated_node = 0;
                return KP_ENOMEM;
            }
            s->nom_pods[node] = nl;
            s->nom_cap[node] = ncap;
            if (ncap > s->cap_nom_scratch) {
                uint32_t *ns = kp__realloc(s->nom_scratch, ncap * sizeof *ns);
                if (!ns) {
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
