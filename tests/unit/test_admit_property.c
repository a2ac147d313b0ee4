/* Randomised properties of kubelet admission preemption (seeded, own PRNG, reproducible):
 *   - a non-critical pod never preempts anything;
 *   - victims free at least every insufficient amount;
 *   - every victim is an active pod of the node, other than the preemptor, listed once, and the
 *     Preemptable rule allows it (a critical victim only under a strictly higher priority);
 *   - victims come BestEffort first, then Burstable, then Guaranteed;
 *   - preemption fails only when all preemptable pods together cannot cover a requirement. */
#include <stdarg.h>
#include <stdlib.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "harness.h"
#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kubelet/admit_predicates.h"
#include "kubelet/admit_preempt.h"
#include "kubelet/admit_state.h"

static uint64_t rng_state;
static uint64_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static long pick(long lo, long hi) { return lo + (long)(rnd() % (uint64_t)(hi - lo + 1)); }

static char yaml[1 << 18];
static size_t yaml_len;
static void y(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void y(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(yaml + yaml_len, sizeof yaml - yaml_len, fmt, ap);
    va_end(ap);
    if (w > 0) yaml_len += (size_t)w;
}

static const long prios[] = {0, 100, 1000, 1000000000, 2000000000, 2000000500, 2000001000};

static void random_pod(const char *name, bool bound, bool preemptor) {
    long cpu = pick(0, 4) == 0 ? 0 : pick(1, 1500);
    long mem = pick(0, 4) == 0 ? 0 : pick(1, 2048);
    int qos = (int)pick(0, 2); /* 0 BE, 1 burstable, 2 guaranteed */
    if (preemptor && qos == 0) qos = 1;
    if (qos == 2 && (!cpu || !mem)) cpu = cpu ? cpu : 100, mem = mem ? mem : 64;
    y("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: ns\n", name);
    int kind = (int)pick(0, 9);
    if (kind == 0 && !preemptor) y("  annotations:\n    kubernetes.io/config.mirror: m\n");
    if (kind == 1) y("  annotations:\n    kubernetes.io/config.source: file\n");
    y("spec:\n");
    if (bound) y("  nodeName: n1\n");
    if (!(kind == 1 && pick(0, 1))) y("  priority: %ld\n", prios[pick(0, 6)]);
    y("  containers:\n  - name: c\n");
    if (qos > 0) {
        y("    resources:\n      requests:\n");
        if (cpu) y("        cpu: %ldm\n", cpu);
        if (mem) y("        memory: %ldMi\n", mem);
        if (qos == 1 && !cpu && !mem) y("        cpu: 1m\n");
        if (qos == 2) y("      limits:\n        cpu: %ldm\n        memory: %ldMi\n", cpu, mem);
    }
    if (pick(0, 3) == 0 && !preemptor) {
        y("  - name: d\n    resources:\n      requests:\n        cpu: %ldm\n", pick(1, 300));
    }
    y("status:\n  phase: %s\n", pick(0, 12) == 0 ? "Succeeded" : "Running");
}

static kp_cluster *random_cluster(int *n_bound) {
    yaml_len = 0;
    y("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n"
      "    cpu: %ldm\n    memory: %ldMi\n    pods: \"%ld\"\n",
      pick(1000, 8000), pick(1024, 8192), pick(5, 40));
    int n = (int)pick(0, 30);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "p%d", i);
        random_pod(name, true, false);
    }
    random_pod("preemptor", false, true);
    *n_bound = n;
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    if (kp_cluster_load_buffer(cl, "rand.yaml", yaml, yaml_len, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static int res_of(const kp_cluster *cl, const char *name) {
    for (uint32_t j = 0; j < cl->n_res; j++)
        if (!strcmp(kp__s(cl, cl->res_names[j]), name)) return (int)j;
    return -1;
}

KT_TEST(property_victims_sound_and_sufficient) {
    rng_state = 0x9E3779B97F4A7C15ULL;
    kp_admission *a = kp_admission_new();
    int n_preempted = 0, n_failed = 0, n_noncritical = 0;
    for (int iter = 0; iter < 400; iter++) {
        int nb;
        kp_cluster *cl = random_cluster(&nb);
        KT_CHECK(cl != NULL);
        if (!cl) break;
        long pi = kp_cluster_find_pod(cl, "ns/preemptor");
        long ni = kp_cluster_find_node(cl, "n1");
        KT_CHECK(pi >= 0 && ni >= 0);
        if (pi < 0 || ni < 0) {
            kp_cluster_free(cl);
            break;
        }
        const kp_pod *pre = &cl->pods[pi];
        const kp_node *node = &cl->nodes[ni];
        KT_CHECK_INT(kp_admit(cl, (kp_index)ni, (kp_index)pi, NULL, a, NULL), KP_OK);
        size_t nv = kp_admission_victim_count(a);
        if (!kp_admission_critical(a)) {
            n_noncritical++;
            KT_CHECK_INT(nv, 0);
        }
        if (nv > 0) {
            n_preempted++;
            KT_CHECK(kp_admission_admitted(a));
        }
        /* sufficiency */
        for (size_t r = 0; r < kp_admission_requirement_count(a) && kp_admission_admitted(a); r++) {
            const kp_admit_requirement *req = kp_admission_requirement(a, r);
            int ri = res_of(cl, req->resource);
            KT_CHECK(ri >= 0);
            int64_t freed = 0;
            for (size_t v = 0; v < nv; v++)
                freed +=
                    kp__pod_resource_request(cl, &cl->pods[kp_admission_victim(a, v)->pod], ri);
            KT_CHECK(freed >= req->quantity);
        }
        /* soundness */
        int last_qos = 0;
        for (size_t v = 0; v < nv; v++) {
            const kp_admit_victim *vt = kp_admission_victim(a, v);
            const kp_pod *q = &cl->pods[vt->pod];
            KT_CHECK(vt->pod != (kp_index)pi);
            KT_CHECK(q->node == ni);
            KT_CHECK(!kp__pod_is_terminal(q));
            if (kp__admit_is_critical(q)) {
                KT_CHECK(kp__admit_priority_set(q) && kp__admit_priority_set(pre));
                KT_CHECK(pre->priority > q->priority);
            }
            KT_CHECK((int)vt->qos >= last_qos);
            last_qos = (int)vt->qos;
            for (size_t w = 0; w < v; w++) KT_CHECK(kp_admission_victim(a, w)->pod != vt->pod);
        }
        /* failure only when the preemptable pods cannot cover some requirement */
        if (!strcmp(kp_admission_reason(a), "UnexpectedAdmissionError")) {
            n_failed++;
            bool short_somewhere = false;
            for (size_t r = 0; r < kp_admission_requirement_count(a); r++) {
                const kp_admit_requirement *req = kp_admission_requirement(a, r);
                int ri = res_of(cl, req->resource);
                int64_t all = 0;
                for (uint32_t i = 0; i < node->n_pods; i++) {
                    const kp_pod *q = &cl->pods[node->pods[i]];
                    if (!kp__admit_active_other(q, node->pods[i], (uint32_t)pi)) continue;
                    if (!kp__admit_preemptable(pre, q)) continue;
                    all += kp__pod_resource_request(cl, q, ri);
                }
                if (all < req->quantity) short_somewhere = true;
            }
            KT_CHECK(short_somewhere);
            KT_CHECK_CONTAINS(kp_admission_message(a),
                              "no set of running pods found to reclaim resources: [");
        }
        kp_cluster_free(cl);
    }
    /* the generator must exercise every branch */
    KT_CHECK(n_preempted > 10);
    KT_CHECK(n_failed > 5);
    KT_CHECK(n_noncritical > 10);
    kp_admission_free(a);
}

KT_MAIN(KT_CASE(property_victims_sound_and_sufficient))
