/* The nominator: see nominator.h. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "core/pod_state.h"
#include "core/resources.h"
#include "sched/framework.h"
#include "sched/nominator.h"

/* The nominated pods of one priority on one node: a header, then nom_res int64 sums. Groups are
 * kept sorted by priority, highest first, and the sums and cum_n are cumulative: group i holds
 * the requests of every nominated pod of priority >= its own, so "priority >= p" is the one
 * group with the lowest priority >= p (a node has a few distinct priorities: a short scan). */
typedef struct {
    int32_t prio;
    uint32_t n; /* pods of exactly this priority */
    uint32_t cum_n; /* pods of this priority or higher */
    uint32_t pad;
} nom_hdr;

#define KP_NOM_INLINE 4 /* groups per node in the dense array; more go to the node's own block */
#define NOM_HDR_WORDS (sizeof(nom_hdr) / sizeof(int64_t))

uint32_t kp__sched_nominated_on(kp_sched *s, uint32_t node, const uint32_t **pods) {
    *pods = s->nom_pods[node];
    return s->nom_n[node];
}

void kp__sched_nominator_free(kp_sched *s) {
    if (s->nom_big)
        for (uint32_t i = 0; i < s->nom_nodes; i++) kp__free(s->nom_big[i]);
    kp__free(s->nom_big);
    kp__free(s->nom_agg);
    kp__free(s->nom_n_groups);
    kp__free(s->nom_cap_big);
    s->nom_big = NULL;
    s->nom_agg = NULL;
    s->nom_n_groups = s->nom_cap_big = NULL;
    s->nom_res = s->nom_words = s->nom_nodes = 0;
}

/* The node's groups (inline slot, or its own block when it has more than KP_NOM_INLINE). */
static inline int64_t *node_groups(const kp_sched *s, uint32_t node) {
    if (s->nom_n_groups[node] > KP_NOM_INLINE) return s->nom_big[node];
    return s->nom_agg + (size_t)node * KP_NOM_INLINE * s->nom_words;
}

static inline nom_hdr *hdr_at(const kp_sched *s, int64_t *g, uint32_t i) {
    return (nom_hdr *)(g + (size_t)i * s->nom_words);
}

/* Adds sign * the pod's requests to the cumulative sums of groups [from, n). */
static void cum_apply(const kp_sched *s, int64_t *g, uint32_t from, uint32_t n, const kp_pod *p,
                      int sign) {
    for (uint32_t i = from; i < n; i++) {
        nom_hdr *h = hdr_at(s, g, i);
        int64_t *sum = g + (size_t)i * s->nom_words + NOM_HDR_WORDS;
        h->cum_n = sign > 0 ? h->cum_n + 1 : h->cum_n - 1;
        for (uint16_t k = 0; k < p->req.n; k++) sum[p->req.e[k].res] += sign * p->req.e[k].v;
    }
}

static kp_status agg_add(kp_sched *s, uint32_t node, const kp_pod *p);

/* Sizes the aggregates for the cluster's nodes and resources (first nomination, or a pod
 * requesting a resource registered after they were sized: then rebuilt from the lists). */
static kp_status agg_init(kp_sched *s) {
    uint32_t nn = s->cl->n_nodes ? s->cl->n_nodes : 1;
    uint32_t n_res = s->cl->n_res < KP_RES_FIXED ? KP_RES_FIXED : s->cl->n_res;
    if (n_res > KP_MAX_RES) n_res = KP_MAX_RES;
    kp__sched_nominator_free(s);
    s->nom_res = n_res;
    s->nom_words = (uint32_t)NOM_HDR_WORDS + n_res;
    s->nom_nodes = nn;
    s->nom_agg = kp__calloc((size_t)nn * KP_NOM_INLINE * s->nom_words, sizeof *s->nom_agg);
    s->nom_big = kp__calloc(nn, sizeof *s->nom_big);
    s->nom_n_groups = kp__calloc(nn, sizeof *s->nom_n_groups);
    s->nom_cap_big = kp__calloc(nn, sizeof *s->nom_cap_big);
    if (!s->nom_agg || !s->nom_big || !s->nom_n_groups || !s->nom_cap_big) {
        kp__sched_nominator_free(s);
        return KP_ENOMEM;
    }
    for (uint32_t nd = 0; nd < s->cl->n_nodes; nd++)
        for (uint32_t i = 0; i < s->nom_n[nd]; i++)
            if (agg_add(s, nd, &s->cl->pods[s->nom_pods[nd][i]]) != KP_OK) {
                kp__sched_nominator_free(s);
                return KP_ENOMEM;
            }
    return KP_OK;
}

/* Makes room for one more group on node (moving its groups to its own block past the inline
 * slot). KP_ENOMEM (nothing changed). */
static kp_status room_for_group(kp_sched *s, uint32_t node) {
    uint32_t n = s->nom_n_groups[node];
    if (n < KP_NOM_INLINE) return KP_OK;
    size_t w = s->nom_words;
    if (n == KP_NOM_INLINE || n + 1 > s->nom_cap_big[node]) {
        uint32_t cap = s->nom_cap_big[node] > n ? s->nom_cap_big[node] : n * 2;
        int64_t *b = kp__realloc(s->nom_big[node], (size_t)cap * w * sizeof *b);
        if (!b) return KP_ENOMEM;
        if (n == KP_NOM_INLINE) memcpy(b, node_groups(s, node), (size_t)n * w * sizeof *b);
        s->nom_big[node] = b;
        s->nom_cap_big[node] = cap;
    }
    return KP_OK;
}

/* Adds the pod's requests to its node's groups (its own priority's, created if new, and every
 * lower one's cumulative sums). KP_ENOMEM (nothing changed). */
static kp_status agg_add(kp_sched *s, uint32_t node, const kp_pod *p) {
    /* first nomination, or a node added after the aggregates were sized: (re)size them */
    if ((!s->nom_agg || node >= s->nom_nodes) && agg_init(s) != KP_OK) return KP_ENOMEM;
    for (uint16_t k = 0; k < p->req.n; k++)
        if (p->req.e[k].res >= s->nom_res && agg_init(s) != KP_OK) return KP_ENOMEM;
    uint32_t n = s->nom_n_groups[node], i = 0;
    int64_t *g = node_groups(s, node);
    while (i < n && hdr_at(s, g, i)->prio > p->priority) i++;
    if (i == n || hdr_at(s, g, i)->prio != p->priority) {
        if (room_for_group(s, node) != KP_OK) return KP_ENOMEM;
        size_t w = s->nom_words;
        s->nom_n_groups[node]++;
        g = node_groups(s, node);
        memmove(g + (i + 1) * w, g + i * w, (n - i) * w * sizeof *g);
        /* the new group starts as the cumulative sums of the groups above it */
        if (i > 0) memcpy(g + i * w, g + (i - 1) * w, w * sizeof *g);
        else memset(g, 0, w * sizeof *g);
        nom_hdr *h = hdr_at(s, g, i);
        h->prio = p->priority;
        h->n = 0;
        n++;
    }
    hdr_at(s, g, i)->n++;
    cum_apply(s, g, i, n, p, 1);
    return KP_OK;
}

/* Takes the pod's requests out of its node's groups (its group goes when empty). */
static void agg_remove(kp_sched *s, uint32_t node, const kp_pod *p) {
    if (!s->nom_agg || node >= s->nom_nodes) return;
    uint32_t n = s->nom_n_groups[node], i = 0;
    int64_t *g = node_groups(s, node);
    while (i < n && hdr_at(s, g, i)->prio != p->priority) i++;
    if (i == n) return; /* cannot happen: every nominated pod was added */
    cum_apply(s, g, i, n, p, -1);
    if (--hdr_at(s, g, i)->n > 0) return;
    size_t w = s->nom_words;
    memmove(g + i * w, g + (i + 1) * w, (n - i - 1) * w * sizeof *g);
    if (--s->nom_n_groups[node] == KP_NOM_INLINE) /* back into the inline slot */
        memcpy(s->nom_agg + (size_t)node * KP_NOM_INLINE * w, g, KP_NOM_INLINE * w * sizeof *g);
}

uint32_t kp__sched_nominated_sum(kp_sched *s, uint32_t node, int32_t prio, uint32_t self,
                                 int64_t *sum) {
    /* every resource index a caller reads is < n_res (cpu, memory, ephemeral-storage and pods
     * are registered first) */
    uint32_t n_res = s->cl->n_res < KP_RES_FIXED ? KP_RES_FIXED : s->cl->n_res;
    if (n_res > KP_MAX_RES) n_res = KP_MAX_RES;
    uint32_t n = s->nom_agg && node < s->nom_nodes ? s->nom_n_groups[node] : 0;
    const int64_t *g = n ? node_groups(s, node) : NULL;
    uint32_t i = 0;
    while (i < n && hdr_at(s, (int64_t *)g, i)->prio >= prio) i++;
    if (i == 0) { /* no nominated pod of priority >= prio */
        memset(sum, 0, n_res * sizeof *sum);
        return 0;
    }
    const int64_t *cum = g + (size_t)(i - 1) * s->nom_words;
    uint32_t count = ((const nom_hdr *)cum)->cum_n, n_agg = s->nom_res < n_res ? s->nom_res : n_res;
    /* the fixed resources as one constant-size copy (a few moves; a variable-size memcpy of 32
     * bytes was a `rep movsq`, half of this function's time), the rest one by one */
    memcpy(sum, cum + NOM_HDR_WORDS, KP_RES_FIXED * sizeof *sum);
    for (uint32_t r = KP_RES_FIXED; r < n_res; r++) sum[r] = r < n_agg ? cum[NOM_HDR_WORDS + r] : 0;
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
    s->memo_mut++; /* the failed-attempt memo's state (memo.h) */
    const kp_pod *p = &s->cl->pods[pod];
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
            kp__pod_nominate(s->cl, pod, -1);
            return KP_ENOMEM;
        }
        if (s->nom_n[node] == s->nom_cap[node]) {
            void *nl = s->nom_pods[node];
            if (!kp__grow32(&nl, &s->nom_cap[node], (size_t)s->nom_n[node] + 1,
                            sizeof *s->nom_pods[node], 4)) {
                agg_remove(s, (uint32_t)node, p);
                kp__pod_nominate(s->cl, pod, -1);
                return KP_ENOMEM;
            }
            s->nom_pods[node] = nl;
            uint32_t ncap = s->nom_cap[node];
            if (ncap > s->cap_nom_scratch) {
                uint32_t *ns = kp__realloc(s->nom_scratch, ncap * sizeof *ns);
                if (!ns) {
                    agg_remove(s, (uint32_t)node, p);
                    kp__pod_nominate(s->cl, pod, -1);
                    return KP_ENOMEM;
                }
                s->nom_scratch = ns;
                s->cap_nom_scratch = ncap;
            }
        }
        s->nom_pods[node][s->nom_n[node]++] = pod;
        s->nom_of[pod] = node;
        kp__pod_nominate(s->cl, pod, node);
    } else {
        kp__pod_nominate(s->cl, pod, -1);
    }
    return KP_OK;
}
